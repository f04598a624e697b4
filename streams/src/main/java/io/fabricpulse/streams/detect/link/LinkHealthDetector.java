package io.fabricpulse.streams.detect.link;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.streams.alerts.AlertSinks;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * The link detectors (docs/thresholds.md F1-F8 and B1-B7): LINK_FLAP, LINK_DOWN, LINK_DEGRADED and
 * PHY_ERRORS per (node, device, port) over fabric.rates, for host ports and switch ports alike (a
 * switch port's rates are source PERFQUERY, node the switch, device its GUID).
 *
 * <p>fabric.rates is keyed by node ({@code cluster/node}, the raw key), so a port's rates and its
 * netdev's ethtool rates (which carry link_down_events_phy on RoCE) are in the node's partition,
 * written by the one rate task of that node's raw partition and put in event-time order across the
 * node's sources by {@link io.fabricpulse.streams.order.RatesInNodeOrder}: the detector reads them
 * without a repartition, with its stores keyed by port and netdev within the partition, and counts
 * each physical drop once. Of the PFC rates only samples with a link_down_events_phy increase reach
 * it.
 *
 * <p>Every judgement about a port is made at that port's own sample times (a down port keeps
 * reporting its state), never against a clock driven by other nodes: nodes of one partition can
 * trail each other (a collector that buffered, a partition caught up after a restart), and a port
 * must not look down for longer than its own samples show.
 *
 * <pre>
 * source-fabric-rates -> rates-in-node-order -> link-rates-only
 *   -> link-detector [link-port-state, link-down-ports, link-netdev-ports, link-node-clocks,
 *                     link-alert-tracker]
 *   -> link-results-only -> link-results-cast (alerts and node progress markers, shared with
 *      the NCCL family as {@link LinkProgress#SHARED_STREAM})
 *      -> link-alerts-only -> the topology join ({@link LinkPeers}: the peer labels, and one
 *         incident label for both ends of a cable)
 *      -> fabric.alerts, fabric.alerts.active
 *   -> link-dead-letters-only -> link-dead-letters-cast -> link-sink-dlq (fabric.dlq)
 * </pre>
 */
public final class LinkHealthDetector {

  /** Per-port {@link PortLinkState} (key cluster/node/device/port). */
  public static final String PORT_STORE = "link-port-state";

  /** Ports currently down that were ACTIVE before (key port, value down since), for punctuation. */
  public static final String DOWN_PORTS_STORE = "link-down-ports";

  /** RoCE: cluster/node/netdev -> its port key. */
  public static final String NETDEV_STORE = "link-netdev-ports";

  /** Latest sample time per node (key cluster/node): the clock its ports are judged at. */
  public static final String NODE_CLOCK_STORE = "link-node-clocks";

  /** Trackers of every link rule (key rule|subject). */
  public static final String TRACKER_STORE = "link-alert-tracker";

  public static final String PROCESSOR = "link-detector";

  static final String MODULE_NAME = "link";

  /** The link family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          MODULE_NAME,
          EnumSet.of(
              AlertKind.LINK_FLAP,
              AlertKind.LINK_DOWN,
              AlertKind.LINK_DEGRADED,
              AlertKind.PHY_ERRORS),
          LinkHealthDetector::addTo);

  private LinkHealthDetector() {}

  /** Adds the link detectors to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(PORT_STORE, new PortLinkStateSerde());
    inputs.addStore(DOWN_PORTS_STORE, Serdes.Long());
    inputs.addStore(NETDEV_STORE, Serdes.String());
    inputs.addStore(NODE_CLOCK_STORE, Serdes.Long());
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());

    List<FlapCheck> flaps =
        rules.enabledFor(Detector.LINK_FLAP).stream().map(FlapCheck::new).toList();
    List<DownCheck> downs =
        rules.enabledFor(Detector.LINK_DOWN).stream().map(DownCheck::new).toList();
    List<DegradedCheck> degraded =
        rules.enabledFor(Detector.LINK_DEGRADED).stream().map(DegradedCheck::new).toList();
    List<PhyErrorsCheck> phy =
        rules.enabledFor(Detector.PHY_ERRORS).stream().map(PhyErrorsCheck::new).toList();

    KStream<String, Alert> alertsAndProgress =
        DetectorProcessor.alertsOf(
            inputs,
            MODULE_NAME,
            PROCESSOR,
            inputs
                .ratesInNodeOrder()
                .filter((key, r) -> isLinkInput(r), Named.as("link-rates-only")),
            failures -> new LinkHealthProcessor(flaps, downs, degraded, phy, failures),
            PORT_STORE,
            DOWN_PORTS_STORE,
            NETDEV_STORE,
            NODE_CLOCK_STORE,
            TRACKER_STORE);
    inputs.share(LinkProgress.SHARED_STREAM, alertsAndProgress);
    KStream<String, Alert> alerts =
        alertsAndProgress.filter((key, a) -> a != null, Named.as("link-alerts-only"));
    AlertSinks.addTo(
        LinkPeers.join(inputs, alerts, MODULE_NAME),
        MODULE_NAME,
        inputs.topics(),
        inputs.serdes().alert());
  }

  /**
   * Port samples (host ports, and switch ports from the fabric role's perfquery sweeps), and
   * ethtool samples of a netdev whose link_down_events_phy increased.
   */
  static boolean isLinkInput(CounterRates r) {
    if (r == null) {
      return false;
    }
    if (isPortSample(r)) {
      return r.getDevice() != null;
    }
    return r.getSource() == RateSource.PFC
        && r.getNetdev() != null
        && new LinkSample(r).increase(LinkSample.LINK_DOWN_EVENTS_PHY) > 0;
  }

  /**
   * A port's own sample: sysfs (PORT) or a switch port's perfquery counters (PERFQUERY), which
   * carry the same counter names and link fields (docs/switch-ports.md).
   */
  static boolean isPortSample(CounterRates r) {
    return r.getSource() == RateSource.PORT || r.getSource() == RateSource.PERFQUERY;
  }
}
