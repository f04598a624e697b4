package io.fabricpulse.streams.detect.silence;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.AlertSinks;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * Collector silence (issue 4 detector 7): COLLECTOR_SILENT for a node that stopped reporting, so a
 * dead node is not mistaken for a healthy, quiet one.
 *
 * <pre>
 * source-fabric-rates -> silence-heartbeats -> repartition silence-by-cluster
 *   -> silence-detector [silence-nodes, silence-tracker] -> fabric.alerts, fabric.alerts.active
 * </pre>
 *
 * Why a repartition by cluster: fabric.rates is keyed by sample subject, so one node's samples are
 * spread over several partitions and no single task sees the node; and a node's silence can only be
 * judged against time moving on elsewhere. In the cluster's partition, stream time is driven by
 * every other node of the cluster (and of the clusters sharing the partition). Only thin heartbeats
 * cross the repartition (one per node, source and sample time per upstream task, no counters).
 *
 * <p>Limits: stream time is the largest heartbeat time, and heartbeats reach the partition from
 * several upstream tasks, so one node's samples can trail stream time a little without it being
 * silent; the rule's grace absorbs that skew. If a whole partition goes quiet, stream time stops
 * and nothing fires. A node reboot that keeps sampling (the simulator's NODE_REBOOT: new boot_id,
 * counters restart, samples continue each second) is no silence; a real reboot longer than the
 * threshold is, and fires until the node reports again.
 */
public final class CollectorSilenceDetector {

  /** Per node ({@code cluster|node}): last sample time and recent intervals per source. */
  public static final String NODES_STORE = "silence-nodes";

  /** Trackers of the collector_silent rules (rule|subject). */
  public static final String TRACKER_STORE = "silence-tracker";

  /** Repartition by cluster (topic {@code <application.id>-silence-by-cluster-repartition}). */
  public static final String BY_CLUSTER = "silence-by-cluster";

  public static final String HEARTBEATS = "silence-heartbeats";
  public static final String PROCESSOR = "silence-detector";

  /** The collector-silence family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      new DetectorModule() {
        @Override
        public String name() {
          return "silence";
        }

        @Override
        public Set<AlertKind> kinds() {
          return EnumSet.of(AlertKind.COLLECTOR_SILENT);
        }

        @Override
        public void addTo(DetectorInputs inputs, RuleSet rules) {
          CollectorSilenceDetector.addTo(inputs, rules);
        }
      };

  private CollectorSilenceDetector() {}

  /** A topology with only this detector (tests, or a dedicated detector instance). */
  public static Topology buildTopology(FabricTopics topics, DetectorSerdes serdes, RuleSet rules) {
    StreamsBuilder builder = new StreamsBuilder();
    addTo(new DetectorInputs(builder, topics, serdes), rules);
    return builder.build();
  }

  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    StreamsBuilder builder = inputs.builder();
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(NODES_STORE),
            Serdes.String(),
            new NodeActivity.NodeActivitySerde()));
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(TRACKER_STORE),
            Serdes.String(),
            new TrackerStateSerde()));
    var silenceRules = rules.enabledFor(Detector.COLLECTOR_SILENT);
    KStream<String, Alert> alerts =
        inputs
            .rates()
            .process(HeartbeatSampler::new, Named.as(HEARTBEATS))
            .repartition(
                Repartitioned.<String, CounterRates>with(Serdes.String(), inputs.serdes().rates())
                    .withName(BY_CLUSTER))
            .process(
                () -> new CollectorSilenceProcessor(silenceRules),
                Named.as(PROCESSOR),
                NODES_STORE,
                TRACKER_STORE);
    AlertSinks.addTo(alerts, "silence", inputs.topics(), inputs.serdes().alert());
  }
}
