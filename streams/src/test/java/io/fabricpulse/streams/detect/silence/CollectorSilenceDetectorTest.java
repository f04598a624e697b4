package io.fabricpulse.streams.detect.silence;

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
import io.fabricpulse.streams.alerts.TrackerState;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.Thresholds;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.RoceRates;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Incident stories for COLLECTOR_SILENT, with the shipped alert-rules/ (grace 10 s). */
class CollectorSilenceDetectorTest extends DetectorStories {

  private static final List<String> EIGHT =
      List.of("gpu001", "gpu002", "gpu003", "gpu004", "gpu005", "gpu006", "gpu007", "gpu008");

  private DetectorDriver driver(TestInfo info, RuleSet rules) {
    return new DetectorDriver(
        "silence-test",
        CollectorSilenceDetector::addTo,
        rules,
        stateDir,
        "silence-" + info.getDisplayName());
  }

  private static Instant at(int second) {
    return Instant.ofEpochMilli(RoceRates.T0 + second * 1000L);
  }

  /** Every node's two ports each {@code step} s from 0 to {@code to}, unless {@code silent}. */
  private static void fleet(
      DetectorDriver d, List<String> nodes, int to, int step, String quiet, IntPredicate silent) {
    for (int s = 0; s <= to; s += step) {
      for (String node : nodes) {
        if (node.equals(quiet) && silent.test(s)) {
          continue;
        }
        for (String netdev : List.of("ens1np0", "ens2np0")) {
          RoceRates r = RoceRates.port(node, netdev, s).every(step);
          d.pipe(s == 0 ? r.firstSample() : r);
        }
      }
    }
  }

  @Test
  void gpu005StopsReportingWhile7OthersContinueThenReturns(TestInfo info) {
    try (DetectorDriver d = driver(info, defaults)) {
      fleet(d, EIGHT, 90, 1, "gpu005", s -> s > 20 && s < 60);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.COLLECTOR_SILENT, firing.getKind());
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(Severity.CRITICAL, firing.getSeverity());
      assertEquals("c1", firing.getCluster());
      assertEquals("gpu005", firing.getNode());
      assertNull(firing.getNetdev());
      // last seen at 20 s, 3 intervals of 1 s, grace 10 s: silent once stream time passes 33 s
      assertEquals(at(34), firing.getStartedAt());
      assertEquals(14.0, firing.getValue());
      assertEquals(3.0, firing.getThreshold());
      assertEquals(at(20).toString(), firing.getEvidence().get("last_seen"));
      assertEquals("1000", firing.getEvidence().get("interval_ms"));
      assertEquals("PORT", firing.getEvidence().get("last_source"));
      assertEquals(
          "gpu005 has sent no sample for 14s (more than 3 of its 1s intervals): the node or its"
              + " collector is down",
          firing.getSummary());
      assertEquals(
          AlertIds.of("collector-silent", "c1/gpu005", at(34).toEpochMilli()), firing.getAlertId());
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(firing.getAlertId(), resolved.getAlertId());
      assertEquals(at(60), resolved.getResolvedAt()); // its first sample back, hysteresis 0s
    }
  }

  /** Like {@link #fleet}, but {@code late}'s sample of second s is piped at second s + lag. */
  private static void trailing(DetectorDriver d, List<String> nodes, int to, String late, int lag) {
    for (int p = 0; p <= to + lag; p++) {
      for (String node : nodes) {
        int s = node.equals(late) ? p - lag : p;
        if (s < 0 || s > to) {
          continue;
        }
        for (String netdev : List.of("ens1np0", "ens2np0")) {
          RoceRates r = RoceRates.port(node, netdev, s);
          d.pipe(s == 0 ? r.firstSample() : r);
        }
      }
    }
  }

  @Test
  void aNodeTrailingTheOthersOfItsPartitionBy40sIsNotSilent(TestInfo info) {
    // its samples arrive 40 s behind the others' (a collector that buffered) but keep arriving
    try (DetectorDriver d = driver(info, defaults)) {
      trailing(d, EIGHT, 120, "gpu005", 40);
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void hostPortsTrailingTheSwitchSweepsOfTheirPartitionBy20sAreNotSilentButAStoppedHostIs(
      TestInfo info) {
    // the fabric host's perfquery sweeps of leaf01 reach fabric.rates from another rate task and
    // run 20 s ahead of the hosts' sysfs ports in the same partition; gpu005 stops at 60 s
    try (DetectorDriver d = driver(info, defaults)) {
      for (int p = 0; p <= 140; p++) {
        if (p % 10 == 0 && p <= 120) {
          for (int port = 1; port <= 4; port++) {
            RoceRates sweep = RoceRates.switchPort("leaf01", port, p).every(10);
            d.pipe(p == 0 ? sweep.firstSample() : sweep);
          }
        }
        int s = p - 20;
        for (String node : EIGHT) {
          if (s < 0 || (node.equals("gpu005") && s > 60)) {
            continue;
          }
          RoceRates r = RoceRates.port(node, "ens1np0", s);
          d.pipe(s == 0 ? r.firstSample() : r);
        }
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals("gpu005", alerts.get(0).getNode());
      // judged on the hosts' own clock: heard at 60 s, 3 x 1 s + 10 s later, passed at 74 s
      assertEquals(at(74), alerts.get(0).getStartedAt());
      assertEquals("PORT", alerts.get(0).getEvidence().get("last_source"));
    }
  }

  @Test
  void aSilentNodeThatReturnsWithOldSamplesResolvesAtTheClockNeverBeforeItStarted(TestInfo info) {
    // gpu005 stops after 20 s, fires when the others pass its deadline, then its buffered
    // samples from 21 s on arrive while the others are at 60 s
    try (DetectorDriver d = driver(info, defaults)) {
      fleet(d, EIGHT, 60, 1, "gpu005", s -> s > 20);
      for (String netdev : List.of("ens1np0", "ens2np0")) {
        d.pipe(RoceRates.port("gpu005", netdev, 21));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      assertEquals(AlertState.FIRING, alerts.get(0).getState());
      assertEquals(at(34), alerts.get(0).getStartedAt());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      // heard again at the partition clock (60 s), not at the sample's own 21 s
      assertEquals(at(60), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void withoutGraceItFiresRightAfterThreeMissedIntervals(TestInfo info) {
    Map<String, Object> t =
        new LinkedHashMap<>(Thresholds.defaultsOf(Detector.COLLECTOR_SILENT).asMap());
    t.put("grace", Duration.ZERO);
    Rule strict =
        new Rule(
            "collector-silent-strict",
            Detector.COLLECTOR_SILENT,
            Severity.CRITICAL,
            new Thresholds(t),
            Duration.ZERO,
            io.fabricpulse.streams.rules.Selectors.ANY,
            Map.of(),
            true,
            "",
            "",
            "<test>");
    try (DetectorDriver d = driver(info, RuleSet.of(List.of(strict)))) {
      fleet(d, EIGHT, 40, 1, "gpu005", s -> s > 20);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(at(24), alerts.get(0).getStartedAt()); // 20 s + 3 x 1 s, passed at 24 s
    }
  }

  @Test
  void theIntervalIsLearnedPerNode(TestInfo info) {
    try (DetectorDriver d = driver(info, defaults)) {
      // 5 s sampling: a 5 s hole between samples is normal, silence is > 15 s + 10 s grace
      fleet(d, List.of("gpu101", "gpu102", "gpu103", "gpu104"), 200, 5, "gpu103", s -> s > 100);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals("gpu103", alerts.get(0).getNode());
      assertEquals("5000", alerts.get(0).getEvidence().get("interval_ms"));
      assertEquals(at(130), alerts.get(0).getStartedAt()); // 100 + 15 + 10 passed at 130
    }
  }

  @Test
  void aRebootThatKeepsSamplingStaysSilent(TestInfo info) {
    try (DetectorDriver d = driver(info, defaults)) {
      for (int s = 0; s <= 120; s++) {
        for (String node : EIGHT) {
          RoceRates r = RoceRates.port(node, "ens1np0", s).counter("port_rcv_data", 1000, "bytes");
          // gpu005 reboots at 40 s: new boot_id, counters restart, samples continue
          d.pipe(node.equals("gpu005") && s == 40 ? r.tagged(RateTag.reboot) : r);
        }
      }
      assertTrue(d.alerts.isEmpty(), () -> d.readAlerts().toString());
    }
  }

  @Test
  void aRestartDoesNotReFireAFiringAlert(TestInfo info) {
    List<KeyValue<String, TrackerState>> trackers = new ArrayList<>();
    List<KeyValue<String, NodeActivity>> nodes = new ArrayList<>();
    List<Alert> first;
    try (DetectorDriver d1 = driver(info, defaults)) {
      fleet(d1, EIGHT, 40, 1, "gpu005", s -> s > 20);
      first = d1.readAlerts();
      trackers.addAll(
          d1.changelog(
              CollectorSilenceDetector.TRACKER_STORE, new TrackerStateSerde().deserializer()));
      nodes.addAll(
          d1.changelog(
              CollectorSilenceDetector.NODES_STORE,
              new NodeActivity.NodeActivitySerde().deserializer()));
    }
    assertEquals(1, first.size());
    try (DetectorDriver d2 = driver(info, defaults)) {
      d2.restore(CollectorSilenceDetector.TRACKER_STORE, trackers);
      d2.restore(CollectorSilenceDetector.NODES_STORE, nodes);
      for (int s = 41; s <= 70; s++) {
        for (String node : EIGHT) {
          if (!node.equals("gpu005") || s >= 65) {
            d2.pipe(RoceRates.port(node, "ens1np0", s));
          }
        }
      }
      List<Alert> after = d2.readAlerts();
      assertEquals(1, after.size(), after.toString());
      assertEquals(AlertState.RESOLVED, after.get(0).getState());
      assertEquals(first.get(0).getAlertId(), after.get(0).getAlertId());
      assertEquals(at(65), after.get(0).getResolvedAt());
    }
  }

  @Test
  void theSameInputTwiceGivesIdenticalAlerts(TestInfo info) {
    List<List<TestRecord<String, Alert>>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (DetectorDriver d =
          new DetectorDriver(
              "silence-test",
              CollectorSilenceDetector::addTo,
              defaults,
              stateDir.resolve("run" + run),
              "silence-det-" + run)) {
        fleet(d, EIGHT, 150, 1, "gpu003", s -> (s > 10 && s < 40) || s > 100);
        runs.add(d.readAlertRecords());
      }
    }
    assertEquals(3, runs.get(0).size(), runs.get(0).toString());
    assertEquals(runs.get(0), runs.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (DetectorDriver d = driver(info, defaults)) {
      String described =
          assertNamed(
              d.topology,
              List.of(
                  CollectorSilenceDetector.PROCESSOR,
                  CollectorSilenceDetector.NODES_STORE,
                  CollectorSilenceDetector.TRACKER_STORE,
                  "silence-to-alerts",
                  "silence-to-alerts-active",
                  "silence-results-only",
                  "silence-sink-dlq"));
      // fabric.rates is keyed by node: each node is judged in its own partition
      assertFalse(described.contains("repartition"), described);
    }
  }
}
