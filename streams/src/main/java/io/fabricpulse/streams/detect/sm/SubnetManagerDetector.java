package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * The subnet-manager detectors (docs/formats.md, OpenSM log and sminfo; docs/thresholds.md, subnet
 * manager): SM_FAILOVER, SM_ABSENT, SM_HUNG and SM_UNSTABLE per cluster over fabric.raw.sm (OpenSM
 * log lines and sminfo polls from every node). The SM is a cluster-wide fact, so records are
 * re-keyed by cluster and repartitioned; one task then sees every poller and every OpenSM host of
 * its cluster, but not in event-time order (they come from different partitions): the records wait
 * in sm-buffer until the cluster's low watermark over its SM sources (sm-clocks) passes them, and
 * are judged in event-time order.
 *
 * <pre>
 * source-fabric-raw-sm -> sm-key-by-cluster -> repartition sm-by-cluster
 *   -> sm-detector [sm-buffer, sm-clocks, sm-state, sm-tracker]
 *   -> sm-results-only -> sm-results-cast -> fabric.alerts, fabric.alerts.active
 *   -> sm-dead-letters-only -> sm-dead-letters-cast -> sm-sink-dlq (fabric.dlq)
 * </pre>
 */
public final class SubnetManagerDetector {

  /** SM records waiting for the watermark, in event-time order ({@link SmEventBuffer}). */
  public static final String BUFFER_STORE = "sm-buffer";

  /** Per-cluster {@link SmSourceClocks}: each SM source's latest event time, the watermark. */
  public static final String CLOCK_STORE = "sm-clocks";

  /** Per-cluster {@link SmClusterState} (key cluster). */
  public static final String STATE_STORE = "sm-state";

  /** Trackers of every SM rule (key rule|cluster). */
  public static final String TRACKER_STORE = "sm-tracker";

  /** Repartition (internal topic {@code <application.id>-sm-by-cluster-repartition}). */
  public static final String BY_CLUSTER = "sm-by-cluster";

  public static final String PROCESSOR = "sm-detector";

  /** The SM family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          "sm",
          EnumSet.of(
              AlertKind.SM_FAILOVER, AlertKind.SM_ABSENT, AlertKind.SM_HUNG, AlertKind.SM_UNSTABLE),
          SubnetManagerDetector::addTo);

  private SubnetManagerDetector() {}

  /** Adds the SM detectors to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(BUFFER_STORE, new BufferedSmEventSerde(inputs.serdes().value(SmSweep.class)));
    inputs.addStore(CLOCK_STORE, new SmSourceClocksSerde());
    inputs.addStore(STATE_STORE, new SmClusterStateSerde());
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    SmRules smRules = SmRules.from(rules);
    KStream<String, SmSweep> sm = inputs.stream(inputs.topics().sm(), SmSweep.class);
    DetectorProcessor.addAlerting(
        inputs,
        "sm",
        PROCESSOR,
        sm.filter((key, r) -> r != null, Named.as("sm-non-null"))
            .selectKey((key, r) -> r.getCluster(), Named.as("sm-key-by-cluster"))
            .repartition(
                Repartitioned.with(Serdes.String(), inputs.serdes().value(SmSweep.class))
                    .withName(BY_CLUSTER)),
        failures -> new SmDetectorProcessor(smRules, failures),
        BUFFER_STORE,
        CLOCK_STORE,
        STATE_STORE,
        TRACKER_STORE);
  }
}
