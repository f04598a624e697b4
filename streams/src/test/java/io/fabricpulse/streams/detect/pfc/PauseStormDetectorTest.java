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
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.PfcRates;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Incident stories for the PFC detectors, with the shipped alert-rules/ defaults. */
class PauseStormDetectorTest extends DetectorStories {

  private static final String NIC = "ens1f0np0";

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
      // mlx5 counts storm events per netdev: they belong to the lossless priority's subject
      assertEquals(3, a.getPriority());
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
    spreadingStorm(d, 4);
  }

  /** The same storm reaching only the first {@code victimCount} of gpu002..gpu005. */
  private static void spreadingStorm(PfcDriver d, int victimCount) {
    String[] victims = {"gpu002", "gpu003", "gpu004", "gpu005"};
    for (int s = 0; s <= 90; s++) {
      boolean storm = s >= 1 && s < 20;
      PfcRates origin = PfcRates.at("gpu001", NIC, s);
      origin.txPausing(3, storm ? 0.95 : 0, storm ? 12_000 : 0).rxPaused(3, 0, 0);
      origin.counter("rx_prio3_bytes", 0, "bytes");
      d.pipe(origin);
      for (int v = 0; v < victims.length; v++) {
        boolean paused = storm && s >= 1 + v && v < victimCount;
        d.pipe(
            PfcRates.at(victims[v], NIC, s)
                .rxPaused(3, paused ? 0.9 : 0, paused ? 11_000 : 0)
                .txPausing(3, 0, 0));
      }
    }
  }

  private static List<String> pages(List<Alert> alerts) {
    return alerts.stream().map(a -> a.getState() + " " + a.getKind() + " " + a.getNode()).toList();
  }

  @Test
  void stormSpreadingFromOneNicToFourNodesPagesTheOriginAndOneIncidentOnly(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      spreadingStorm(d);
      List<TestRecord<String, Alert>> records = d.readAlertRecords();
      List<Alert> alerts = records.stream().map(TestRecord::value).toList();
      // victims gpu002..gpu005 are held, then folded into the incident: never published
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu001",
              "FIRING PAUSE_PROPAGATION null",
              "RESOLVED PAUSE_STORM gpu001",
              "RESOLVED PAUSE_PROPAGATION null"),
          pages(alerts));
      Alert origin = alerts.get(0);
      assertEquals("origin", origin.getLabels().get("role"));
      assertEquals(3, origin.getPriority());
      assertEquals(at(1), origin.getStartedAt());
      assertEquals(at(2), records.get(0).getRecordTime(), "the origin pages at once");
      assertEquals("0.950", origin.getEvidence().get("tx_pause_ratio"));
      assertEquals("0.000", origin.getEvidence().get("rx_prio3_bytes_per_second"));

      Alert incident = alerts.get(1);
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
      Alert end = alerts.get(3);
      assertEquals(incident.getAlertId(), end.getAlertId());
      // first clean sample at 20 s, storms resolve at 80 s; the incident with the last of them
      assertEquals(at(80), end.getResolvedAt());
      assertEquals(origin.getAlertId(), alerts.get(2).getAlertId());
      for (TestRecord<String, Alert> r : records) {
        assertNull(r.headers().lastHeader(StormPage.HEADER), "the hold marker stays internal");
      }
      List<String> activeIds =
          d.active.readRecordsToList().stream().map(TestRecord::key).distinct().toList();
      assertEquals(List.of(origin.getAlertId(), incident.getAlertId()), activeIds);
    }
  }

  /**
   * The live flake of the end-to-end test: the rate task wrote the nodes' sysfs records a minute
   * ahead of their ethtool records (it interleaves the raw topics as their fetches arrive), so the
   * task's stream time ran 60 s ahead of the PFC samples. Judged by stream time, gpu002's hold
   * ended before gpu003's storm, which opens the incident, had been read, and the victim was paged.
   * Judged by the PFC samples' own clock, the pages are those of the storm read in time order.
   */
  @Test
  void sysfsRecordsAMinuteAheadOfThePfcRecordsDoNotUnfoldTheVictims(TestInfo info) {
    String[] nodes = {"gpu001", "gpu002", "gpu003", "gpu004", "gpu005"};
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 90; s++) {
        for (String node : nodes) {
          d.pipe(io.fabricpulse.streams.testing.PortRates.at(node, "mlx5_0", s + 60));
        }
        boolean storm = s >= 1 && s < 20;
        PfcRates origin = PfcRates.at("gpu001", NIC, s);
        origin.txPausing(3, storm ? 0.95 : 0, storm ? 12_000 : 0).rxPaused(3, 0, 0);
        d.pipe(origin);
        for (int v = 1; v < nodes.length; v++) {
          boolean paused = storm && s >= v;
          d.pipe(
              PfcRates.at(nodes[v], NIC, s)
                  .rxPaused(3, paused ? 0.9 : 0, paused ? 11_000 : 0)
                  .txPausing(3, 0, 0));
        }
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu001",
              "FIRING PAUSE_PROPAGATION null",
              "RESOLVED PAUSE_STORM gpu001",
              "RESOLVED PAUSE_PROPAGATION null"),
          pages(alerts));
      assertEquals(at(3), alerts.get(1).getStartedAt());
      assertEquals(at(80), alerts.get(2).getResolvedAt(), "resolved by the PFC samples' time");
    }
  }

  @Test
  void aStormOnTwoNodesBelowMinNodesPagesTheOriginAtOnceAndTheVictimAfterTheHold(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      spreadingStorm(d, 1);
      List<TestRecord<String, Alert>> records = d.readAlertRecords();
      List<Alert> alerts = records.stream().map(TestRecord::value).toList();
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu001",
              "FIRING PAUSE_STORM gpu002",
              "RESOLVED PAUSE_STORM gpu001",
              "RESOLVED PAUSE_STORM gpu002"),
          pages(alerts));
      assertEquals(at(2), records.get(0).getRecordTime());
      Alert victim = alerts.get(1);
      assertEquals("victim", victim.getLabels().get("role"));
      assertEquals(at(1), victim.getStartedAt(), "started_at is when the storm started");
      // fired at 2 s (second paused sample), held for the 30 s propagation window
      assertEquals(at(32), records.get(1).getRecordTime());
      assertEquals(victim.getAlertId(), alerts.get(3).getAlertId());
      assertEquals(at(80), alerts.get(3).getResolvedAt());
    }
  }

  @Test
  void twoVictimNodesWithoutAnOriginArePagedAfterTheHold(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      for (int s = 0; s <= 90; s++) {
        boolean paused = s >= 5 && s < 15;
        for (String node : List.of("gpu021", "gpu022")) {
          d.pipe(PfcRates.at(node, NIC, s).rxPaused(3, paused ? 0.85 : 0.1, paused ? 900 : 50));
        }
      }
      List<TestRecord<String, Alert>> records = d.readAlertRecords();
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu021",
              "FIRING PAUSE_STORM gpu022",
              "RESOLVED PAUSE_STORM gpu021",
              "RESOLVED PAUSE_STORM gpu022"),
          pages(records.stream().map(TestRecord::value).toList()));
      for (int i = 0; i < 2; i++) {
        assertEquals(at(5), records.get(i).value().getStartedAt());
        assertEquals(at(36), records.get(i).getRecordTime()); // fired at 6 s + 30 s
      }
    }
  }

  @Test
  void aSingleVictimIsPagedAfterTheHoldWithItsOriginalStartedAt(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      gpu017Story(d, 0, 32);
      assertTrue(d.alerts.isEmpty(), "held: fired at 2 s, due at 32 s");
      assertTrue(d.active.isEmpty());
      // judged once 32 s is complete (the sample at 33 s says no more sample of 32 s will come)
      gpu017Story(d, 33, 33);
      List<TestRecord<String, Alert>> records = d.readAlertRecords();
      assertEquals(1, records.size(), records.toString());
      Alert firing = records.get(0).value();
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals("gpu017", firing.getNode());
      assertEquals(at(1), firing.getStartedAt());
      assertEquals(at(32), records.get(0).getRecordTime());
      assertEquals(2L, firing.getSourceOffset(), "lineage of the sample that fired it");
      assertEquals(firing, d.active.readValue());
    }
  }

  @Test
  void aVictimThatResolvesWithinItsHoldIsPagedThenResolved(TestInfo info) throws Exception {
    // a pause_storm hysteresis (5s) shorter than the propagation window (30s)
    Path rules = stateDir.resolve("rules");
    java.nio.file.Files.createDirectories(rules);
    java.nio.file.Files.writeString(
        rules.resolve("pfc.yaml"),
        java.nio.file.Files.readString(RepoPaths.alertRules().resolve("pfc.yaml"))
            .replaceFirst("hysteresis: 60s", "hysteresis: 5s"));
    try (PfcDriver d = new PfcDriver(RuleSet.load(rules), stateDir, "short-" + info.hashCode())) {
      gpu017Story(d, 0, 40);
      List<TestRecord<String, Alert>> records = d.readAlertRecords();
      assertEquals(
          List.of("FIRING PAUSE_STORM gpu017", "RESOLVED PAUSE_STORM gpu017"),
          pages(records.stream().map(TestRecord::value).toList()));
      // clean from 4 s, resolved at 9 s: its FIRING is released then, before its RESOLVED
      assertEquals(at(9), records.get(0).getRecordTime());
      assertEquals(at(1), records.get(0).value().getStartedAt());
      assertEquals(at(9), records.get(1).value().getResolvedAt());
    }
  }

  /**
   * gpu007 ens1f0np0 is the origin of a storm: its NIC reports one mlx5 pause-storm warning event
   * at {@code eventAt} and it sends pause frames 98% of the time on prio 3 from 1 s to 20 s.
   */
  private static void originWithStormEvent(PfcDriver d, int eventAt) {
    for (int s = 0; s <= 90; s++) {
      boolean storm = s >= 1 && s < 20;
      d.pipe(
          PfcRates.at("gpu007", NIC, s)
              .txPausing(3, storm ? 0.98 : 0, storm ? 15_000 : 0)
              .rxPaused(3, 0, 0)
              .counter("tx_pause_storm_warning_events", s == eventAt ? 1 : 0, "events")
              .counter("tx_pause_storm_error_events", 0, "events"));
    }
  }

  @Test
  void anMlx5StormEventAndThePrio3RatioOfOnePortAreOneAlert(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      originWithStormEvent(d, 1);
      List<Alert> alerts = d.readAlerts();
      assertEquals(
          List.of("FIRING PAUSE_STORM gpu007", "RESOLVED PAUSE_STORM gpu007"), pages(alerts));
      Alert a = alerts.get(0);
      assertEquals(3, a.getPriority());
      assertEquals(at(1), a.getStartedAt());
      assertEquals("events", a.getUnit(), "the event fired it at once, at the first sample");
      assertEquals("origin", a.getLabels().get("role"));
      assertEquals("1", a.getEvidence().get("tx_pause_storm_warning_events_delta"));
      assertEquals("0", a.getEvidence().get("tx_pause_storm_error_events_delta"));
      assertEquals("0.980", a.getEvidence().get("tx_pause_ratio"));
      assertEquals("15000", a.getEvidence().get("tx_prio3_pause_delta"));
      assertEquals(
          AlertIds.of(
              "pfc-pause-storm",
              "c1/gpu007/device=mlx5_0/netdev=ens1f0np0/prio=3",
              at(1).toEpochMilli()),
          a.getAlertId());
      // the ratio held until 19 s: resolved 60 s after the first clean sample
      assertEquals(at(80), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void anMlx5StormEventAfterTheRatioFiredAddsNoSecondAlert(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      originWithStormEvent(d, 10);
      List<Alert> alerts = d.readAlerts();
      assertEquals(
          List.of("FIRING PAUSE_STORM gpu007", "RESOLVED PAUSE_STORM gpu007"), pages(alerts));
      Alert a = alerts.get(0);
      assertEquals("ratio", a.getUnit());
      assertEquals(at(1), a.getStartedAt());
      assertEquals("origin", a.getLabels().get("role"));
      // the storm-event counters of the firing sample travel in the ratio alert's evidence
      assertEquals("0", a.getEvidence().get("tx_pause_storm_warning_events_delta"));
    }
  }

  @Test
  void theSpreadingStormInTheWholePipelinePagesTheOriginAndOneIncident(TestInfo info) {
    try (PfcDriver d =
        PfcDriver.inFabricTopology(defaults, stateDir, "fabric-" + info.hashCode())) {
      spreadingStorm(d);
      assertEquals(
          List.of(
              "FIRING PAUSE_STORM gpu001",
              "FIRING PAUSE_PROPAGATION null",
              "RESOLVED PAUSE_STORM gpu001",
              "RESOLVED PAUSE_PROPAGATION null"),
          pages(d.readAlerts()));
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
    Map<String, List<KeyValue<String, Object>>> changelogs;
    try (PfcDriver d1 = driver(info)) {
      for (int s = 0; s <= 5; s++) {
        d1.pipe(PfcRates.at("gpu031", NIC, s).txPausing(3, 0.9, 1800).rxPaused(3, 0, 0));
      }
      first = d1.readAlerts();
      changelogs = d1.pfcChangelogs();
    }
    assertEquals(1, first.size());
    assertEquals(AlertState.FIRING, first.get(0).getState());
    assertEquals("origin", first.get(0).getLabels().get("role"));
    assertFalse(changelogs.get(PauseStormDetector.TRACKER_STORE).isEmpty());

    // same application id and state dir; the stores are restored from their changelogs
    try (PfcDriver d2 = driver(info)) {
      d2.restoreAll(changelogs);
      for (int s = 6; s <= 80; s++) {
        double ratio = s <= 9 ? 0.9 : 0.0;
        d2.pipe(PfcRates.at("gpu031", NIC, s).txPausing(3, ratio, ratio > 0 ? 1800 : 0));
      }
      List<Alert> after = d2.readAlerts();
      assertEquals(1, after.size(), after.toString());
      assertEquals(AlertState.RESOLVED, after.get(0).getState());
      assertEquals(first.get(0).getAlertId(), after.get(0).getAlertId());
      assertEquals(at(70), after.get(0).getResolvedAt());
    }
  }

  @Test
  void aVictimHeldAcrossARestartIsPagedOnceAtTheEndOfItsHold(TestInfo info) {
    Map<String, List<KeyValue<String, Object>>> changelogs;
    try (PfcDriver d1 = driver(info)) {
      for (int s = 0; s <= 5; s++) {
        d1.pipe(PfcRates.at("gpu017", NIC, s).rxPaused(3, 0.9, 1800));
      }
      assertTrue(d1.alerts.isEmpty(), "fired at 1 s, held until 31 s");
      changelogs = d1.pfcChangelogs();
    }
    assertEquals(1, changelogs.get(PauseStormDetector.HELD_STORMS_STORE).size());

    try (PfcDriver d2 = driver(info)) {
      d2.restoreAll(changelogs);
      for (int s = 6; s <= 80; s++) {
        double ratio = s <= 9 ? 0.9 : 0.0;
        d2.pipe(PfcRates.at("gpu017", NIC, s).rxPaused(3, ratio, ratio > 0 ? 1800 : 0));
      }
      List<TestRecord<String, Alert>> after = d2.readAlertRecords();
      assertEquals(
          List.of("FIRING PAUSE_STORM gpu017", "RESOLVED PAUSE_STORM gpu017"),
          pages(after.stream().map(TestRecord::value).toList()));
      assertEquals(at(31), after.get(0).getRecordTime());
      assertEquals(at(0), after.get(0).value().getStartedAt());
      assertEquals(at(70), after.get(1).value().getResolvedAt());
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
    // 4 from the spreading storm (origin and incident), a storm and a misconfig (each FIRING and
    // RESOLVED) on gpu017
    assertEquals(8, runs.get(0).size(), runs.get(0).toString());
    assertEquals(runs.get(0), runs.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (PfcDriver d = driver(info)) {
      assertNamed(
          d.topology,
          concat(
              List.of(
                  "source-fabric-rates",
                  "pfc-rates-only",
                  PauseStormDetector.PORT_PROCESSOR,
                  PauseStormDetector.PROPAGATION_PROCESSOR,
                  PauseStormDetector.TRACKER_STORE,
                  PauseStormDetector.PROPAGATION_STORMS_STORE,
                  PauseStormDetector.PROPAGATION_TRACKER_STORE,
                  PauseStormDetector.PROPAGATION_VICTIMS_STORE,
                  PauseStormDetector.HELD_STORMS_STORE,
                  PauseStormDetector.PROPAGATION_PENDING_STORE,
                  PauseStormDetector.PROPAGATION_PROGRESS_STORE,
                  PauseStormDetector.PROPAGATION_LINKS_STORE,
                  "pfc-storms-by-cluster-repartition",
                  "pfc-storms-as-input",
                  "pfc-links-only",
                  "pfc-links-key-by-cluster",
                  "pfc-links-by-cluster-repartition",
                  "pfc-links-as-input",
                  "pfc-propagation-inputs-merge",
                  "pfc-to-alerts",
                  "pfc-to-alerts-active",
                  "pfc-results-only",
                  "pfc-results-cast",
                  "pfc-dead-letters-only",
                  "pfc-dead-letters-cast",
                  "pfc-sink-dlq"),
              netdevPeerJoinNames("pfc")));
    }
  }
}
