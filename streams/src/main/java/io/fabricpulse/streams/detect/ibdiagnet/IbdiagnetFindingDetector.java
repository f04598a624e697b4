package io.fabricpulse.streams.detect.ibdiagnet;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;

/**
 * IBDIAGNET_FINDING: a line of an ibdiagnet run's log (fabric.raw.ibdiagnet, one FabricFindings per
 * run) as an alert of its own, with the tool's line as evidence. Each rule takes one kind of
 * finding (link speed, link width, port counter, other) at or above a severity; one alert per rule
 * and port (or node) ibdiagnet names, FIRING with the run that reports it, RESOLVED at the first
 * later run of the same collector that no longer does. Runs are keyed by the collector that read
 * them ({@code cluster/observed_by}), so one collector's runs are judged in order in one task.
 *
 * <pre>
 * source-fabric-raw-ibdiagnet
 *   -> ibdiagnet-detector [ibdiagnet-reported, ibdiagnet-alert-tracker]
 *   -> ibdiagnet-results-only -> ibdiagnet-results-cast -> fabric.alerts, fabric.alerts.active
 *   -> ibdiagnet-dead-letters-only -> ibdiagnet-dead-letters-cast -> ibdiagnet-sink-dlq
 * </pre>
 */
public final class IbdiagnetFindingDetector {

  /** Per rule and collector (key rule|cluster/observed_by): the subjects its last run reported. */
  public static final String REPORTED_STORE = "ibdiagnet-reported";

  /** Trackers of every ibdiagnet rule (key rule|subject). */
  public static final String TRACKER_STORE = "ibdiagnet-alert-tracker";

  public static final String PROCESSOR = "ibdiagnet-detector";

  static final String MODULE_NAME = "ibdiagnet";

  /** The ibdiagnet family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          MODULE_NAME, EnumSet.of(AlertKind.IBDIAGNET_FINDING), IbdiagnetFindingDetector::addTo);

  private IbdiagnetFindingDetector() {}

  /** Adds the ibdiagnet detector to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(REPORTED_STORE, Serdes.String());
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    List<FindingCheck> checks =
        rules.enabledFor(Detector.IBDIAGNET_FINDING).stream().map(FindingCheck::new).toList();
    DetectorProcessor.addAlerting(
        inputs,
        MODULE_NAME,
        PROCESSOR,
        inputs.stream(inputs.topics().ibdiagnet(), FabricFindings.class),
        failures -> new IbdiagnetFindingProcessor(checks, failures),
        REPORTED_STORE,
        TRACKER_STORE);
  }
}
