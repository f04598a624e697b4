package io.fabricpulse.bridges.testing;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import java.time.Instant;
import java.util.Map;

/** Alerts as the detectors write them, for bridge tests. */
public final class TestAlerts {
  private TestAlerts() {}

  public static Alert.Builder firing(String id, AlertKind kind, Severity severity, String node) {
    return Alert.newBuilder()
        .setAlertId(id)
        .setRule(kind.name().toLowerCase(java.util.Locale.ROOT))
        .setKind(kind)
        .setSeverity(severity)
        .setState(AlertState.FIRING)
        .setCluster("demo")
        .setNode(node)
        .setStartedAt(Instant.parse("2026-12-01T11:30:00Z"))
        .setSummary(node + ": " + kind + " detected")
        .setEvidence(Map.of())
        .setLabels(Map.of());
  }

  /** A PAUSE_STORM on a node's RoCE NIC priority 3, value 0.42 over threshold 0.1. */
  public static Alert storm(String id, String node) {
    return firing(id, AlertKind.PAUSE_STORM, Severity.CRITICAL, node)
        .setNetdev("ens9f0np0")
        .setPriority(3)
        .setValue(0.42)
        .setThreshold(0.1)
        .setUnit("ratio")
        .setSummary(node + " ens9f0np0 prio 3: rx pause ratio 0.42 above 0.1 for 30s")
        .build();
  }

  /**
   * A link alert on host port {@code node mlx5_<hca>/1} cabled to {@code sw} port {@code swPort},
   * with the labels the topology join gives it (streams/peers: peer, peer_node, peer_guid,
   * peer_port, link_id, incident).
   */
  public static Alert hostEnd(
      String id, AlertKind kind, String node, int hca, String sw, int swPort, String incident) {
    return firing(id, kind, Severity.WARNING, node)
        .setDevice("mlx5_" + hca)
        .setPort(1)
        .setSummary(node + " mlx5_" + hca + "/1: " + kind)
        .setLabels(
            Map.of(
                "peer",
                sw + " port " + swPort,
                "peer_node",
                sw,
                "peer_guid",
                switchGuid(sw),
                "peer_port",
                Integer.toString(swPort),
                "peer_type",
                "SWITCH",
                "link_id",
                "demo/" + switchGuid(sw) + ":" + swPort + "<->" + node,
                "incident",
                incident))
        .build();
  }

  /**
   * The same kind of alert on the switch end {@code sw} port {@code swPort} (device = the switch's
   * node GUID, as switch-port alerts name it), its peer {@code peer} ("gpu007 mlx5_3 port 1").
   */
  public static Alert switchEnd(
      String id, AlertKind kind, String sw, int swPort, String peer, String incident) {
    return firing(id, kind, Severity.WARNING, sw)
        .setDevice(switchGuid(sw))
        .setPort(swPort)
        .setSummary(sw + " port " + swPort + ": " + kind)
        .setLabels(
            Map.of("peer", peer, "link_id", "demo/" + sw + ":" + swPort, "incident", incident))
        .build();
  }

  /** A stable node GUID per switch name, 0x and 16 hex digits. */
  public static String switchGuid(String sw) {
    return String.format("0x%016x", 0x248a070300000000L + (sw.hashCode() & 0xffffffL));
  }

  public static Alert resolved(Alert firing, Instant at) {
    return Alert.newBuilder(firing).setState(AlertState.RESOLVED).setResolvedAt(at).build();
  }
}
