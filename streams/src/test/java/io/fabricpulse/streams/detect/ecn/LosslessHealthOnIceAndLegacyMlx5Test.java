package io.fabricpulse.streams.detect.ecn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.RoceRates;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Incident stories for ECN_MISCONFIG, ECN_NOT_EFFECTIVE and LOSSLESS_DROP on NICs whose counters
 * are not named like modern mlx5: an Intel E810 (ice netdev, irdma RDMA device, hw_counters names
 * from drivers/infiniband/hw/irdma/verbs.c) and an mlx5 of a kernel before 4.10 (legacy ethtool
 * names {@code prio3_rx_pause_duration}, {@code in_discards}). The counters carry the meaning the
 * rate stage gives them (the test builders use the same classifier), with the shipped rules.
 */
class LosslessHealthOnIceAndLegacyMlx5Test extends DetectorStories {

  private static final String ICE_NETDEV = "ens801f0";
  private static final String IRDMA = "irdma0";
  private static final String LEGACY_NETDEV = "eth2";

  private DetectorDriver driver(TestInfo info) {
    return new DetectorDriver(
        "ecn-other-nics-test",
        LosslessHealthDetector::addTo,
        defaults,
        stateDir,
        "ecn-other-" + info.getDisplayName());
  }

  private static Instant at(int second) {
    return Instant.ofEpochMilli(RoceRates.T0 + second * 1000L);
  }

  private static RoceRates iceEcn(String node, int second) {
    return RoceRates.ecn(node, ICE_NETDEV, second).device(IRDMA);
  }

  @Test
  void irdmaCnpIgnoredClimbsOnAnE810GivesOneEcnMisconfig(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 1; s <= 90; s++) {
        boolean ignoring = s >= 10 && s <= 20;
        d.pipe(
            iceEcn("gpu060", s)
                .counter("RxECNMrkd", 800, "packets")
                .counter("cnpSent", 800, "packets")
                .counter("cnpHandled", ignoring ? 0 : 400, "packets")
                .counter("cnpIgnored", ignoring ? 900 : 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.ECN_MISCONFIG, firing.getKind());
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals("gpu060", firing.getNode());
      assertEquals(ICE_NETDEV, firing.getNetdev());
      assertEquals(at(10), firing.getStartedAt());
      assertEquals(900.0, firing.getValue());
      assertEquals("rp_cnp_ignored", firing.getEvidence().get("reason"));
      // the evidence names irdma's own counter, the one an operator reads in hw_counters
      assertEquals("900", firing.getEvidence().get("cnpIgnored_delta"));
      assertEquals("0", firing.getEvidence().get("cnpHandled_delta"));
      assertEquals(IRDMA, firing.getEvidence().get("device"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(81), alerts.get(1).getResolvedAt()); // first clean sample 21 s + 60 s
    }
  }

  @Test
  void irdmaEcnMarksWithoutCnpsSentFor30sGiveEcnMisconfig(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 1; s <= 45; s++) {
        d.pipe(
            iceEcn("gpu061", s)
                .counter("RxECNMrkd", 1500, "packets")
                .counter("cnpSent", 0, "packets")
                .counter("cnpHandled", 300, "packets")
                .counter("cnpIgnored", 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.ECN_MISCONFIG, a.getKind());
      assertEquals(at(31), a.getStartedAt()); // marks without CNPs since 1 s, window 30 s
      assertEquals("marks_without_cnps", a.getEvidence().get("reason"));
      assertEquals("1500", a.getEvidence().get("RxECNMrkd_delta"));
      assertEquals("0", a.getEvidence().get("cnpSent_delta"));
    }
  }

  @Test
  void iceRxDroppedNicPlus7GivesOneLosslessDrop(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 80; s++) {
        d.pipe(
            RoceRates.pfc("gpu062", ICE_NETDEV, s)
                .device(IRDMA)
                .counter("tx_priority_3_xoff.nic", 40, "packets")
                .counter("rx_dropped.nic", s == 10 ? 7 : 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.LOSSLESS_DROP, a.getKind());
      assertEquals(AlertState.FIRING, a.getState());
      assertEquals(ICE_NETDEV, a.getNetdev());
      assertEquals(at(10), a.getStartedAt());
      assertEquals(7.0, a.getValue());
      assertEquals("7", a.getEvidence().get("rx_dropped.nic_delta"));
      assertEquals(
          "gpu062 ens801f0 dropped 7 packet(s) on a lossless RoCE port (rx_dropped.nic +7);"
              + " a lossless fabric must drop none",
          a.getSummary());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(71), alerts.get(1).getResolvedAt());
    }
  }

  /**
   * ice counts XOFF/XON frames but has no pause-duration counter, so there is no pause ratio to put
   * in the ecn_not_effective band: the port gets no verdict rather than a guess (see
   * alert-rules/README.md, "PFC on NICs without a pause-duration counter").
   */
  @Test
  void anE810PausedWithFlatEcnCountersHasNoEcnNotEffectiveVerdict(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 190; s++) {
        d.pipe(
            RoceRates.pfc("gpu063", ICE_NETDEV, s)
                .device(IRDMA)
                .counter("rx_priority_3_xoff.nic", 1200, "packets")
                .counter("rx_priority_3_xon.nic", 1, "packets"));
        d.pipe(
            iceEcn("gpu063", s)
                .counter("RxECNMrkd", 0, "packets")
                .counter("cnpSent", 0, "packets")
                .counter("cnpHandled", 0, "packets")
                .counter("cnpIgnored", 0, "packets"));
      }
      assertTrue(d.alerts.isEmpty(), () -> d.readAlerts().toString());
    }
  }

  @Test
  void legacyMlx5Prio3Paused40PercentFor2MinutesWithNoEcnMarksGivesOneEcnNotEffective(
      TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 190; s++) {
        boolean paused = s <= 120;
        d.pipe(
            RoceRates.pfc("gpu070", LEGACY_NETDEV, s)
                .counter("prio3_rx_pause_duration", paused ? 400_000 : 10_000, "microseconds")
                .counter("prio3_rx_pause", paused ? 3000 : 10, "packets"));
        d.pipe(RoceRates.ecn("gpu070", LEGACY_NETDEV, s).ecnHealthy(0));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.ECN_NOT_EFFECTIVE, firing.getKind());
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(LEGACY_NETDEV, firing.getNetdev());
      assertEquals(at(60), firing.getStartedAt()); // in the band since 0 s, window 60 s
      assertEquals(0.4, firing.getValue(), 1e-9);
      assertEquals("3", firing.getEvidence().get("priority"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(181), alerts.get(1).getResolvedAt()); // pauses end at 121 s, + 60 s clean
    }
  }

  @Test
  void legacyMlx5InDiscardsPlus9GivesOneLosslessDrop(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 0; s <= 80; s++) {
        d.pipe(
            RoceRates.pfc("gpu071", LEGACY_NETDEV, s)
                .counter("prio3_rx_pause", 20, "packets")
                .counter("in_discards", s == 12 ? 9 : 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.LOSSLESS_DROP, a.getKind());
      assertEquals(at(12), a.getStartedAt());
      assertEquals(9.0, a.getValue());
      assertEquals("9", a.getEvidence().get("in_discards_delta"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
    }
  }

  /**
   * ECN_MISCONFIG on a legacy-named mlx5 reads the same hw_counters names as a modern one (the
   * congestion counters kept their names): a node reporting legacy ethtool names is judged on its
   * hw_counters exactly like the modern story in {@link LosslessHealthDetectorTest}.
   */
  @Test
  void legacyMlx5NodeWithRpCnpIgnoredRisingGivesOneEcnMisconfig(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int s = 1; s <= 30; s++) {
        d.pipe(RoceRates.pfc("gpu072", LEGACY_NETDEV, s).counter("prio3_rx_pause", 5, "packets"));
        RoceRates ecn = RoceRates.ecn("gpu072", LEGACY_NETDEV, s).ecnHealthy(600);
        if (s == 5) {
          ecn = RoceRates.ecn("gpu072", LEGACY_NETDEV, s).counter("rp_cnp_ignored", 50, "packets");
        }
        d.pipe(ecn);
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(AlertKind.ECN_MISCONFIG, alerts.get(0).getKind());
      assertEquals(at(5), alerts.get(0).getStartedAt());
      assertEquals("50", alerts.get(0).getEvidence().get("rp_cnp_ignored_delta"));
    }
  }
}
