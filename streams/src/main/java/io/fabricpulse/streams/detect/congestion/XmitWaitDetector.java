package io.fabricpulse.streams.detect.congestion;

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
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * XMIT_WAIT: congestion on a switch port (an ISL or the switch end of a host link), from the fabric
 * role's perfquery sweeps (fabric.rates of source PERFQUERY): the port's PortXmitWait ticks per
 * second as the share of its bandwidth lost waiting to transmit, over the rule's ratio for the
 * rule's number of sweeps in a row (docs/thresholds.md P7). The topology join names the port at the
 * other end of the cable (label {@code peer}): for an ISL the next switch downstream, for a host
 * link the host whose HCA is slow to take the data.
 *
 * <pre>
 * source-fabric-rates -> rates-per-port -> congestion-switch-ports-only
 *   -> congestion-detector [congestion-alert-tracker]
 *   -> congestion-results-only -> congestion-results-cast
 *      -> the topology join (congestion-alerts-by-port, {@link LinkPeers}) -> fabric.alerts, .active
 *   -> congestion-dead-letters-only -> congestion-dead-letters-cast -> congestion-sink-dlq
 * </pre>
 */
public final class XmitWaitDetector {

  /** Trackers of every xmit_wait rule (key rule|subject). */
  public static final String TRACKER_STORE = "congestion-alert-tracker";

  public static final String PROCESSOR = "congestion-detector";

  static final String MODULE_NAME = "congestion";

  /** The switch-port congestion family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(MODULE_NAME, EnumSet.of(AlertKind.XMIT_WAIT), XmitWaitDetector::addTo);

  private XmitWaitDetector() {}

  /** Adds the detector to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    List<XmitWaitCheck> checks =
        rules.enabledFor(Detector.XMIT_WAIT).stream().map(XmitWaitCheck::new).toList();
    KStream<String, Alert> alerts =
        DetectorProcessor.alertsOf(
            inputs,
            MODULE_NAME,
            PROCESSOR,
            inputs
                .rates()
                .filter((key, r) -> isSwitchPort(r), Named.as(MODULE_NAME + "-switch-ports-only")),
            failures -> new XmitWaitProcessor(checks, failures),
            TRACKER_STORE);
    AlertSinks.addTo(
        LinkPeers.join(inputs, alerts, MODULE_NAME),
        MODULE_NAME,
        inputs.topics(),
        inputs.serdes().alert());
  }

  /** A switch port's rates from the fabric role's perfquery sweep (docs/switch-ports.md). */
  static boolean isSwitchPort(CounterRates r) {
    return r != null
        && r.getSource() == RateSource.PERFQUERY
        && r.getDevice() != null
        && r.getPort() != null;
  }
}
