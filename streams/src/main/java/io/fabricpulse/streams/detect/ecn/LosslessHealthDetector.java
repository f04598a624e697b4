package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSinks;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * The ECN and lossless-health detectors on RoCE ports (issue 4 detector 6; docs/thresholds.md
 * P5-P6, 2.2, 2.3): ECN_MISCONFIG, ECN_NOT_EFFECTIVE and LOSSLESS_DROP per port, MTU_MISMATCH per
 * netdev against its cluster.
 *
 * <pre>
 * source-fabric-rates -> rates-in-node-order -> ecn-roce-only -> ecn-keep-congestion-counters
 *   -> ecn-with-counters
 *   -> ecn-port-detector [ecn-port-tracker, ecn-port-state, ecn-node-clocks]
 *      -> ecn-dead-letters-only -> ecn-dead-letters-cast -> ecn-sink-dlq (fabric.dlq)
 *      -> ecn-results-only -> ecn-results-cast
 * source-fabric-rates -> ecn-mtu-sampler -> repartition ecn-mtu-by-cluster
 *   -> ecn-mtu-detector [ecn-mtu-ports, ecn-mtu-tracker]
 *      -> ecn-mtu-dead-letters-only -> ecn-mtu-dead-letters-cast -> ecn-mtu-sink-dlq (fabric.dlq)
 *      -> ecn-mtu-results-only -> ecn-mtu-results-cast
 * both -> ecn-alerts-merge -> the topology join by netdev ({@link LinkPeers#joinByNetdev})
 *   -> fabric.alerts, fabric.alerts.active
 * </pre>
 *
 * fabric.rates is keyed by node ({@code cluster/node}, the raw key), so the sysfs, ethtool and ECN
 * samples of one port are all in the node's partition, in the order the node's rate task wrote
 * them, and {@link io.fabricpulse.streams.order.RatesInNodeOrder} puts each node's records in
 * event-time order across its sources (a clean sysfs sample must not be judged before an older
 * ethtool sample that still shows drops): the per-port checks need no repartition, their state is
 * keyed by port within the node's partition, and one port has one tracker and raises one alert
 * whichever source showed the trouble. Each port is judged at its own sample times, and punctuation
 * resolves at the node's clock ({@link io.fabricpulse.streams.alerts.NodeClocks}), so nodes
 * trailing one another in a partition do not disturb each other.
 *
 * <p>The MTU census needs every netdev of a cluster, hence the one repartition by cluster, fed only
 * first samples, changes and a refresh every 10 s. Its input arrives from several rate tasks in no
 * particular order, which is harmless: the census is state (each netdev's latest MTU, an older
 * sample of a netdev is ignored), not time, and each netdev is judged at its own sample time.
 */
public final class LosslessHealthDetector {

  /**
   * Trackers of the ecn_misconfig, ecn_not_effective and lossless_drop rules (rule|subject), in the
   * node's partition (renamed from ecn-tracker when the input stopped being keyed by port).
   */
  public static final String TRACKER_STORE = "ecn-port-tracker";

  /** Windowed state of the ECN conditions per rule|subject ({@link EcnWindow}), per node. */
  public static final String WINDOW_STORE = "ecn-port-state";

  /** Latest sample time per node (key cluster/node): the clock punctuation resolves at. */
  public static final String NODE_CLOCK_STORE = "ecn-node-clocks";

  /** MTU of every RoCE netdev, key {@code cluster|node/netdev}. */
  public static final String MTU_PORTS_STORE = "ecn-mtu-ports";

  /** Trackers of the mtu_mismatch rules. */
  public static final String MTU_TRACKER_STORE = "ecn-mtu-tracker";

  /** Repartition by cluster (topic {@code <application.id>-ecn-mtu-by-cluster-repartition}). */
  public static final String MTU_BY_CLUSTER = "ecn-mtu-by-cluster";

  public static final String PORT_PROCESSOR = "ecn-port-detector";
  public static final String MTU_PROCESSOR = "ecn-mtu-detector";

  /**
   * The MTU census's own name for its failures (metric tag, dead letters' detector, {@code
   * ecn-mtu-sink-dlq}): its processor is apart from the port detector's.
   */
  static final String MTU_FAMILY = "ecn-mtu";

  /** The ECN / lossless family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          "ecn",
          EnumSet.of(
              AlertKind.ECN_MISCONFIG,
              AlertKind.ECN_NOT_EFFECTIVE,
              AlertKind.LOSSLESS_DROP,
              AlertKind.MTU_MISMATCH),
          LosslessHealthDetector::addTo);

  private LosslessHealthDetector() {}

  /** Adds the family's processors and stores to the inputs' builder. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    Serde<Alert> alertSerde = inputs.serdes().alert();
    Serde<CounterRates> ratesSerde = inputs.serdes().rates();
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    inputs.addStore(WINDOW_STORE, new EcnWindow.EcnWindowSerde());
    inputs.addStore(NODE_CLOCK_STORE, Serdes.Long());
    inputs.addStore(MTU_PORTS_STORE, new PortMtu.PortMtuSerde());
    inputs.addStore(MTU_TRACKER_STORE, new TrackerStateSerde());

    List<PortCheck> checks = new ArrayList<>();
    rules.enabledFor(Detector.ECN_MISCONFIG).forEach(r -> checks.add(new EcnMisconfigCheck(r)));
    rules
        .enabledFor(Detector.ECN_NOT_EFFECTIVE)
        .forEach(r -> checks.add(new EcnNotEffectiveCheck(r)));
    rules.enabledFor(Detector.LOSSLESS_DROP).forEach(r -> checks.add(new LosslessDropCheck(r)));
    var mtuRules = rules.enabledFor(Detector.MTU_MISMATCH);

    KStream<String, CounterRates> roce =
        inputs
            .ratesInNodeOrder()
            .filter((key, r) -> r != null && RoceSample.isRoce(r), Named.as("ecn-roce-only"))
            .mapValues(
                LosslessHealthDetector::keepCongestionCounters,
                Named.as("ecn-keep-congestion-counters"))
            .filter((key, r) -> !r.getRates().isEmpty(), Named.as("ecn-with-counters"));
    KStream<String, Alert> portAlerts =
        DetectorProcessor.alertsOf(
            inputs,
            "ecn",
            PORT_PROCESSOR,
            roce,
            failures -> new LosslessHealthProcessor(checks, failures),
            TRACKER_STORE,
            WINDOW_STORE,
            NODE_CLOCK_STORE);
    KStream<String, CounterRates> mtuSamples =
        inputs
            .rates()
            .process(MtuSampler::new, Named.as("ecn-mtu-sampler"))
            .repartition(Repartitioned.with(Serdes.String(), ratesSerde).withName(MTU_BY_CLUSTER));
    KStream<String, Alert> mtuAlerts =
        DetectorProcessor.alertsOf(
            inputs,
            MTU_FAMILY,
            MTU_PROCESSOR,
            mtuSamples,
            failures -> new MtuMismatchProcessor(mtuRules, failures),
            MTU_PORTS_STORE,
            MTU_TRACKER_STORE);
    AlertSinks.addTo(
        LinkPeers.joinByNetdev(
            inputs, portAlerts.merge(mtuAlerts, Named.as("ecn-alerts-merge")), "ecn"),
        "ecn",
        inputs.topics(),
        alertSerde);
  }

  /** The record with only the counters this family reads. */
  static CounterRates keepCongestionCounters(CounterRates r) {
    List<CounterRate> kept = new ArrayList<>();
    for (CounterRate c : r.getRates()) {
      if (RoceSample.relevant(c)) {
        kept.add(c);
      }
    }
    return CounterRates.newBuilder(r).setRates(kept).build();
  }
}
