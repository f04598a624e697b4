package io.fabricpulse.streams.detect.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.alerts.AlertIds;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.PortRates;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Incident stories for the link detectors, with the shipped alert-rules/ defaults. */
class LinkHealthDetectorTest extends DetectorStories {

  private LinkDriver driver(TestInfo info) {
    return new LinkDriver(defaults, stateDir, "link-" + info.getDisplayName());
  }

  private static Instant at(long second) {
    return Instant.ofEpochMilli(PortRates.T0 + second * 1000L);
  }

  /** gpu003 mlx5_2 goes down for 26 s at 60 s, 200 s and 360 s: 3 drops in 6 minutes. */
  private static PortStory flappingPort() {
    PortStory story = new PortStory("gpu003", "mlx5_2", 5);
    story.down =
        s ->
            PortStory.downFor(60, 26).test(s)
                || PortStory.downFor(200, 26).test(s)
                || PortStory.downFor(360, 26).test(s);
    return story;
  }

  @Test
  void mlx5_2OnGpu003WentDown3TimesIn6MinutesIsOneLinkFlapResolvedAfterTheLinkStaysUp(
      TestInfo info) {
    try (LinkDriver d = driver(info)) {
      flappingPort().play(d, 0, 900);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(AlertKind.LINK_FLAP, firing.getKind());
      assertEquals("link-flap", firing.getRule());
      assertEquals(Severity.CRITICAL, firing.getSeverity());
      assertEquals("gpu003", firing.getNode());
      assertEquals("mlx5_2", firing.getDevice());
      assertEquals(1, firing.getPort());
      assertEquals(at(360), firing.getStartedAt());
      assertEquals(3.0, firing.getValue());
      assertEquals(3.0, firing.getThreshold());
      assertEquals("3", firing.getEvidence().get("state_transitions"));
      assertEquals("3", firing.getEvidence().get("link_downed_increases"));
      assertEquals(
          "gpu003 mlx5_2:1 went down 3 times within 10m (threshold 3)", firing.getSummary());
      assertEquals("fabric", firing.getLabels().get("team"));
      assertEquals(
          AlertIds.of("link-flap", "c1/gpu003/device=mlx5_2/port=1", at(360).toEpochMilli()),
          firing.getAlertId());

      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(firing.getAlertId(), resolved.getAlertId());
      // back ACTIVE at 386 s, first ACTIVE sample at 390 s, 60 s hysteresis
      assertEquals(at(450), resolved.getResolvedAt());

      var active = d.active.readRecordsToList();
      assertEquals(2, active.size());
      assertNull(active.get(1).value(), "a resolved alert leaves a tombstone in alerts.active");
    }
  }

  @Test
  void twoDropsOrThreeDropsSpreadOverMoreThan10MinutesStaySilent(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      PortStory twice = new PortStory("gpu003", "mlx5_2", 5);
      twice.down = s -> PortStory.downFor(60, 26).test(s) || PortStory.downFor(200, 26).test(s);
      twice.play(d, 0, 900);
      PortStory spread = new PortStory("gpu004", "mlx5_0", 5);
      spread.down =
          s ->
              PortStory.downFor(1000, 26).test(s)
                  || PortStory.downFor(1330, 26).test(s)
                  || PortStory.downFor(1630, 26).test(s);
      spread.play(d, 905, 2000);
      assertTrue(d.alerts.isEmpty(), d.readAlerts().toString());
    }
  }

  @Test
  void portDown5MinutesIsOneLinkDownAndNoLinkFlap(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      PortStory story = new PortStory("gpu009", "mlx5_3", 5);
      story.down = PortStory.downFor(100, 300);
      story.play(d, 0, 600);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.LINK_DOWN, firing.getKind());
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals("gpu009", firing.getNode());
      assertEquals("mlx5_3", firing.getDevice());
      assertEquals(at(100), firing.getStartedAt());
      assertEquals(240.0, firing.getValue());
      assertEquals(240.0, firing.getThreshold());
      assertEquals("s", firing.getUnit());
      assertEquals(
          "gpu009 mlx5_3:1 has been DOWN for 4m with link_downed unchanged (threshold 4m)",
          firing.getSummary());
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(at(460), resolved.getResolvedAt());
    }
  }

  @Test
  void aPortThatStaysDownFiresInStreamTimeWithoutItsOwnSamples(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      PortStory silentAfterDrop = new PortStory("gpu010", "mlx5_5", 5);
      silentAfterDrop.down = s -> s >= 100;
      PortStory neighbour = new PortStory("gpu010", "mlx5_6", 5);
      for (long s = 0; s <= 400; s += 5) {
        if (s <= 100) {
          d.pipe(silentAfterDrop.sample(s));
        }
        d.pipe(neighbour.sample(s));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(AlertKind.LINK_DOWN, alerts.get(0).getKind());
      assertEquals("mlx5_5", alerts.get(0).getDevice());
      assertEquals(at(100), alerts.get(0).getStartedAt());
    }
  }

  @Test
  void aSingle26SecondFlapAndANeverConnectedPortStaySilent(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      PortStory story = new PortStory("gpu003", "mlx5_2", 1);
      story.down = PortStory.downFor(60, 26);
      story.play(d, 0, 600);
      PortStory unplugged = new PortStory("gpu003", "mlx5_7", 5);
      unplugged.down = s -> true;
      unplugged.play(d, 601, 1200);
      assertTrue(d.alerts.isEmpty(), d.readAlerts().toString());
    }
  }

  @Test
  void ndr400BackAs200HdrIsLinkDegradedResolvedWhenBackAt400(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      PortStory story = new PortStory("gpu011", "mlx5_1", 5);
      story.halfSpeed = s -> s >= 120 && s < 300;
      story.play(d, 0, 600);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.LINK_DEGRADED, firing.getKind());
      assertEquals(Severity.WARNING, firing.getSeverity());
      assertEquals("gpu011", firing.getNode());
      assertEquals("mlx5_1", firing.getDevice());
      assertEquals(at(120), firing.getStartedAt());
      assertEquals(200.0, firing.getValue());
      assertEquals(400.0, firing.getThreshold());
      assertEquals("Gb/s", firing.getUnit());
      assertEquals("true", firing.getEvidence().get("slower"));
      assertEquals("false", firing.getEvidence().get("narrower"));
      assertEquals(
          "gpu011 mlx5_1:1 runs at 200 Gb/s 4X, below its established 400 Gb/s 4X",
          firing.getSummary());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(360), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void width4xBackAs2xIsLinkDegradedAndAFasterLinkBecomesEstablishedAfterSettling(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      // first sight at 200 Gb/s 4X HDR establishes it; 400 NDR held 60 s raises it; then 2X
      for (long s = 0; s <= 400; s += 5) {
        PortRates r = PortRates.at("gpu012", "mlx5_4", s);
        if (s > 0) {
          r.interval(5000);
        }
        if (s < 50) {
          r.rate(200, "4X");
        } else if (s < 300) {
          r.rate(400, "4X");
        } else {
          r.rate(200, "2X");
        }
        d.pipe(r.counter("link_downed", 0, 0));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(AlertKind.LINK_DEGRADED, alerts.get(0).getKind());
      assertEquals(at(300), alerts.get(0).getStartedAt());
      assertEquals("true", alerts.get(0).getEvidence().get("narrower"));
      assertEquals("4X", alerts.get(0).getEvidence().get("established_link_width"));
      assertEquals("2X", alerts.get(0).getEvidence().get("link_width"));
    }
  }

  /** gpu030 mlx5_0 sampled every minute at {@code gbps} 4X from {@code from} to {@code to}. */
  private static void runAt(LinkDriver d, double gbps, long from, long to) {
    for (long s = from; s <= to; s += 60) {
      d.pipe(
          PortRates.at("gpu030", "mlx5_0", s)
              .interval(60_000)
              .rate(gbps, "4X")
              .counter("link_downed", 0, 0));
    }
  }

  private static final long DAY = 86_400;

  @Test
  void aPortRunAt200OnPurposeForADayBecomesItsBaselineAndOnlyLaterDropsFire(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      // established at 400 Gb/s; an operator sets the port to 200 Gb/s at 1 h
      runAt(d, 400, 0, 3540);
      runAt(d, 200, 3600, 3600 + DAY - 60);
      List<Alert> degraded = d.readAlerts();
      assertEquals(1, degraded.size(), "fires once and stays FIRING for the day: " + degraded);
      Alert firing = degraded.get(0);
      assertEquals(AlertKind.LINK_DEGRADED, firing.getKind());
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(at(3600), firing.getStartedAt());
      assertEquals(400.0, firing.getThreshold());

      // 24 h of event time at 200 Gb/s: accepted as the port's speed, the alert resolves saying so
      runAt(d, 200, 3600 + DAY, 7200 + DAY);
      List<Alert> accepted = d.readAlerts();
      assertEquals(1, accepted.size(), accepted.toString());
      Alert resolved = accepted.get(0);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(firing.getAlertId(), resolved.getAlertId());
      assertEquals(at(3600 + DAY), resolved.getResolvedAt());
      assertEquals(
          "gpu030 mlx5_0:1 has run at 200 Gb/s 4X for 1d: accepted as its established value"
              + " (was 400 Gb/s 4X)",
          resolved.getSummary());
      assertEquals("true", resolved.getEvidence().get("reestablished"));
      assertEquals("200", resolved.getEvidence().get("established_rate_gbps"));
      assertEquals("400", resolved.getEvidence().get("previous_established_rate_gbps"));
      assertEquals(at(3600).toString(), resolved.getEvidence().get("lower_since"));
      assertEquals("1d", resolved.getEvidence().get("reestablish_after"));

      // a later drop below the new baseline is a new degradation
      long drop = 7260 + DAY;
      runAt(d, 100, drop, drop + 600);
      List<Alert> again = d.readAlerts();
      assertEquals(1, again.size(), again.toString());
      assertEquals(AlertState.FIRING, again.get(0).getState());
      assertEquals(at(drop), again.get(0).getStartedAt());
      assertEquals(100.0, again.get(0).getValue());
      assertEquals(200.0, again.get(0).getThreshold());
      assertEquals(
          "gpu030 mlx5_0:1 runs at 100 Gb/s 4X, below its established 200 Gb/s 4X",
          again.get(0).getSummary());

      // back at 400 Gb/s, a speed the port had established: the baseline is 400 at once
      long up = drop + 660;
      runAt(d, 400, up, up);
      PortLinkState port =
          d.driver
              .<String, PortLinkState>getKeyValueStore(LinkHealthDetector.PORT_STORE)
              .get("c1/gpu030/mlx5_0/1");
      assertEquals(400.0, port.speed.value);
      runAt(d, 400, up + 60, up + 600);
      List<Alert> back = d.readAlerts();
      assertEquals(1, back.size(), back.toString());
      assertEquals(AlertState.RESOLVED, back.get(0).getState());
      assertEquals(again.get(0).getAlertId(), back.get(0).getAlertId());
      assertEquals(at(up + 60), back.get(0).getResolvedAt());

      // so 200 Gb/s is a degradation again
      runAt(d, 200, up + 660, up + 780);
      List<Alert> below400 = d.readAlerts();
      assertEquals(1, below400.size(), below400.toString());
      assertEquals(200.0, below400.get(0).getValue());
      assertEquals(400.0, below400.get(0).getThreshold());
    }
  }

  @Test
  void aReturnToTheBaselineRestartsTheReestablishPeriod(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      runAt(d, 400, 0, 540);
      runAt(d, 200, 600, 600 + 20 * 3600); // 20 h at 200
      runAt(d, 400, 660 + 20 * 3600, 4260 + 20 * 3600); // an hour back at 400
      long again = 4320 + 20 * 3600;
      runAt(d, 200, again, again + 20 * 3600); // 20 h more at 200: 40 h, never 24 h in a row
      List<Alert> alerts = d.readAlerts();
      assertEquals(3, alerts.size(), alerts.toString());
      assertEquals(AlertState.FIRING, alerts.get(0).getState());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(
          "Resolved after 1m clean: gpu030 mlx5_0:1 runs at 200 Gb/s 4X, below its established"
              + " 400 Gb/s 4X",
          alerts.get(1).getSummary());
      assertEquals(AlertState.FIRING, alerts.get(2).getState());
      assertEquals(at(again), alerts.get(2).getStartedAt());
      assertEquals(400.0, alerts.get(2).getThreshold());
    }
  }

  @Test
  void symbolErrors50PerSecondForAMinuteIsOnePhyErrorsAlert(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      PortStory story = new PortStory("gpu021", "mlx5_6", 5);
      story.symbolErrorsPerSecond = s -> s >= 100 && s < 160 ? 50 : 0;
      story.play(d, 0, 3900);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.PHY_ERRORS, firing.getKind());
      assertEquals(Severity.CRITICAL, firing.getSeverity());
      assertEquals("gpu021", firing.getNode());
      assertEquals("mlx5_6", firing.getDevice());
      assertEquals(at(105), firing.getStartedAt());
      assertEquals(300.0, firing.getValue());
      assertEquals(120.0, firing.getThreshold());
      assertEquals("events/h", firing.getUnit());
      assertEquals("300/h > 120/h", firing.getEvidence().get("symbol_error_per_hour"));
      assertEquals("50/s > 10/s", firing.getEvidence().get("symbol_error_per_second"));
      assertEquals(
          "gpu021 mlx5_6:1 has physical-layer errors over threshold: symbol_error 300/h > 120/h,"
              + " symbol_error 50/s > 10/s",
          firing.getSummary());
      // the hour window (1-minute buckets) empties at 3780 s; 60 s hysteresis
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(at(3840), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void bufferOverrunAndLinkIntegrityErrorsFireAtTheFirstIncrease(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      d.pipe(PortRates.at("gpu022", "mlx5_0", 0).counter("local_link_integrity_errors", 0, 0));
      d.pipe(
          PortRates.at("gpu022", "mlx5_0", 5)
              .interval(5000)
              .counter("local_link_integrity_errors", 1, 1)
              .counter("excessive_buffer_overrun_errors", 2, 2)
              .counter("port_xmit_discards", 1000, 1000));
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.PHY_ERRORS, a.getKind());
      assertEquals("200/s > 100/s", a.getEvidence().get("port_xmit_discards_per_second"));
      assertEquals("2 > 0", a.getEvidence().get("excessive_buffer_overrun_errors"));
      assertEquals("1 > 0", a.getEvidence().get("local_link_integrity_errors"));
      assertEquals(3, a.getEvidence().size());
    }
  }

  @Test
  void counterClearRebootFirstSampleAndSaturationStaySilent(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      // first sample of the port is DOWN: neither a transition nor a drop
      d.pipe(PortRates.at("gpu030", "mlx5_0", 0).down().counter("link_downed", 40, 0));
      long s = 5;
      for (; s < 100; s += 5) {
        d.pipe(PortRates.at("gpu030", "mlx5_0", s).interval(5000).counter("link_downed", 40, 0));
      }
      // two real drops
      for (long drop : new long[] {100, 200}) {
        for (; s < drop + 60; s += 5) {
          PortRates r = PortRates.at("gpu030", "mlx5_0", s).interval(5000);
          boolean down = s >= drop && s < drop + 30;
          long downed = 40 + (drop == 100 ? (s >= 100 ? 1 : 0) : (s >= 200 ? 2 : 1));
          long delta = s == drop ? 1 : 0;
          if (down) {
            r.down();
          }
          d.pipe(r.counter("link_downed", downed, delta));
        }
      }
      // OpenSM PerfMgr clears the counters (tag clear, delta = value) with errors pending
      d.pipe(
          PortRates.at("gpu030", "mlx5_0", s)
              .interval(5000)
              .counter("link_downed", 3, 3L, RateTag.clear)
              .counter("symbol_error", 5000, 5000L, RateTag.clear)
              .counter("excessive_buffer_overrun_errors", 9, 9L, RateTag.clear));
      s += 5;
      // the node reboots: new boot id, port training (DOWN) first, link_downed back to 0, +1
      d.pipe(
          PortRates.at("gpu030", "mlx5_0", s + 120)
              .boot("boot-2")
              .interval(125_000)
              .down()
              .counter("link_downed", 1, 1L, RateTag.reboot)
              .counter("symbol_error", 2000, 2000L, RateTag.reboot)
              .counter("local_link_integrity_errors", 1, 1L, RateTag.reboot));
      s += 125;
      // symbol_error stuck at all ones (16 bits): rate unknown, not a burst
      for (long end = s + 600; s < end; s += 5) {
        d.pipe(
            PortRates.at("gpu030", "mlx5_0", s)
                .boot("boot-2")
                .interval(5000)
                .counter("link_downed", 1, 0L, RateTag.normal)
                .counter("symbol_error", 65535, null, RateTag.saturated));
      }
      assertTrue(d.alerts.isEmpty(), d.readAlerts().toString());
    }
  }

  /** RoCE port ens3np0: ethtool's link_down_events_phy and the port state show the same drops. */
  private static void roceDrops(LinkDriver d, long... drops) {
    long phy = 0;
    PortStory port = new PortStory("gpu040", "mlx5_3", 5);
    port.down = s -> java.util.Arrays.stream(drops).anyMatch(t -> s >= t && s < t + 26);
    for (long s = 0; s <= 900; s += 5) {
      d.pipe(port.sample(s).netdev("ens3np0"));
      long before = phy;
      for (long drop : drops) {
        phy += drop > s - 5 + 2 && drop <= s + 2 ? 1 : 0;
      }
      d.pipe("c1/gpu040/ens3np0", ethtool("gpu040", "ens3np0", s + 2, phy, phy - before, s > 0));
    }
  }

  private static CounterRates ethtool(
      String node, String netdev, long second, long value, long delta, boolean hasPrevious) {
    CounterRate r =
        CounterRate.newBuilder()
            .setName("link_down_events_phy")
            .setValue(value)
            .setDelta(hasPrevious ? delta : null)
            .setPerSecond(hasPrevious ? delta / 5.0 : null)
            .setUnit("events")
            .setTag(hasPrevious ? RateTag.normal : RateTag.first)
            .build();
    return CounterRates.newBuilder()
        .setCluster("c1")
        .setNode(node)
        .setBootId("boot-1")
        .setSeq(second)
        .setTime(Instant.ofEpochMilli(PortRates.T0 + second * 1000))
        .setIntervalMs(hasPrevious ? 5000L : null)
        .setSource(RateSource.PFC)
        .setDevice("mlx5_3")
        .setNetdev(netdev)
        .setRates(List.of(r))
        .build();
  }

  @Test
  void roceDropsSeenByStateLinkDownedAndLinkDownEventsPhyCountOnce(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      roceDrops(d, 60, 200);
      assertTrue(d.alerts.isEmpty(), "2 drops, each seen by 3 signals, are 2 events");
    }
    try (LinkDriver d = new LinkDriver(defaults, stateDir.resolve("b"), "link-roce-3")) {
      roceDrops(d, 60, 200, 360);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      assertEquals(AlertKind.LINK_FLAP, alerts.get(0).getKind());
      assertEquals(at(360), alerts.get(0).getStartedAt());
      assertEquals("3", alerts.get(0).getEvidence().get("state_transitions"));
      // ethtool is sampled 2 s after sysfs: its third increase arrives after the alert fired
      assertEquals("2", alerts.get(0).getEvidence().get("link_down_events_phy_increases"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
    }
  }

  @Test
  void aRestartDoesNotReFireAFiringAlert(TestInfo info) {
    PortStory story = flappingPort();
    List<Alert> first;
    List<List<KeyValue<String, ?>>> changelogs = new ArrayList<>();
    List<String> stores =
        List.of(
            LinkHealthDetector.PORT_STORE,
            LinkHealthDetector.DOWN_PORTS_STORE,
            LinkHealthDetector.NETDEV_STORE,
            LinkHealthDetector.TRACKER_STORE);
    try (LinkDriver d1 = driver(info)) {
      story.play(d1, 0, 370);
      first = d1.readAlerts();
      changelogs.add(
          new ArrayList<>(d1.changelog(stores.get(0), new PortLinkStateSerde().deserializer())));
      changelogs.add(new ArrayList<>(d1.changelog(stores.get(1), new LongDeserializer())));
      changelogs.add(new ArrayList<>(d1.changelog(stores.get(2), new StringDeserializer())));
      changelogs.add(
          new ArrayList<>(d1.changelog(stores.get(3), new TrackerStateSerde().deserializer())));
    }
    assertEquals(1, first.size());
    assertEquals(AlertState.FIRING, first.get(0).getState());

    try (LinkDriver d2 = driver(info)) {
      for (int i = 0; i < stores.size(); i++) {
        restore(d2, stores.get(i), changelogs.get(i));
      }
      story.play(d2, 375, 900);
      List<Alert> after = d2.readAlerts();
      assertEquals(1, after.size(), after.toString());
      assertEquals(AlertState.RESOLVED, after.get(0).getState());
      assertEquals(first.get(0).getAlertId(), after.get(0).getAlertId());
      assertEquals(at(450), after.get(0).getResolvedAt());
    }
  }

  @SuppressWarnings("unchecked")
  private static <V> void restore(LinkDriver d, String store, List<KeyValue<String, ?>> records) {
    d.restore(store, (List<KeyValue<String, V>>) (List<?>) records);
  }

  @Test
  void theSameInputTwiceGivesIdenticalAlerts(TestInfo info) {
    List<List<TestRecord<String, Alert>>> runs = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (LinkDriver d = new LinkDriver(defaults, stateDir.resolve("run" + run), "det-" + run)) {
        PortStory flap = flappingPort();
        PortStory drop = new PortStory("gpu009", "mlx5_3", 5);
        drop.down = PortStory.downFor(100, 300);
        PortStory slow = new PortStory("gpu011", "mlx5_1", 5);
        slow.halfSpeed = s -> s >= 120 && s < 300;
        PortStory errors = new PortStory("gpu021", "mlx5_6", 5);
        errors.symbolErrorsPerSecond = s -> s >= 100 && s < 160 ? 50 : 0;
        for (long s = 0; s <= 900; s += 5) {
          for (PortStory p : List.of(flap, drop, slow, errors)) {
            d.pipe(p.sample(s));
          }
        }
        runs.add(d.readAlertRecords());
      }
    }
    // flap, down and degraded FIRING + RESOLVED; phy errors FIRING (its hour has not passed)
    assertEquals(7, runs.get(0).size(), runs.get(0).toString());
    assertEquals(runs.get(0), runs.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      String described =
          assertNamed(
              d.topology,
              List.of(
                  "source-fabric-rates",
                  "link-rates-only",
                  LinkHealthDetector.PROCESSOR,
                  LinkHealthDetector.PORT_STORE,
                  LinkHealthDetector.DOWN_PORTS_STORE,
                  LinkHealthDetector.NETDEV_STORE,
                  LinkHealthDetector.NODE_CLOCK_STORE,
                  LinkHealthDetector.TRACKER_STORE,
                  "link-to-alerts",
                  "link-to-alerts-active",
                  "link-results-only",
                  "link-results-cast",
                  "link-dead-letters-only",
                  "link-dead-letters-cast",
                  "link-sink-dlq",
                  "rates-in-node-order",
                  "rates-order-buffer",
                  "rates-order-clocks"));
      // fabric.rates is keyed by node: a port's rates are already in its node's partition; the
      // only repartitions are the topology join's, after the detector (alerts and links re-keyed
      // by port)
      java.util.Set<String> repartitions = new java.util.TreeSet<>();
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("topics: \\[([^\\]]*-repartition)\\]").matcher(described);
      while (m.find()) {
        repartitions.add(m.group(1));
      }
      assertEquals(
          java.util.Set.of(
              "link-alerts-by-port-repartition", LinkPeers.BY_PORT_TOPIC + "-repartition"),
          repartitions,
          described);
    }
  }
}
