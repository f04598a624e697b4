package io.fabricpulse.streams.detect.silence;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;

/**
 * Collector silence (issue 4 detector 7): COLLECTOR_SILENT for a node that stopped reporting, so a
 * dead node is not mistaken for a healthy, quiet one.
 *
 * <pre>
 * source-fabric-rates -> silence-detector [silence-node-activity, silence-node-tracker]
 *   -> silence-results-only -> silence-results-cast -> fabric.alerts, fabric.alerts.active
 *   -> silence-dead-letters-only -> silence-dead-letters-cast -> silence-sink-dlq (fabric.dlq)
 * </pre>
 *
 * fabric.rates is keyed by node ({@code cluster/node}, the raw key), so every rates record of a
 * node is in the node's partition, written in order by the one rate task of its raw partition: each
 * node is judged within its own partition, without a repartition. A node's silence can only show
 * against time moving on elsewhere: here, the other nodes of its partition. The partition's clock
 * is the latest rates time seen in it; a node is silent when that clock has moved on by more than
 * its missed intervals plus the rule's grace since the node was last heard from, i.e. since the
 * clock stood where it stood when the node's latest sample arrived. Judging "since last heard"
 * rather than "since the node's latest sample time" makes a node that trails the others of its
 * partition (a collector that buffered, a node caught up in a burst) no silence as long as its
 * samples keep arriving, and the verdict depends only on the partition's content and order.
 *
 * <p>Limits: if every node of a partition stops, its clock stops and nothing fires there (the same
 * limit as before, now per partition: with 6 partitions a cluster-wide outage shows on no
 * partition, a partial one on those with live nodes). A node that never reported is unknown. A node
 * reboot that keeps sampling (the simulator's NODE_REBOOT: new boot_id, counters restart, samples
 * continue each second) is no silence; a real reboot longer than the threshold is, and fires until
 * the node reports again.
 */
public final class CollectorSilenceDetector {

  /**
   * Per node ({@code cluster|node}): per source the last sample time, when it was heard (the
   * partition clock then) and its recent intervals. Named apart from the former {@code
   * silence-nodes}, which was partitioned by cluster.
   */
  public static final String NODES_STORE = "silence-node-activity";

  /** Trackers of the collector_silent rules (rule|subject), in the node's partition. */
  public static final String TRACKER_STORE = "silence-node-tracker";

  public static final String PROCESSOR = "silence-detector";

  /** The collector-silence family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          "silence", EnumSet.of(AlertKind.COLLECTOR_SILENT), CollectorSilenceDetector::addTo);

  private CollectorSilenceDetector() {}

  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    inputs.addStore(NODES_STORE, new NodeActivity.NodeActivitySerde());
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    var silenceRules = rules.enabledFor(Detector.COLLECTOR_SILENT);
    DetectorProcessor.addAlerting(
        inputs,
        "silence",
        PROCESSOR,
        inputs.rates(),
        failures -> new CollectorSilenceProcessor(silenceRules, failures),
        NODES_STORE,
        TRACKER_STORE);
  }
}
