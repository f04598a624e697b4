package io.fabricpulse.streams.detect.capability;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;

/**
 * LINK_BELOW_CAPABILITY over fabric.topology: a link whose active width or speed is below what both
 * of its ends support (iblinkinfo's {@code Could be 4X} / {@code Could be 10.0 Gbps}, the
 * FabricLink's possible_width / possible_speed), ibdiagnet's rule that the final width and speed
 * must be the best both ends enable. One alert per cable, naming both ends (the link is one record
 * for both of its ends), FIRING with the sweep that shows the gap, RESOLVED with the link record
 * that no longer shows it or the tombstone of a link that is gone.
 *
 * <pre>
 * source-fabric-topology
 *   -> capability-detector [capability-links, capability-alert-tracker]
 *   -> capability-results-only -> capability-results-cast -> fabric.alerts, fabric.alerts.active
 *   -> capability-dead-letters-only -> capability-dead-letters-cast -> capability-sink-dlq
 * </pre>
 */
public final class LinkCapabilityDetector {

  /** Links with a FIRING or pending alert (key link_id, value the alert subject encoded). */
  public static final String LINK_STORE = "capability-links";

  /** Trackers of every link_below_capability rule (key rule|subject). */
  public static final String TRACKER_STORE = "capability-alert-tracker";

  public static final String PROCESSOR = "capability-detector";

  static final String MODULE_NAME = "capability";

  /** The link capability family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          MODULE_NAME, EnumSet.of(AlertKind.LINK_BELOW_CAPABILITY), LinkCapabilityDetector::addTo);

  private LinkCapabilityDetector() {}

  /** Adds the detector to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(LINK_STORE, Serdes.String());
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    List<Rule> enabled = rules.enabledFor(Detector.LINK_BELOW_CAPABILITY);
    DetectorProcessor.addAlerting(
        inputs,
        MODULE_NAME,
        PROCESSOR,
        inputs.stream(inputs.topics().topology(), FabricLink.class),
        failures -> new LinkCapabilityProcessor(enabled, failures),
        LINK_STORE,
        TRACKER_STORE);
  }
}
