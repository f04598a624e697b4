package io.fabricpulse.streams.detect.sm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.opensm.OpenSmLogParser;
import io.fabricpulse.collectors.opensm.SminfoParser;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.RawDetectorDriver;
import io.fabricpulse.streams.testing.RepoPaths;
import io.fabricpulse.streams.testing.Samples;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** Incident stories for the subnet-manager detectors, with the shipped alert-rules/ defaults. */
class SubnetManagerDetectorTest {

  private static final Instant T0 = Instant.parse("2025-03-10T06:00:00Z");
  private static final String A = "0x7cfe90030016aef1";
  private static final String B = "0x7cfe90030016b0a2";
  private static RuleSet defaults;

  @TempDir Path stateDir;

  @BeforeAll
  static void loadDefaultRules() throws Exception {
    defaults = RuleSet.load(RepoPaths.alertRules());
  }

  private RawDetectorDriver driver(TestInfo info, String suffix) {
    return new RawDetectorDriver(
        "sm-test",
        SubnetManagerDetector::addTo,
        defaults,
        stateDir,
        "sm-" + info.getDisplayName() + suffix,
        T0);
  }

  private RawDetectorDriver driver(TestInfo info) {
    return driver(info, "");
  }

  private static Instant at(int second) {
    return T0.plusSeconds(second);
  }

  /** One sminfo poll from node gpu001, parsed from the tool's own output format [SMINFO]. */
  private static SmSweep sminfo(int second, String guid, int lid, long activity) {
    String line =
        "sminfo: sm lid "
            + lid
            + " sm guid "
            + guid
            + ", activity count "
            + activity
            + " priority 14 state 3 SMINFO_MASTER";
    SampleContext context =
        SampleContext.of(new NodeIdentity("c1", "gpu001", "boot-1"), at(second));
    ParseResult<SmSweep> parsed = new SminfoParser().parse(line, context);
    assertEquals(1, parsed.records().size(), parsed.malformed().toString());
    return parsed.records().get(0);
  }

  /** A poll that got no answer (master gone, handoff in progress). */
  private static SmSweep sminfoFailed(int second) {
    return SmSweep.newBuilder()
        .setCluster("c1")
        .setNode("gpu001")
        .setBootId("boot-1")
        .setSeq(second)
        .setTime(at(second))
        .setSource(SmSource.SMINFO)
        .setEvent(SmEventKind.SMINFO_FAILED)
        .setMessage("ibwarn: [1234] _do_madrpc: recv failed: Connection timed out")
        .setRawLine("sminfo: iberror: failed: query")
        .build();
  }

  private static List<Alert> firing(List<Alert> alerts) {
    return alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
  }

  @Test
  void masterAThenNothingFor35sThenBIsOneFailoverNamingAandB(TestInfo info) {
    try (RawDetectorDriver d = driver(info)) {
      for (int s = 0; s <= 30; s += 5) {
        d.pipe(sminfo(s, A, 1, 4484381 + s * 10L));
      }
      for (int s = 35; s < 70; s += 5) {
        d.pipe(sminfoFailed(s));
      }
      for (int s = 70; s <= 200; s += 5) {
        d.pipe(sminfo(s, B, 7, 100 + s * 10L));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert fired = alerts.get(0);
      assertEquals(AlertKind.SM_FAILOVER, fired.getKind());
      assertEquals(AlertState.FIRING, fired.getState());
      assertEquals(Severity.WARNING, fired.getSeverity());
      assertEquals("c1", fired.getCluster());
      assertEquals(at(70), fired.getStartedAt());
      assertEquals(A, fired.getEvidence().get("old_master_guid"));
      assertEquals("1", fired.getEvidence().get("old_master_lid"));
      assertEquals(B, fired.getEvidence().get("new_master_guid"));
      assertEquals("7", fired.getEvidence().get("new_master_lid"));
      assertEquals("40.0s", fired.getEvidence().get("handoff"));
      assertEquals(
          "Subnet manager failover in cluster c1: master guid "
              + A
              + " lid 1 -> guid "
              + B
              + " lid 7",
          fired.getSummary());
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(fired.getAlertId(), resolved.getAlertId());
      assertEquals(at(135), resolved.getResolvedAt());
    }
  }

  @Test
  void masterLogOnANewHostAfterSminfoIsTheSameFailoverNotASecondOne(TestInfo info) {
    OpenSmLogParser parser = new OpenSmLogParser(ZoneOffset.UTC);
    try (RawDetectorDriver d = driver(info)) {
      d.pipe(logLine(parser, "sm01", 0, "0x80 -> Entering MASTER state"));
      for (int s = 5; s <= 30; s += 5) {
        d.pipe(sminfo(s, A, 1, 1000 + s));
      }
      d.pipe(sminfoFailed(35));
      d.pipe(logLine(parser, "sm02", 60, "0x80 -> Entering MASTER state"));
      // the poller goes on: the quiet log hosts stop holding the watermark once it is
      // source_timeout (2m) ahead of them, and the buffered records are judged in order
      for (int s = 65; s <= 200; s += 5) {
        d.pipe(sminfo(s, B, 7, 2000 + s));
      }
      List<Alert> fired = firing(d.readAlerts());
      assertEquals(1, fired.size(), fired.toString());
      assertEquals(AlertKind.SM_FAILOVER, fired.get(0).getKind());
      assertEquals("sm01", fired.get(0).getEvidence().get("old_master_host"));
      assertEquals(A, fired.get(0).getEvidence().get("old_master_guid"));
      assertEquals("sm02", fired.get(0).getEvidence().get("new_master_host"));
    }
  }

  private static SmSweep logLine(OpenSmLogParser parser, String host, int second, String text) {
    Instant t = at(second);
    String header =
        java.time.format.DateTimeFormatter.ofPattern("MMM dd HH:mm:ss", java.util.Locale.ROOT)
                .format(t.atZone(ZoneOffset.UTC))
            + " 000000 [EFC006C0] ";
    SampleContext context = SampleContext.of(new NodeIdentity("c1", host, "boot-" + host), t);
    ParseResult<SmSweep> parsed = parser.parse(header + text, context, "synthetic");
    assertEquals(1, parsed.records().size(), header + text);
    return parsed.records().get(0);
  }

  @Test
  void theRealStandbyNodeLogStaysSilent(TestInfo info) {
    String name = "ib_tools/linux-rdma-opensm-3.3.21-standby-node-log1.txt";
    SampleContext context =
        SampleContext.of(
            new NodeIdentity("c1", "node-standby", "boot-1"),
            Instant.parse("2019-03-12T00:00:00Z"));
    List<SmSweep> records =
        new OpenSmLogParser(ZoneOffset.UTC).parse(Samples.read(name), context, name).records();
    long standby =
        records.stream()
            .filter(r -> r.getEvent() == SmEventKind.STATE_CHANGE)
            .filter(r -> "STANDBY".equals(r.getSmState()))
            .count();
    long discovering = records.stream().filter(r -> "DISCOVERING".equals(r.getSmState())).count();
    assertEquals(3, standby);
    assertEquals(3, discovering);
    assertTrue(records.stream().anyMatch(r -> r.getEvent() == SmEventKind.MAD_ERROR));
    try (RawDetectorDriver d = driver(info)) {
      records.forEach(d::pipe);
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void noMasterFor60sIsSmAbsent(TestInfo info) {
    try (RawDetectorDriver d = driver(info)) {
      for (int s = 0; s <= 30; s += 10) {
        d.pipe(sminfo(s, A, 1, 500 + s));
      }
      for (int s = 40; s <= 120; s += 10) {
        d.pipe(sminfoFailed(s));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert absent = alerts.get(0);
      assertEquals(AlertKind.SM_ABSENT, absent.getKind());
      assertEquals(Severity.CRITICAL, absent.getSeverity());
      // first miss at 40 s, bound 40 s handoff + 10 s poll allowance
      assertEquals(at(40).plusMillis(50_001), absent.getStartedAt());
      assertEquals("50s", absent.getEvidence().get("bound"));
      assertEquals("guid " + A + " lid 1", absent.getEvidence().get("last_master"));
    }
  }

  @Test
  void aFrozenActivityCountWhileAnsweringMasterIsSmHung(TestInfo info) {
    try (RawDetectorDriver d = driver(info)) {
      long[] counts = {100, 110, 120, 120, 120, 120, 120, 130, 140, 150, 160, 170, 180, 190, 200};
      for (int i = 0; i < counts.length; i++) {
        d.pipe(sminfo(i * 10, A, 1, counts[i]));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      assertEquals(AlertKind.SM_HUNG, alerts.get(0).getKind());
      assertEquals(AlertState.FIRING, alerts.get(0).getState());
      assertEquals(at(50), alerts.get(0).getStartedAt());
      assertEquals("120", alerts.get(0).getEvidence().get("activity_count"));
      assertEquals("3", alerts.get(0).getEvidence().get("stale_polls"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(130), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void aHeavySweepStormIsSmUnstableButAFewSweepsAreNot(TestInfo info) {
    OpenSmLogParser parser = new OpenSmLogParser(ZoneOffset.UTC);
    try (RawDetectorDriver d = driver(info)) {
      d.pipe(logLine(parser, "sm01", 0, "0x80 -> Entering MASTER state"));
      // five trap-forced sweeps in ten minutes: normal life of a fabric
      for (int i = 1; i <= 5; i++) {
        d.pipe(logLine(parser, "sm01", i * 100, "0x02 -> Forcing heavy sweep. Received trap:128"));
        d.pipe(
            logLine(
                parser,
                "sm01",
                i * 100 + 1,
                "0x02 -> do_sweep: Entering heavy sweep with flags: force_heavy_sweep 1,"
                    + " coming out of standby 0, subnet initialization error 0, sm port change 0"));
      }
      assertEquals(List.of(), d.readAlerts());
      // then one every 20 s: the 11th within ten minutes fires
      for (int i = 0; i < 12; i++) {
        int s = 1000 + i * 20;
        d.pipe(logLine(parser, "sm01", s, "0x02 -> Forcing heavy sweep. Received trap:144"));
        d.pipe(
            logLine(
                parser,
                "sm01",
                s + 1,
                "0x02 -> do_sweep: Entering heavy sweep with flags: force_heavy_sweep 1,"
                    + " coming out of standby 0, subnet initialization error 0, sm port change 0"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert unstable = alerts.get(0);
      assertEquals(AlertKind.SM_UNSTABLE, unstable.getKind());
      assertEquals(11.0, unstable.getValue());
      assertEquals(10.0, unstable.getThreshold());
      // the trap-128 sweeps of the quiet period are more than ten minutes old by then
      assertEquals("[144]", unstable.getEvidence().get("traps"));
    }
  }

  @Test
  void aRestartDoesNotReFireAFiringFailover(TestInfo info) {
    List<KeyValue<String, io.fabricpulse.streams.alerts.TrackerState>> trackers = new ArrayList<>();
    List<KeyValue<String, SmClusterState>> states = new ArrayList<>();
    List<KeyValue<String, SmSourceClocks>> clocks = new ArrayList<>();
    Alert fired;
    try (RawDetectorDriver d1 = driver(info)) {
      d1.pipe(sminfo(0, A, 1, 10));
      d1.pipe(sminfo(10, B, 7, 10));
      List<Alert> first = d1.readAlerts();
      assertEquals(1, first.size());
      fired = first.get(0);
      trackers.addAll(
          d1.changelog(
              SubnetManagerDetector.TRACKER_STORE, new TrackerStateSerde().deserializer()));
      states.addAll(
          d1.changelog(
              SubnetManagerDetector.STATE_STORE, new SmClusterStateSerde().deserializer()));
      clocks.addAll(
          d1.changelog(
              SubnetManagerDetector.CLOCK_STORE, new SmSourceClocksSerde().deserializer()));
    }
    try (RawDetectorDriver d2 = driver(info)) {
      d2.restore(SubnetManagerDetector.TRACKER_STORE, trackers);
      d2.restore(SubnetManagerDetector.STATE_STORE, states);
      d2.restore(SubnetManagerDetector.CLOCK_STORE, clocks);
      for (int s = 20; s <= 100; s += 10) {
        d2.pipe(sminfo(s, B, 7, 10 + s));
      }
      List<Alert> after = d2.readAlerts();
      assertEquals(1, after.size(), after.toString());
      assertEquals(AlertState.RESOLVED, after.get(0).getState());
      assertEquals(fired.getAlertId(), after.get(0).getAlertId());
      assertEquals(at(80), after.get(0).getResolvedAt());
    }
  }

  @Test
  void theSameInputTwiceGivesIdenticalAlerts(TestInfo info) {
    List<List<TestRecord<String, Alert>>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (RawDetectorDriver d =
          new RawDetectorDriver(
              "sm-test",
              SubnetManagerDetector::addTo,
              defaults,
              stateDir.resolve("run" + run),
              "sm-det-" + run,
              T0)) {
        for (int s = 0; s <= 30; s += 10) {
          d.pipe(sminfo(s, A, 1, 100));
        }
        for (int s = 40; s <= 130; s += 10) {
          d.pipe(sminfoFailed(s));
        }
        for (int s = 140; s <= 300; s += 10) {
          d.pipe(sminfo(s, B, 7, 1000 + s));
        }
        runs.add(d.readAlertRecords());
      }
    }
    // SM_HUNG (count 100 frozen), SM_ABSENT, SM_FAILOVER: each FIRING and RESOLVED
    assertEquals(6, runs.get(0).size(), runs.get(0).toString());
    assertEquals(runs.get(0), runs.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (RawDetectorDriver d = driver(info)) {
      String described = d.topology.describe().toString();
      for (String name :
          List.of(
              "source-fabric-raw-sm",
              "sm-key-by-cluster",
              SubnetManagerDetector.PROCESSOR,
              SubnetManagerDetector.STATE_STORE,
              SubnetManagerDetector.TRACKER_STORE,
              SubnetManagerDetector.BUFFER_STORE,
              SubnetManagerDetector.CLOCK_STORE,
              "sm-by-cluster-repartition",
              "sm-to-alerts",
              "sm-to-alerts-active")) {
        assertTrue(described.contains(name), name + " missing in\n" + described);
      }
      assertFalse(described.matches("(?s).*KSTREAM-[A-Z]+-\\d+.*"), described);
    }
  }
}
