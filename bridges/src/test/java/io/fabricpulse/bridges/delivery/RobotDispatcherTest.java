package io.fabricpulse.bridges.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.config.Person;
import io.fabricpulse.bridges.config.QuietHours;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.Route;
import io.fabricpulse.bridges.delivery.RobotDispatcher.StepResult;
import io.fabricpulse.bridges.delivery.RobotDispatcher.Undelivered;
import io.fabricpulse.bridges.dingtalk.DingTalkRobot;
import io.fabricpulse.bridges.render.MessagePacker;
import io.fabricpulse.bridges.render.MessageRenderer;
import io.fabricpulse.bridges.render.Utf8;
import io.fabricpulse.bridges.testing.FakeDingTalkServer;
import io.fabricpulse.bridges.testing.FakeRobotServer;
import io.fabricpulse.bridges.testing.FakeRobotServer.Request;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.ManualClock;
import io.fabricpulse.bridges.testing.TestAlerts;
import io.fabricpulse.bridges.wecom.WeComRobot;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher against local robots that enforce the documented limits, on one injected clock:
 * bursts, lockouts, outages, size limits and quiet hours, with no alert lost or sent twice.
 */
class RobotDispatcherTest {
  private static final ZoneId ZONE = ZoneId.of("Asia/Shanghai");
  private static final String SECRET = "SECtestsecret";
  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T03:00:00Z"));
  private final MessagePacker packer =
      new MessagePacker(new MessageRenderer(Language.EN, ZONE, null));

  private static RobotConfig config(RobotType type, QuietHours quiet) {
    Route everything = new Route(Set.of(), Set.of(), Set.of(), List.of(), Map.of(), List.of());
    return new RobotConfig(
        "oncall", type, "unused", null, null, null, false, 20, List.of(everything), quiet, "test");
  }

  private RobotDispatcher wecom(FakeWeComServer server, Duration giveUp) {
    return new RobotDispatcher(
        config(RobotType.WECOM, null),
        new WeComRobot("oncall", server.url(), "KEY", false, new WebhookClient()),
        packer,
        clock,
        giveUp,
        ZONE);
  }

  private RobotDispatcher dingtalk(FakeDingTalkServer server, QuietHours quiet) {
    return new RobotDispatcher(
        config(RobotType.DINGTALK, quiet),
        new DingTalkRobot(
            "oncall", server.url(), "TOKEN", SECRET, "fabricpulse", clock, new WebhookClient()),
        packer,
        clock,
        Duration.ofHours(1),
        ZONE);
  }

  private static List<Alert> storms(int n) {
    List<Alert> alerts = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      alerts.add(TestAlerts.storm("storm-" + i, String.format("gpu%03d", i)));
    }
    return alerts;
  }

  private record Run(List<AlertChange> delivered, List<Undelivered> gaveUp) {}

  /** Steps the dispatcher, moving the clock to each wake-up, until nothing is pending. */
  private Run drain(RobotDispatcher d, Duration limit, Runnable eachStep) {
    Instant end = clock.instant().plus(limit);
    List<AlertChange> delivered = new ArrayList<>();
    List<Undelivered> gaveUp = new ArrayList<>();
    while (d.pendingCount() > 0 && clock.instant().isBefore(end)) {
      eachStep.run();
      StepResult r = d.step();
      delivered.addAll(r.delivered());
      gaveUp.addAll(r.gaveUp());
      Instant wake = d.nextWakeAt();
      if (wake == null) {
        break;
      }
      Instant next = clock.instant().plusMillis(100);
      clock.set(wake.isAfter(next) ? wake : next);
    }
    return new Run(delivered, gaveUp);
  }

  private void offerAll(RobotDispatcher d, List<Alert> alerts) {
    alerts.forEach(a -> d.offer(new AlertChange(a, null, clock.instant())));
  }

  /** Every alert's subject appears in exactly one accepted message. */
  private static void assertEachExactlyOnce(
      FakeRobotServer server, List<Alert> alerts, String field) {
    List<String> contents =
        server.accepted().stream().map(r -> r.body().at(field).asText()).toList();
    for (Alert a : alerts) {
      String subject = a.getNode() + " ens9f0np0";
      long times = contents.stream().filter(c -> c.contains(subject)).count();
      assertEquals(1, times, subject + " in " + times + " messages");
    }
  }

  /** No 60 s window holds more than 20 requests. */
  private static void assertWithinBudget(List<Request> requests) {
    for (int i = 0; i < requests.size(); i++) {
      Instant start = requests.get(i).at();
      long inWindow =
          requests.stream()
              .filter(r -> !r.at().isBefore(start) && r.at().isBefore(start.plusSeconds(60)))
              .count();
      assertTrue(inWindow <= 20, inWindow + " requests in the minute from " + start);
    }
  }

  @Test
  void aBurstOf200ArrivesInDigestsWithinTheLimitNoneMissing() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY")) {
      RobotDispatcher d = wecom(server, Duration.ofHours(1));
      List<Alert> alerts = storms(200);
      // they arrive faster than 20 a minute: one every 100 ms, 200 in 20 s
      List<AlertChange> delivered = new ArrayList<>();
      Instant start = clock.instant();
      int offered = 0;
      while ((offered < alerts.size() || d.pendingCount() > 0)
          && clock.instant().isBefore(start.plus(Duration.ofMinutes(30)))) {
        while (offered < alerts.size()
            && !start.plusMillis(100L * offered).isAfter(clock.instant())) {
          offerAll(d, List.of(alerts.get(offered++)));
        }
        delivered.addAll(d.step().delivered());
        Instant next = clock.instant().plusMillis(100);
        Instant wake = d.nextWakeAt();
        if (offered == alerts.size() && wake != null && wake.isAfter(next)) {
          next = wake;
        }
        clock.set(next);
      }
      Run run = new Run(delivered, List.of());
      assertEquals(200, run.delivered().size());
      assertEquals(0, server.requests().stream().filter(r -> r.errcode() != 0).count());
      assertWithinBudget(server.requests());
      assertEachExactlyOnce(server, alerts, "/markdown/content");
      assertTrue(server.accepted().size() < 60, server.accepted().size() + " messages");
      assertTrue(d.metrics().alertsDigested.get() > 150, d.metrics().snapshot().toString());
      assertTrue(
          server.accepted().stream()
              .anyMatch(
                  r -> r.body().at("/markdown/content").asText().contains("PAUSE_STORM on gpu")));
    }
  }

  /**
   * leaf-07 loses power for a moment: every host cabled to it flaps, seen from the host's sysfs and
   * from the leaf's perfquery sweep (one incident per cable), and its uplinks to the four spines
   * count symbol errors on both ends. The hosts' alerts come first (their partitions are ahead),
   * the switch ends after.
   */
  private static List<Alert> leafIncident() {
    List<Alert> hosts = new ArrayList<>();
    List<Alert> switches = new ArrayList<>();
    for (int i = 1; i <= 48; i++) {
      String node = String.format("gpu%03d", i);
      String incident = "flap-" + i;
      hosts.add(TestAlerts.hostEnd("h" + i, AlertKind.LINK_FLAP, node, 3, "leaf-07", i, incident));
      switches.add(
          TestAlerts.switchEnd(
              "w" + i, AlertKind.LINK_FLAP, "leaf-07", i, node + " mlx5_3 port 1", incident));
    }
    for (int s = 1; s <= 4; s++) {
      String spine = "spine-0" + s;
      String incident = "isl-" + s;
      switches.add(
          TestAlerts.switchEnd(
              "l" + s, AlertKind.PHY_ERRORS, "leaf-07", 48 + s, spine + " port 7", incident));
      switches.add(
          TestAlerts.switchEnd(
              "s" + s, AlertKind.PHY_ERRORS, spine, 7, "leaf-07 port " + (48 + s), incident));
    }
    List<Alert> all = new ArrayList<>(hosts);
    all.addAll(switches);
    return all;
  }

  /**
   * The accepted messages as the group reads them: every incident in exactly one line of one
   * message, naming both ends, every line of a switch port under its switch's heading.
   */
  private static void assertGroupedByIncidentAndSwitch(FakeRobotServer server, String field) {
    List<String> contents =
        server.accepted().stream().map(r -> r.body().at(field).asText()).toList();
    List<String> lines = new ArrayList<>();
    for (String content : contents) {
      String heading = null;
      for (String line : content.split("\n")) {
        if (line.matches("\\*\\*(leaf|spine)-\\d+\\*\\* \\(switch, \\d+ alerts?\\)")) {
          heading = line.substring(2, line.indexOf("**", 2));
          continue;
        }
        if (line.startsWith("- ")) {
          assertTrue(heading != null, "a switch port's line before any switch heading: " + line);
          assertTrue(line.contains(heading + " port "), line + " under " + heading);
          lines.add(line);
        }
      }
    }
    for (int i = 1; i <= 48; i++) {
      String ends = String.format("**gpu%03d mlx5_3/1 <-> leaf-07 port %d** on both ends", i, i);
      assertEquals(1, lines.stream().filter(l -> l.contains(ends)).count(), ends);
    }
    for (int s = 1; s <= 4; s++) {
      String ends = "**leaf-07 port " + (48 + s) + " <-> spine-0" + s + " port 7** on both ends";
      assertEquals(1, lines.stream().filter(l -> l.contains(ends)).count(), ends);
    }
    assertEquals(52, lines.size(), String.join("\n", lines));
  }

  @Test
  void aLeafsIncidentsArriveAsOneLinePerCableUnderTheirSwitch() throws Exception {
    List<Alert> alerts = leafIncident();
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY")) {
      RobotDispatcher d = wecom(server, Duration.ofHours(1));
      offerAll(d, alerts);
      Run run = drain(d, Duration.ofMinutes(30), () -> {});
      assertEquals(104, run.delivered().size());
      assertEquals(
          104, run.delivered().stream().map(c -> c.alert().getAlertId()).distinct().count());
      assertEquals(0, server.requests().stream().filter(r -> r.errcode() != 0).count());
      assertWithinBudget(server.requests());
      for (Request r : server.accepted()) {
        assertTrue(Utf8.length(r.body().at("/markdown/content").asText()) <= 4096);
      }
      assertTrue(server.accepted().size() > 1, "104 alerts need more than one 4096-byte message");
      assertGroupedByIncidentAndSwitch(server, "/markdown/content");
    }
    clock.set(clock.instant().plus(Duration.ofHours(1)));
    try (FakeDingTalkServer server =
        new FakeDingTalkServer(clock, "TOKEN", SECRET, "fabricpulse")) {
      RobotDispatcher d = dingtalk(server, null);
      offerAll(d, alerts);
      Run run = drain(d, Duration.ofMinutes(30), () -> {});
      assertEquals(104, run.delivered().size());
      assertEquals(0, server.requests().stream().filter(r -> r.errcode() != 0).count());
      assertWithinBudget(server.requests());
      assertGroupedByIncidentAndSwitch(server, "/markdown/text");
    }
  }

  @Test
  void aLockedRobotGetsNoRequestUntilItsLockoutEnds() throws Exception {
    try (FakeDingTalkServer server =
        new FakeDingTalkServer(clock, "TOKEN", SECRET, "fabricpulse")) {
      server.othersSent(20); // another sender used this minute's budget
      RobotDispatcher d = dingtalk(server, null);
      List<Alert> alerts = storms(30);
      offerAll(d, alerts);
      Instant start = clock.instant();
      Run run = drain(d, Duration.ofMinutes(30), () -> {});
      assertEquals(30, run.delivered().size());
      List<Request> requests = server.requests();
      assertEquals(130101, requests.get(0).errcode());
      assertEquals(1, d.metrics().throttled.get());
      assertEquals(List.of(), server.duringLockout());
      // the next request waits out the 10-minute lockout
      assertTrue(!requests.get(1).at().isBefore(start.plus(Duration.ofMinutes(10))));
      assertEachExactlyOnce(server, alerts, "/markdown/text");
    }
  }

  @Test
  void aSixtySecondOutageLosesNothing() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY")) {
      RobotDispatcher d = wecom(server, Duration.ofHours(1));
      server.down(true);
      Instant upAt = clock.instant().plusSeconds(60);
      List<Alert> alerts = storms(12);
      offerAll(d, alerts);
      Run run = drain(d, Duration.ofMinutes(10), () -> server.down(clock.instant().isBefore(upAt)));
      assertEquals(12, run.delivered().size());
      assertEquals(List.of(), run.gaveUp());
      assertTrue(d.metrics().failures.get() >= 3, d.metrics().snapshot().toString());
      assertEachExactlyOnce(server, alerts, "/markdown/content");
    }
  }

  @Test
  void aRobotDownPastTheGiveUpTimeHandsTheAlertsBack() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY")) {
      RobotDispatcher d = wecom(server, Duration.ofMinutes(5));
      server.down(true);
      offerAll(d, storms(3));
      Run run = drain(d, Duration.ofMinutes(30), () -> {});
      assertEquals(List.of(), run.delivered());
      assertEquals(3, run.gaveUp().size());
      assertTrue(run.gaveUp().get(0).reason().contains("HTTP 503"), run.gaveUp().get(0).reason());
      assertEquals(3, d.metrics().undelivered.get());
    }
  }

  @Test
  void longDigestsSplitAtLineBoundariesAndLongLinesAreCutWhole() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY")) {
      RobotDispatcher d = wecom(server, Duration.ofHours(1));
      List<Alert> alerts = new ArrayList<>();
      for (int i = 1; i <= 80; i++) {
        alerts.add(
            Alert.newBuilder(TestAlerts.storm("s" + i, String.format("gpu%03d", i)))
                .setUnit("帧比例（接收暂停帧占总帧数）")
                .build());
      }
      Alert huge =
          Alert.newBuilder(TestAlerts.storm("huge", "gpu999"))
              .setSummary("暂停帧风暴".repeat(2000))
              .build();
      offerAll(d, alerts);
      Run run = drain(d, Duration.ofMinutes(30), () -> {});
      offerAll(d, List.of(huge));
      run.delivered().addAll(drain(d, Duration.ofMinutes(30), () -> {}).delivered());
      assertEquals(81, run.delivered().size());
      assertEquals(0, server.requests().stream().filter(r -> r.errcode() != 0).count());
      for (Request r : server.accepted()) {
        String content = r.body().at("/markdown/content").asText();
        assertTrue(Utf8.length(content) <= 4096);
        for (String line : content.split("\n")) {
          assertTrue(
              line.startsWith("### ")
                  || line.startsWith("- ")
                  || line.startsWith("**")
                  || line.contains("PAUSE_STORM"),
              "not a whole line: " + line);
        }
      }
      assertTrue(server.accepted().size() >= 3, "80 long lines need several messages");
      String last =
          server
              .accepted()
              .get(server.accepted().size() - 1)
              .body()
              .at("/markdown/content")
              .asText();
      assertTrue(last.contains("gpu999") && last.contains(Utf8.ELLIPSIS), last);
      alerts.add(huge);
      assertEachExactlyOnceIncludingHuge(server, alerts);
    }
  }

  private static void assertEachExactlyOnceIncludingHuge(
      FakeRobotServer server, List<Alert> alerts) {
    List<String> contents =
        server.accepted().stream().map(r -> r.body().at("/markdown/content").asText()).toList();
    for (Alert a : alerts) {
      String subject = a.getNode() + " ens9f0np0";
      assertEquals(1, contents.stream().filter(c -> c.contains(subject)).count(), subject);
    }
  }

  @Test
  void quietHoursLetCriticalThroughAndHoldTheRestUntilMorning() throws Exception {
    // 03:00Z is 11:00 in Shanghai; quiet from 10:00 to 12:00
    QuietHours quiet = new QuietHours(LocalTime.of(10, 0), LocalTime.of(12, 0));
    try (FakeDingTalkServer server =
        new FakeDingTalkServer(clock, "TOKEN", SECRET, "fabricpulse")) {
      RobotDispatcher d = dingtalk(server, quiet);
      Alert critical = TestAlerts.storm("crit", "gpu001");
      Alert warning =
          TestAlerts.firing("warn", AlertKind.LINK_FLAP, Severity.WARNING, "gpu002")
              .setDevice("mlx5_0")
              .setPort(1)
              .build();
      offerAll(d, List.of(warning, critical));
      StepResult first = d.step();
      assertEquals(
          List.of("crit"), first.delivered().stream().map(c -> c.alert().getAlertId()).toList());
      assertEquals(Instant.parse("2026-12-01T04:00:00Z"), d.nextWakeAt());
      clock.set(Instant.parse("2026-12-01T04:00:00Z"));
      assertEquals(
          List.of("warn"), d.step().delivered().stream().map(c -> c.alert().getAlertId()).toList());
      assertEquals(2, server.accepted().size());
    }
  }

  @Test
  void criticalMentionsReachTheRobot() throws Exception {
    Person alice = new Person("alice", "alice.w", "u123", "13800001111");
    Route route = new Route(Set.of(), Set.of(), Set.of(), List.of(), Map.of(), List.of(alice));
    RobotConfig config =
        new RobotConfig(
            "oncall",
            RobotType.DINGTALK,
            "unused",
            null,
            null,
            null,
            false,
            20,
            List.of(route),
            null,
            "t");
    try (FakeDingTalkServer server =
        new FakeDingTalkServer(clock, "TOKEN", SECRET, "fabricpulse")) {
      RobotDispatcher d =
          new RobotDispatcher(
              config,
              new DingTalkRobot(
                  "oncall",
                  server.url(),
                  "TOKEN",
                  SECRET,
                  "fabricpulse",
                  clock,
                  new WebhookClient()),
              packer,
              clock,
              Duration.ofHours(1),
              ZONE);
      offerAll(d, List.of(TestAlerts.storm("crit", "gpu001")));
      d.step();
      Request r = server.accepted().get(0);
      assertEquals("13800001111", r.body().at("/at/atMobiles/0").asText());
      assertTrue(r.body().at("/markdown/text").asText().endsWith("@13800001111 @u123"));
    }
  }
}
