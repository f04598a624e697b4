package io.fabricpulse.schemas.topics;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.BridgeCounters;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.SmSweep;
import java.time.Duration;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * The topics of the pipeline (docs/design.md section 1), built once from config. A prefix gives a
 * parallel set, e.g. {@code replay.<incident>.} so a replay runs the same topologies on its own
 * topics. Raw topics keep history long enough to replay incidents; fabric.alerts.active is
 * compacted and holds the current state of every alert, fabric.topology the current state of every
 * fabric link (keyed by link, not by node).
 */
public record FabricTopics(
    TopicSpec portCounters,
    TopicSpec pfc,
    TopicSpec ecn,
    TopicSpec sm,
    TopicSpec gpu,
    TopicSpec xid,
    TopicSpec nccl,
    TopicSpec rates,
    TopicSpec ncclTransport,
    TopicSpec alerts,
    TopicSpec alertsActive,
    TopicSpec deadLetters,
    TopicSpec topology,
    TopicSpec topologyChanges,
    TopicSpec switchCounters,
    TopicSpec ibdiagnet) {

  public static final String PORT_COUNTERS = "fabric.raw.port-counters";
  public static final String PFC = "fabric.raw.pfc";
  public static final String ECN = "fabric.raw.ecn";
  public static final String SM = "fabric.raw.sm";
  public static final String GPU = "fabric.raw.gpu";
  public static final String XID = "fabric.raw.xid";
  public static final String NCCL = "fabric.raw.nccl";
  public static final String RATES = "fabric.rates";
  public static final String NCCL_TRANSPORT = "fabric.nccl.transport";
  public static final String ALERTS = "fabric.alerts";
  public static final String ALERTS_ACTIVE = "fabric.alerts.active";
  public static final String DEAD_LETTERS = "fabric.dlq";

  /** The fabric's links, compacted: the latest FabricLink per link_id, a tombstone when gone. */
  public static final String TOPOLOGY = "fabric.topology";

  /** Links that appeared, disappeared or renegotiated between two sweeps (FabricLinkChange). */
  public static final String TOPOLOGY_CHANGES = "fabric.topology.changes";

  /**
   * The alert bridges' counters per robot ({@code BridgeCounters}, key {@code
   * bridge/instance/robot}), which the sink writes to the store for the self-health dashboard. Not
   * part of a layout: it is no stage's input, and a replay never writes it.
   */
  public static final String BRIDGE_COUNTERS = "fabric.bridge.counters";

  /**
   * The switches' port counters from the fabric role's perfquery sweeps: NodeCounters of source
   * PERFQUERY, one per switch and sweep, key cluster/node (node: the switch, docs/switch-ports.md).
   */
  public static final String SWITCH_COUNTERS = "fabric.raw.switch-counters";

  /** The findings of each ibdiagnet run the fabric role read (FabricFindings, key cluster/node). */
  public static final String IBDIAGNET = "fabric.raw.ibdiagnet";

  private static final Duration RAW_RETENTION = Duration.ofDays(7);
  private static final Duration DERIVED_RETENTION = Duration.ofDays(3);
  private static final Duration ALERT_RETENTION = Duration.ofDays(90);

  /** The production layout: {@code partitions} for the high-volume topics. */
  public static FabricTopics defaults(String prefix, int partitions) {
    String p = prefix == null ? "" : prefix;
    int small = Math.max(1, Math.min(partitions, 3));
    return new FabricTopics(
        new TopicSpec(p + PORT_COUNTERS, NodeCounters.class, partitions, RAW_RETENTION, false),
        new TopicSpec(p + PFC, NodeCounters.class, partitions, RAW_RETENTION, false),
        new TopicSpec(p + ECN, NodeCounters.class, partitions, RAW_RETENTION, false),
        new TopicSpec(p + SM, SmSweep.class, small, ALERT_RETENTION, false),
        new TopicSpec(p + GPU, GpuEcc.class, partitions, RAW_RETENTION, false),
        new TopicSpec(p + XID, GpuXid.class, small, ALERT_RETENTION, false),
        new TopicSpec(p + NCCL, NcclLog.class, partitions, RAW_RETENTION, false),
        new TopicSpec(p + RATES, NodeRates.class, partitions, DERIVED_RETENTION, false),
        new TopicSpec(p + NCCL_TRANSPORT, NcclTransport.class, small, ALERT_RETENTION, false),
        new TopicSpec(p + ALERTS, Alert.class, small, ALERT_RETENTION, false),
        new TopicSpec(p + ALERTS_ACTIVE, Alert.class, small, null, true),
        new TopicSpec(p + DEAD_LETTERS, DeadLetter.class, small, RAW_RETENTION, false),
        new TopicSpec(p + TOPOLOGY, FabricLink.class, small, null, true),
        new TopicSpec(p + TOPOLOGY_CHANGES, FabricLinkChange.class, small, ALERT_RETENTION, false),
        new TopicSpec(p + SWITCH_COUNTERS, NodeCounters.class, partitions, RAW_RETENTION, false),
        new TopicSpec(p + IBDIAGNET, FabricFindings.class, small, ALERT_RETENTION, false));
  }

  /** The bridges' counters topic ({@link #BRIDGE_COUNTERS}): 3 partitions, 7 days. */
  public static TopicSpec bridgeCounters() {
    return new TopicSpec(BRIDGE_COUNTERS, BridgeCounters.class, 3, RAW_RETENTION, false);
  }

  public static FabricTopics defaults() {
    return defaults("", 6);
  }

  public List<TopicSpec> all() {
    return List.of(
        portCounters,
        pfc,
        ecn,
        sm,
        gpu,
        xid,
        nccl,
        rates,
        ncclTransport,
        alerts,
        alertsActive,
        deadLetters,
        topology,
        topologyChanges,
        switchCounters,
        ibdiagnet);
  }

  public List<TopicSpec> raw() {
    return List.of(portCounters, pfc, ecn, sm, gpu, xid, nccl, switchCounters, ibdiagnet);
  }

  /**
   * The topic a collector publishes {@code record} on: a node's counters by their source, a link of
   * the topology on fabric.topology, any other raw record on the raw topic of its type.
   */
  public TopicSpec topicOf(SpecificRecord record) {
    if (record instanceof NodeCounters node) {
      return switch (node.getSource()) {
        case PFC -> pfc;
        case ECN -> ecn;
        case PERFQUERY -> switchCounters;
        default -> portCounters;
      };
    }
    if (record instanceof FabricLink) {
      return topology;
    }
    for (TopicSpec spec : raw()) {
      if (spec.valueType().isInstance(record)) {
        return spec;
      }
    }
    throw new IllegalArgumentException("no raw topic carries " + record.getClass().getName());
  }
}
