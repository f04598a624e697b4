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

  public static Alert resolved(Alert firing, Instant at) {
    return Alert.newBuilder(firing).setState(AlertState.RESOLVED).setResolvedAt(at).build();
  }
}
