package io.fabricpulse.streams.detect.sm;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.Samples;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Incident stories for the subnet-manager detectors, with the shipped alert-rules/ defaults. */
class SubnetManagerDetectorTest extends DetectorStories {

  private static final Instant T0 = Instant.parse("2025-03-10T06:00:00Z");
  private static final String A = "0x7cfe90030016aef1";
  private static final String B = "0x7cfe90030016b0a2";

  private DetectorDriver driver(TestInfo info, String suffix) {
    return new DetectorDriver(
        "sm-test",
        SubnetManagerDetector::addTo,
        defaults,
        stateDir,
        "sm-" + info.getDisplayName() + suffix,
        T0);
  }

  private DetectorDriver driver(TestInfo info) {
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
    try (DetectorDriver d = driver(info)) {
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
    try (DetectorDriver d = driver(info)) {
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
    String name = "opensm/linux-rdma-opensm-3.3.21-standby-node-log1.txt";
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
    try (DetectorDriver d = driver(info)) {
      records.forEach(d::pipe);
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void noMasterFor60sIsSmAbsent(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
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
    try (DetectorDriver d = driver(info)) {
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
    try (DetectorDriver d = driver(info)) {
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
    try (DetectorDriver d1 = driver(info)) {
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
    try (DetectorDriver d2 = driver(info)) {
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
      try (DetectorDriver d =
          new DetectorDriver(
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

  // ---- out-of-order arrival across the cluster's SM sources (gpu001's sminfo, sm01/sm02 logs)
  // ----

  private static final OpenSmLogParser UTC_LOG = new OpenSmLogParser(ZoneOffset.UTC);

  /** A record and the second at which it reaches the SM detector's partition. */
  private record Arrival(SmSweep record, int at) {}

  /** sminfo failing on gpu001 at {@code second} (no SM answers during a handoff). */
  private static SmSweep failedPoll(int second) {
    return sminfoFailed(second);
  }

  /**
   * One OpenSM failover as it happens [OSM-base]: sm01 is master from 0 s, sm02 standby; sm01 dies
   * at 200 s; gpu001's sminfo polls (every 10 s) answer A until 200 s and fail from 210 s; sm02's
   * four SMInfo polls of the master time out (210-240 s), then it logs DISCOVERING, a heavy sweep
   * coming out of standby, MASTER and SUBNET UP at 241 s; sminfo answers B from 250 s to 500 s.
   * Each record arrives at its own second, the poller's plus {@code pollerLag}.
   */
  private static List<Arrival> failoverStory(int pollerLag) {
    List<Arrival> story = new ArrayList<>();
    story.add(log("sm01", 0, "0x80 -> Entering MASTER state", 0));
    story.add(log("sm01", 0, "0x02 -> SUBNET UP", 0));
    story.add(log("sm02", 0, "0x80 -> Entering STANDBY state", 0));
    for (int s = 0; s <= 500; s += 10) {
      SmSweep poll = s <= 200 ? sminfo(s, A, 1, 5000 + s) : s < 250 ? failedPoll(s) : null;
      if (poll == null) {
        poll = sminfo(s, B, 7, 100 + s);
      }
      story.add(new Arrival(poll, s + pollerLag));
    }
    for (int s = 210; s <= 240; s += 10) {
      story.add(
          log(
              "sm02",
              s,
              "0x01 -> sm_mad_ctrl_send_err_cb: ERR 3120: Timeout while getting attribute 0x20"
                  + " (SMInfo); Possible mis-set mkey?",
              0));
    }
    story.add(log("sm02", 241, "0x80 -> Entering DISCOVERING state", 0));
    story.add(
        log(
            "sm02",
            241,
            "0x02 -> do_sweep: Entering heavy sweep with flags: force_heavy_sweep 0, coming out"
                + " of standby 1, subnet initialization error 0, sm port change 0",
            0));
    story.add(log("sm02", 241, "0x80 -> Entering MASTER state", 0));
    story.add(log("sm02", 241, "0x02 -> SUBNET UP", 0));
    return story;
  }

  /** Each log line numbered as its host's collector numbers them (per host, increasing). */
  private static final java.util.Map<String, Long> LOG_SEQ = new java.util.HashMap<>();

  private static Arrival log(String host, int second, String text, int lag) {
    SmSweep r = logLine(UTC_LOG, host, second, text);
    r.setSeq(LOG_SEQ.merge(host, 1L, Long::sum));
    return new Arrival(r, second + lag);
  }

  /** Pipes the records by arrival second; records arriving in the same second keep their order. */
  private static List<Alert> replay(DetectorDriver d, List<Arrival> story) {
    story.stream()
        .sorted(java.util.Comparator.comparingInt(Arrival::at))
        .forEach(a -> d.pipe(a.record()));
    return d.readAlerts();
  }

  /** The alerts without their lineage (offsets depend on the arrival order, nothing else may). */
  private static List<Alert> withoutLineage(List<Alert> alerts) {
    return alerts.stream()
        .map(
            a ->
                Alert.newBuilder(a)
                    .setSourceTopic(null)
                    .setSourcePartition(null)
                    .setSourceOffset(null)
                    .build())
        .toList();
  }

  private static void assertOneFailoverFromSm01ToSm02(List<Alert> alerts) {
    List<Alert> fired = firing(alerts);
    assertEquals(1, fired.size(), fired.toString());
    Alert failover = fired.get(0);
    assertEquals(AlertKind.SM_FAILOVER, failover.getKind());
    assertEquals(at(241), failover.getStartedAt());
    assertEquals(A, failover.getEvidence().get("old_master_guid"));
    assertEquals("sm01", failover.getEvidence().get("old_master_host"));
    assertEquals("sm02", failover.getEvidence().get("new_master_host"));
    assertEquals("41.0s", failover.getEvidence().get("handoff"));
  }

  @Test
  void theStandbysMasterLogArrivingBeforeThePollsOfTheGapIsOneFailoverAndNoAbsence(TestInfo info) {
    List<Arrival> story = new ArrayList<>();
    for (Arrival a : failoverStory(0)) {
      boolean pollOfTheGap = a.record().getSource() == SmSource.SMINFO && a.at() > 200;
      // sm02's log (210-241 s) is all in before gpu001's polls from 210 s on
      story.add(pollOfTheGap ? new Arrival(a.record(), a.at() + 45) : a);
    }
    try (DetectorDriver d = driver(info)) {
      List<Alert> alerts = replay(d, story);
      assertOneFailoverFromSm01ToSm02(alerts);
      // B answering sminfo from 250 s on is the same failover, not a second one; it resolves 60 s
      // after the first confirmation of the new master (its SUBNET UP at 241 s)
      assertEquals(2, alerts.size(), alerts.toString());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(241 + 60), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void aPollerLagging60sBehindTheOpenSmLogsIsOneFailoverAndNoAbsence(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      List<Alert> alerts = replay(d, failoverStory(60));
      assertOneFailoverFromSm01ToSm02(alerts);
      assertEquals(2, alerts.size(), alerts.toString());
    }
  }

  @Test
  void orderedAndSkewedArrivalGiveIdenticalSmAlerts(TestInfo info) {
    List<Alert> ordered;
    try (DetectorDriver d = driver(info, "-ordered")) {
      ordered = withoutLineage(replay(d, failoverStory(0)));
    }
    assertOneFailoverFromSm01ToSm02(ordered);
    for (int lag : new int[] {15, 45, 60, 90}) {
      try (DetectorDriver d = driver(info, "-lag" + lag)) {
        assertEquals(ordered, withoutLineage(replay(d, failoverStory(lag))), "poller lag " + lag);
      }
    }
  }

  /**
   * sm01 dies at 200 s and sm02 never takes over (it keeps timing out on the master's SMInfo):
   * every source goes on reporting, and no master for 2 minutes is SM_ABSENT, whether gpu001's
   * polls arrive in time or 60 s late.
   */
  @Test
  void noMasterFor2MinutesWithEverySourceReportingIsSmAbsent(TestInfo info) {
    List<Alert> first = null;
    for (int lag : new int[] {0, 60}) {
      List<Arrival> story = new ArrayList<>();
      story.add(log("sm01", 0, "0x80 -> Entering MASTER state", 0));
      story.add(log("sm02", 0, "0x80 -> Entering STANDBY state", 0));
      for (int s = 0; s <= 400; s += 10) {
        story.add(new Arrival(s <= 200 ? sminfo(s, A, 1, 100 + s) : failedPoll(s), s + lag));
        if (s > 200) {
          story.add(
              log(
                  "sm02",
                  s,
                  "0x01 -> sm_mad_ctrl_send_err_cb: ERR 3120: Timeout while getting attribute"
                      + " 0x20 (SMInfo); Possible mis-set mkey?",
                  0));
        }
      }
      try (DetectorDriver d = driver(info, "-lag" + lag)) {
        List<Alert> alerts = withoutLineage(replay(d, story));
        assertEquals(1, alerts.size(), alerts.toString());
        Alert absent = alerts.get(0);
        assertEquals(AlertKind.SM_ABSENT, absent.getKind());
        assertEquals(AlertState.FIRING, absent.getState());
        // first missed poll at 210 s, bound 40 s handoff + 10 s poll allowance
        assertEquals(at(210).plusMillis(50_001), absent.getStartedAt());
        assertEquals("guid " + A + " lid 1 on sm01", absent.getEvidence().get("last_master"));
        if (first == null) {
          first = alerts;
        } else {
          assertEquals(first, alerts);
        }
      }
    }
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      assertNamed(
          d.topology,
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
              "sm-to-alerts-active",
              "sm-results-only",
              "sm-results-cast",
              "sm-dead-letters-only",
              "sm-dead-letters-cast",
              "sm-sink-dlq"));
    }
  }
}
