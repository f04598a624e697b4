package io.fabricpulse.streams.detect.pfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.alerts.AlertIds;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.PfcRates;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** Incident stories for the PFC detectors, with the shipped alert-rules/ defaults. */
class PauseStormDetectorTest {

  private static final String NIC = "ens1f0np0";
  private static RuleSet defaults;

  @TempDir Path stateDir;

  @BeforeAll
  static void loadDefaultRules() throws Exception {
    defaults = RuleSet.load(RepoPaths.alertRules());
  }

  private PfcDriver driver(TestInfo info) {
    return new PfcDriver(defaults, stateDir, "pfc-" + info.getDisplayName());
  }

  private static Instant at(int second) {
    return Instant.ofEpochMilli(PfcRates.T0 + second * 1000L);
  }

  /** gpu017 prio 3: first sample, paused 90% for seconds 1-3, then clean until {@code end}. */
  private static void gpu017Story(PfcDriver d, int from, int to) {
    for (int s = from; s <= to; s++) {
      PfcRates sample = PfcRates.at("gpu017", NIC, s);
      if (s >= 1 && s <= 3) {
        sample.rxPaused(3, 0.9, 1800);
      } else {
        sample.rxPaused(3, 0.0, 0);
      }
      if (s == 0) {
        sample.tagged(RateTag.first);
      }
      d.pipe(sample);
    }
  }

  @Test
  void prio3Paused90PercentFor3sFiresOnceThenResolves60sAfterPausesStop(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      gpu017Story(d, 0, 70);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(AlertKind.PAUSE_STORM, firing.getKind());
      assertEquals("pfc-pause-storm", firing.getRule());
      assertEquals(Severity.CRITICAL, firing.getSeverity());
      assertEquals("gpu017", firing.getNode());
      assertEquals(NIC, firing.getNetdev());
      assertEquals(3, firing.getPriority());
      assertEquals(at(1), firing.getStartedAt());
      assertEquals(0.9, firing.getValue(), 1e-9);
      assertEquals(0.8, firing.getThreshold(), 1e-9);
      assertEquals("ratio", firing.getUnit());
      assertEquals("victim", firing.getLabels().get("role"));
      assertEquals("fabric", firing.getLabels().get("team"));
      assertEquals("1800", firing.getEvidence().get("rx_prio3_pause_delta"));
      assertEquals(
          "gpu017 ens1f0np0 prio 3 was paused 90% of the time for 2 samples in a row"
              + " (victim of a pause storm; threshold 80%)",
          firing.getSummary());
      assertEquals("fabric.rates", firing.getSourceTopic());
      assertEquals(0, firing.getSourcePartition());
      assertEquals(2L, firing.getSourceOffset()); // the second stormed sample fired it
      assertEquals(
          AlertIds.of(
              "pfc-pause-storm",
              "c1/gpu017/device=mlx5_0/netdev=ens1f0np0/prio=3",
              at(1).toEpochMilli()),
          firing.getAlertId());

      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(firing.getAlertId(), resolved.getAlertId());
      assertEquals(at(1), resolved.getStartedAt());
      // first clean sample at 4 s, 60 s hysteresis of clean samples
      assertEquals(at(64), resolved.getResolvedAt());
      assertEquals(64L, resolved.getSourceOffset());

      var active = d.active.readRecordsToList();
      assertEquals(2, active.size());
      assertEquals(firing, active.get(0).value());
      assertEquals(firing.getAlertId(), active.get(1).key());
      assertNull(active.get(1).value(), "a resolved alert leaves a tombstone in alerts.active");
    }
  }

  @Test
  void aSingleOneSampleBurstStaysSilent(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 1; s <= 80; s++) {
        double ratio = s == 5 || s == 40 ? 0.95 : 0.1;
        d.pipe(PfcRates.at("gpu017", NIC, s).rxPaused(3, ratio, 500));
      }
      assertTrue(d.alerts.isEmpty());
    }
  }

  @Test
  void counterClearRebootFirstAndSaturatedSamplesStaySilent(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      // each tagged sample carries a huge "delta" (the whole counter) that must never count
      RateTag[] tags = {
        RateTag.first,
        RateTag.clear,
        RateTag.clear,
        RateTag.reboot,
        RateTag.reboot,
        RateTag.saturated,
        RateTag.unavailable
      };
      int s = 0;
      for (RateTag tag : tags) {
        d.pipe(
            PfcRates.at("gpu017", NIC, s++)
                .rxPaused(3, 0.99, 100_000)
                .rxPaused(0, 0.99, 100_000)
                .counter("tx_pause_storm_warning_events", 7, "events")
                .tagged(tag));
      }
      for (; s < 100; s++) {
        d.pipe(PfcRates.at("gpu017", NIC, s).rxPaused(3, 0.0, 0));
      }
      assertTrue(d.alerts.isEmpty());
    }
  }

  @Test
  void aPauseStormWarningEventFiresAtOnceAsOrigin(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      d.pipe(PfcRates.at("gpu031", NIC, 0).counter("tx_pause_storm_warning_events", 0, "events"));
      d.pipe(PfcRates.at("gpu031", NIC, 1).counter("tx_pause_storm_warning_events", 1, "events"));
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size());
      Alert a = alerts.get(0);
      assertEquals(AlertState.FIRING, a.getState());
      assertEquals(AlertKind.PAUSE_STORM, a.getKind());
      assertEquals("gpu031", a.getNode());
      assertNull(a.getPriority());
      assertEquals(at(1), a.getStartedAt());
      assertEquals(1.0, a.getValue());
      assertEquals("origin", a.getLabels().get("role"));
      assertEquals("1", a.getEvidence().get("tx_pause_storm_warning_events_delta"));
      assertEquals(
          "NIC gpu031 ens1f0np0 reported 1 PFC pause-storm event(s)"
              + " (mlx5 stall prevention: warning 1, error 0)",
          a.getSummary());
    }
  }

  /**
   * The receive path of gpu001's NIC stalls at 1 s: it sends pause frames on prio 3 (tx pause 95%
   * of the time); the pauses spread through the switches and gpu002..gpu005 are paused from 1, 2, 3
   * and 4 s. Storms stop at 20 s.
   */
  private static void spreadingStorm(PfcDriver d) {
    String[] victims = {"gpu002", "gpu003", "gpu004", "gpu005"};
    for (int s = 0; s <= 90; s++) {
      boolean storm = s >= 1 && s < 20;
      PfcRates origin = PfcRates.at("gpu001", NIC, s);
      origin.txPausing(3, storm ? 0.95 : 0, storm ? 12_000 : 0).rxPaused(3, 0, 0);
      origin.counter("rx_prio3_bytes", 0, "bytes");
      d.pipe(origin);
      for (int v = 0; v < victims.length; v++) {
        boolean paused = storm && s >= 1 + v;
        d.pipe(
            PfcRates.at(victims[v], NIC, s)
                .rxPaused(3, paused ? 0.9 : 0, paused ? 11_000 : 0)
                .txPausing(3, 0, 0));
      }
    }
  }

  @Test
  void stormSpreadingFromOneNicToFourNodesIsOnePropagationIncident(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      spreadingStorm(d);
      List<Alert> alerts = d.readAlerts();
      List<Alert> incidents =
          alerts.stream().filter(a -> a.getKind() == AlertKind.PAUSE_PROPAGATION).toList();
      assertEquals(2, incidents.size(), incidents.toString());
      Alert incident = incidents.get(0);
      assertEquals(AlertState.FIRING, incident.getState());
      assertEquals("c1", incident.getCluster());
      assertNull(incident.getNode());
      assertEquals(at(3), incident.getStartedAt());
      assertEquals(3.0, incident.getValue());
      assertEquals("gpu001 ens1f0np0 prio 3", incident.getEvidence().get("origins"));
      assertEquals(
          "gpu002 ens1f0np0 prio 3, gpu003 ens1f0np0 prio 3",
          incident.getEvidence().get("victims"));
      assertEquals(
          "Pause storm spreading over 3 nodes of cluster c1: likely origin gpu001 ens1f0np0 prio 3;"
              + " victims gpu002 ens1f0np0 prio 3, gpu003 ens1f0np0 prio 3",
          incident.getSummary());
      Alert end = incidents.get(1);
      assertEquals(AlertState.RESOLVED, end.getState());
      assertEquals(incident.getAlertId(), end.getAlertId());

      List<Alert> stormFirings =
          alerts.stream()
              .filter(
                  a -> a.getKind() == AlertKind.PAUSE_STORM && a.getState() == AlertState.FIRING)
              .toList();
      // the origin is paged (it names the port to drain), one victim paged before the incident
      // opened; gpu003 (which opened it), gpu004 and gpu005 are folded into the incident
      assertEquals(List.of("gpu001", "gpu002"), stormFirings.stream().map(Alert::getNode).toList());
      assertEquals("origin", stormFirings.get(0).getLabels().get("role"));
      assertEquals("0.950", stormFirings.get(0).getEvidence().get("tx_pause_ratio"));
      assertEquals("0.000", stormFirings.get(0).getEvidence().get("rx_prio3_bytes_per_second"));
      assertEquals("victim", stormFirings.get(1).getLabels().get("role"));
      long stormResolved =
          alerts.stream()
              .filter(
                  a -> a.getKind() == AlertKind.PAUSE_STORM && a.getState() == AlertState.RESOLVED)
              .count();
      assertEquals(2, stormResolved);
      // first clean sample at 20 s, storms resolve at 80 s; the incident with the last of them
      assertEquals(at(80), end.getResolvedAt());
      assertEquals(end, alerts.get(alerts.size() - 1));
    }
  }

  @Test
  void pausesOnPriority0WithLossless3ArePfcMisconfig(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 70; s++) {
        PfcRates sample = PfcRates.at("gpu042", NIC, s).rxPaused(3, 0.2, 300);
        sample.rxPaused(0, 0.01, s == 2 ? 40 : 0).txPausing(0, 0, s == 2 ? 2 : 0);
        d.pipe(sample);
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.PFC_MISCONFIG, a.getKind());
      assertEquals(AlertState.FIRING, a.getState());
      assertEquals(Severity.WARNING, a.getSeverity());
      assertEquals(0, a.getPriority());
      assertEquals(at(2), a.getStartedAt());
      assertEquals(42.0, a.getValue());
      assertEquals("3", a.getEvidence().get("lossless_priorities"));
      assertEquals(
          "gpu042 ens1f0np0 prio 0 carried 42 PFC pause frame(s) on priority 0, which is not"
              + " lossless (lossless: 3)",
          a.getSummary());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(63), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void aRestartDoesNotReFireAFiringAlert(TestInfo info) {
    List<Alert> first;
    PfcDriver d1 = driver(info);
    var restoredTracker =
        new ArrayList<
            org.apache.kafka.streams.KeyValue<
                String, io.fabricpulse.streams.alerts.TrackerState>>();
    try (d1) {
      for (int s = 0; s <= 5; s++) {
        d1.pipe(PfcRates.at("gpu017", NIC, s).rxPaused(3, 0.9, 1800));
      }
      first = d1.readAlerts();
      restoredTracker.addAll(d1.trackerChangelog());
    }
    assertEquals(1, first.size());
    assertEquals(AlertState.FIRING, first.get(0).getState());
    assertFalse(restoredTracker.isEmpty());

    // same application id and state dir; the store is restored from its changelog
    try (PfcDriver d2 = driver(info)) {
      d2.restore(PauseStormDetector.TRACKER_STORE, restoredTracker);
      for (int s = 6; s <= 80; s++) {
        double ratio = s <= 9 ? 0.9 : 0.0;
        d2.pipe(PfcRates.at("gpu017", NIC, s).rxPaused(3, ratio, ratio > 0 ? 1800 : 0));
      }
      List<Alert> after = d2.readAlerts();
      assertEquals(1, after.size(), after.toString());
      assertEquals(AlertState.RESOLVED, after.get(0).getState());
      assertEquals(first.get(0).getAlertId(), after.get(0).getAlertId());
      assertEquals(at(70), after.get(0).getResolvedAt());
    }
  }

  @Test
  void theSameInputTwiceGivesIdenticalAlerts(TestInfo info) {
    List<List<TestRecord<String, Alert>>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (PfcDriver d = new PfcDriver(defaults, stateDir.resolve("run" + run), "det-" + run)) {
        spreadingStorm(d);
        for (int s = 91; s <= 220; s++) {
          boolean paused = s >= 100 && s < 104;
          d.pipe(
              PfcRates.at("gpu017", NIC, s)
                  .rxPaused(3, paused ? 0.9 : 0, paused ? 1800 : 0)
                  .rxPaused(5, 0, s == 150 ? 3 : 0));
        }
        runs.add(d.readAlertRecords());
      }
    }
    // 6 from the spreading storm, a storm and a misconfig (each FIRING and RESOLVED) on gpu017
    assertEquals(10, runs.get(0).size(), runs.get(0).toString());
    assertEquals(runs.get(0), runs.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      String described = d.topology.describe().toString();
      for (String name :
          List.of(
              "source-fabric-rates",
              "pfc-rates-only",
              PauseStormDetector.PORT_PROCESSOR,
              PauseStormDetector.PROPAGATION_PROCESSOR,
              PauseStormDetector.TRACKER_STORE,
              PauseStormDetector.PROPAGATION_STORMS_STORE,
              PauseStormDetector.PROPAGATION_TRACKER_STORE,
              PauseStormDetector.PROPAGATION_SUPPRESSED_STORE,
              "pfc-storms-by-cluster-repartition",
              "pfc-to-alerts",
              "pfc-to-alerts-active")) {
        assertTrue(described.contains(name), name + " missing in\n" + described);
      }
      assertFalse(described.matches("(?s).*KSTREAM-[A-Z]+-\\d+.*"), described);
    }
  }
}
