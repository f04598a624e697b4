package io.fabricpulse.streams.detect.pfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.PfcRates;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Incident stories for PAUSE_STORM and PFC_MISCONFIG on NICs whose ethtool names are not modern
 * mlx5: an mlx5 of a kernel before 4.10 ({@code prio3_rx_pause}, {@code prio3_rx_pause_duration})
 * and an Intel E810 (ice: {@code tx_priority_0_xoff.nic}, Intel's 800 Series flow control guide).
 * The rates carry the meaning the rate stage gives them (PfcRates uses the same classifier).
 */
class PfcOnIceAndLegacyMlx5Test extends DetectorStories {

  private static final String LEGACY_NETDEV = "eth2";
  private static final String ICE_NETDEV = "ens801f0";

  private PfcDriver driver(TestInfo info) {
    return new PfcDriver(defaults, stateDir, "pfc-other-" + info.getDisplayName());
  }

  private static Instant at(int second) {
    return Instant.ofEpochMilli(PfcRates.T0 + second * 1000L);
  }

  @Test
  void legacyMlx5Prio3Paused90PercentFor3sFiresOnePauseStormThenResolves(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 70; s++) {
        boolean storm = s >= 1 && s <= 3;
        PfcRates sample =
            PfcRates.at("gpu050", LEGACY_NETDEV, s)
                .counter("prio3_rx_pause_duration", storm ? 900_000 : 0, "microseconds")
                .counter("prio3_rx_pause", storm ? 1800 : 0, "packets")
                .counter("prio3_tx_pause_duration", 0, "microseconds")
                .counter("prio3_tx_pause", 0, "packets");
        if (s == 0) {
          sample.tagged(RateTag.first);
        }
        d.pipe(sample);
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.PAUSE_STORM, firing.getKind());
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals("gpu050", firing.getNode());
      assertEquals(LEGACY_NETDEV, firing.getNetdev());
      assertEquals(3, firing.getPriority());
      assertEquals(at(1), firing.getStartedAt());
      assertEquals(0.9, firing.getValue(), 1e-9);
      assertEquals("victim", firing.getLabels().get("role"));
      // the evidence names the driver's own counter
      assertEquals("1800", firing.getEvidence().get("prio3_rx_pause_delta"));
      assertEquals("0.900", firing.getEvidence().get("rx_pause_ratio"));
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(at(64), resolved.getResolvedAt()); // first clean sample 4 s + 60 s
    }
  }

  @Test
  void legacyMlx5PortPausingItsPeerIsThePauseStormOrigin(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 5; s++) {
        boolean storm = s >= 1;
        d.pipe(
            PfcRates.at("gpu051", LEGACY_NETDEV, s)
                .counter("prio3_tx_pause_duration", storm ? 950_000 : 0, "microseconds")
                .counter("prio3_tx_pause", storm ? 12_000 : 0, "packets")
                .counter("prio3_rx_pause_duration", 0, "microseconds")
                .counter("prio3_rx_pause", 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(AlertKind.PAUSE_STORM, alerts.get(0).getKind());
      assertEquals("origin", alerts.get(0).getLabels().get("role"));
      assertEquals("12000", alerts.get(0).getEvidence().get("prio3_tx_pause_delta"));
    }
  }

  @Test
  void legacyMlx5PausesOnPriority0WithLossless3ArePfcMisconfig(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 70; s++) {
        d.pipe(
            PfcRates.at("gpu052", LEGACY_NETDEV, s)
                .counter("prio3_rx_pause", 300, "packets")
                .counter("prio0_rx_pause", s == 2 ? 40 : 0, "packets")
                .counter("prio0_tx_pause", s == 2 ? 2 : 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.PFC_MISCONFIG, a.getKind());
      assertEquals(0, a.getPriority());
      assertEquals(at(2), a.getStartedAt());
      assertEquals(42.0, a.getValue());
      assertEquals("40", a.getEvidence().get("prio0_rx_pause_delta"));
      assertEquals("2", a.getEvidence().get("prio0_tx_pause_delta"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(63), alerts.get(1).getResolvedAt());
    }
  }

  /**
   * An E810 whose DCB config enables PFC on priority 0 as well as 3: it sends XOFF frames on
   * priority 0 (Intel's guide shows {@code tx_priority_0_xoff.nic: 6434}).
   */
  @Test
  void anE810SendingXoffOnPriority0WithLossless3IsPfcMisconfig(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 70; s++) {
        d.pipe(
            PfcRates.at("gpu060", ICE_NETDEV, s)
                .counter("tx_priority_3_xoff.nic", 500, "packets")
                .counter("tx_priority_3_xon.nic", 480, "packets")
                .counter("tx_priority_0_xoff.nic", s == 5 ? 6434 : 0, "packets")
                .counter("tx_priority_0_xon.nic", s == 5 ? 1 : 0, "packets")
                .counter("rx_priority_0_xoff.nic", 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.PFC_MISCONFIG, a.getKind());
      assertEquals(AlertState.FIRING, a.getState());
      assertEquals(ICE_NETDEV, a.getNetdev());
      assertEquals(0, a.getPriority());
      assertEquals(at(5), a.getStartedAt());
      assertEquals(6434.0, a.getValue());
      assertEquals("6434", a.getEvidence().get("tx_priority_0_xoff.nic_delta"));
      assertEquals("0", a.getEvidence().get("rx_priority_0_xoff.nic_delta"));
      assertEquals(
          "gpu060 ens801f0 prio 0 carried 6434 PFC pause frame(s) on priority 0, which is not"
              + " lossless (lossless: 3)",
          a.getSummary());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(66), alerts.get(1).getResolvedAt());
    }
  }

  /**
   * ice has no pause-duration counter, only XOFF/XON frames, and frame counts do not bound the
   * paused time from below (alert-rules/README.md, "PFC on NICs without a pause-duration counter"):
   * an E810 receiving a flood of XOFF frames on priority 3 gets no PAUSE_STORM verdict rather than
   * a guess. PFC_MISCONFIG still watches its other priorities.
   */
  @Test
  void anE810FloodedWithXoffOnItsLosslessPriorityHasNoPauseStormVerdict(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 30; s++) {
        d.pipe(
            PfcRates.at("gpu061", ICE_NETDEV, s)
                .counter("rx_priority_3_xoff.nic", 30_000, "packets")
                .counter("rx_priority_3_xon.nic", 0, "packets"));
      }
      assertTrue(d.alerts.isEmpty(), () -> d.readAlerts().toString());
    }
  }
}
