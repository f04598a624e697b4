package io.fabricpulse.streams.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.detect.link.LinkHealthDetector;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The topology join on the link family: host gpu007's HCA mlx5_3 port 1 is cabled to leaf-07 port
 * 12 (the fabric role's sweep on fabric.topology), the host agent samples the port's sysfs counters
 * every 10 s, the fabric role reads leaf-07's ports with perfquery every minute. Every alert of
 * either end names the other end, and a flap seen from both ends is one incident (both alerts carry
 * the link's incident key, and their times overlap).
 */
class LinkPeersStoriesTest extends DetectorStories {
  private static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  private static final String HOST_GUID = "0x7cfe9003003b4bde";
  private static final String LEAF_GUID = "0x7cfe9003009ce5b0";
  private static final String LEAF8_GUID = "0x7cfe9003009ce5c0";
  private static final String LINK = "c1/" + HOST_GUID + ":1<->" + LEAF_GUID + ":12";
  private static final String LINK_TO_LEAF8 = "c1/" + HOST_GUID + ":1<->" + LEAF8_GUID + ":3";

  private DetectorDriver driver(TestInfo info, String suffix) {
    return new DetectorDriver(
        "peers-test",
        LinkHealthDetector::addTo,
        defaults,
        stateDir.resolve(suffix),
        "peers-" + suffix + "-" + info.getDisplayName());
  }

  private static long at(long second) {
    return T0.toEpochMilli() + second * 1000L;
  }

  private static FabricLink link(
      String linkId, String leaf, String leafGuid, int leafPort, long t) {
    return TopologyRecords.link(
        linkId,
        TopologyRecords.end(HOST_GUID, FabricNodeType.CA, "gpu007 mlx5_3", 1, LinkSpeed.NDR),
        TopologyRecords.end(leafGuid, FabricNodeType.SWITCH, leaf, leafPort, LinkSpeed.NDR),
        t);
  }

  private static void sweep(DetectorDriver d, FabricLink link) {
    d.<FabricLink>input(d.topics.topology())
        .pipeInput(link.getLinkId(), link, link.getTime().toEpochMilli());
  }

  /**
   * One sample of a port's link_downed counter at {@code second}, {@code downs} drops since the
   * previous sample {@code intervalS} earlier (none: the first sample).
   */
  private static CounterRates sample(
      RateSource source,
      String node,
      String device,
      int port,
      long second,
      Long intervalS,
      long value,
      long downs) {
    List<CounterRate> rates = new ArrayList<>();
    rates.add(
        CounterRate.newBuilder()
            .setName("link_downed")
            .setValue(value)
            .setDelta(intervalS == null ? null : downs)
            .setPerSecond(intervalS == null ? null : downs / (double) intervalS)
            .setUnit("events")
            .setTag(intervalS == null ? RateTag.first : RateTag.normal)
            .build());
    return CounterRates.newBuilder()
        .setCluster("c1")
        .setNode(node)
        .setBootId(source == RateSource.PERFQUERY ? "switch:" + device : "boot-1")
        .setSeq(second)
        .setTime(Instant.ofEpochMilli(at(second)))
        .setIntervalMs(intervalS == null ? null : intervalS * 1000)
        .setSource(source)
        .setDevice(device)
        .setPort(port)
        .setLinkLayer("InfiniBand")
        .setState("ACTIVE")
        .setRateGbps(400.0)
        .setLinkWidth("4X")
        .setRates(rates)
        .build();
  }

  /** The host port's samples every 10 s to {@code until}: one drop at 60, 120 and 180 s. */
  private static List<CounterRates> hostFlaps(long until) {
    List<CounterRates> out = new ArrayList<>();
    long value = 0;
    for (long s = 0; s <= until; s += 10) {
      long downs = s == 60 || s == 120 || s == 180 ? 1 : 0;
      value += downs;
      out.add(sample(RateSource.PORT, "gpu007", "mlx5_3", 1, s, s == 0 ? null : 10L, value, downs));
    }
    return out;
  }

  /** leaf-07 port 12 read every 60 s to {@code until}: the same drops, one per sweep. */
  private static List<CounterRates> leafFlaps(long until) {
    List<CounterRates> out = new ArrayList<>();
    long value = 0;
    for (long s = 5; s <= until; s += 60) {
      long downs = s == 65 || s == 125 || s == 185 ? 1 : 0;
      value += downs;
      out.add(
          sample(
              RateSource.PERFQUERY,
              "leaf-07",
              LEAF_GUID,
              12,
              s,
              s == 5 ? null : 60L,
              value,
              downs));
    }
    return out;
  }

  private static void pipe(DetectorDriver d, CounterRates r) {
    d.pipe(r.getCluster() + "/" + r.getNode(), r);
  }

  /** Both lists piped in event-time order (the first list first on equal times). */
  private static void pipeInTimeOrder(
      DetectorDriver d, List<CounterRates> a, List<CounterRates> b) {
    List<CounterRates> all = new ArrayList<>(a);
    all.addAll(b);
    all.sort(java.util.Comparator.comparing(CounterRates::getTime));
    all.forEach(r -> pipe(d, r));
  }

  @Test
  void aHostPortFlapNamesTheLeafPortAtTheOtherEndOfItsCable(TestInfo info) {
    try (DetectorDriver d = driver(info, "host")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      hostFlaps(400).forEach(r -> pipe(d, r));
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      for (Alert a : alerts) {
        assertEquals(AlertKind.LINK_FLAP, a.getKind());
        assertEquals("gpu007", a.getNode());
        assertEquals("leaf-07 port 12", a.getLabels().get("peer"));
        assertEquals("leaf-07", a.getLabels().get("peer_node"));
        assertEquals(LEAF_GUID, a.getLabels().get("peer_guid"));
        assertEquals("12", a.getLabels().get("peer_port"));
        assertEquals(LINK, a.getLabels().get("link_id"));
        assertEquals("link-flap", a.getLabels().get("runbook"), "the rule's labels stay");
      }
      assertEquals(AlertState.FIRING, alerts.get(0).getState());
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
      assertEquals(
          alerts.get(0).getLabels().get("incident"), alerts.get(1).getLabels().get("incident"));
    }
  }

  @Test
  void aFlapSeenFromBothEndsIsOneIncidentWhoseAlertsNameEachOther(TestInfo info) {
    try (DetectorDriver d = driver(info, "both")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      pipeInTimeOrder(d, hostFlaps(600), leafFlaps(600));
      List<Alert> firing =
          d.readAlerts().stream().filter(a -> a.getState() == AlertState.FIRING).toList();
      assertEquals(2, firing.size(), firing.toString());
      Alert host = firing.stream().filter(a -> a.getNode().equals("gpu007")).findFirst().get();
      Alert leaf = firing.stream().filter(a -> a.getNode().equals("leaf-07")).findFirst().get();
      assertEquals(Instant.ofEpochMilli(at(180)), host.getStartedAt());
      assertEquals(Instant.ofEpochMilli(at(185)), leaf.getStartedAt());
      assertEquals("leaf-07 port 12", host.getLabels().get("peer"));
      assertEquals("gpu007 mlx5_3 port 1", leaf.getLabels().get("peer"));
      assertEquals(HOST_GUID, leaf.getLabels().get("peer_guid"));
      assertEquals("1", leaf.getLabels().get("peer_port"));
      assertEquals(host.getLabels().get("incident"), leaf.getLabels().get("incident"));
      assertNotEquals(host.getAlertId(), leaf.getAlertId(), "each end keeps its own lifecycle");
    }
  }

  @Test
  void theIncidentIsTheSameWhicheverEndsAlertArrivesFirst(TestInfo info) {
    Map<String, String> hostFirst;
    Map<String, String> leafFirst;
    try (DetectorDriver d = driver(info, "host-first")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      hostFlaps(600).forEach(r -> pipe(d, r));
      leafFlaps(600).forEach(r -> pipe(d, r)); // the leaf's partition lags the host's
      hostFirst = incidents(d.readAlerts());
    }
    try (DetectorDriver d = driver(info, "leaf-first")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      leafFlaps(600).forEach(r -> pipe(d, r));
      hostFlaps(600).forEach(r -> pipe(d, r));
      leafFirst = incidents(d.readAlerts());
    }
    assertEquals(4, hostFirst.size(), hostFirst.toString());
    assertEquals(hostFirst, leafFirst);
    assertEquals(1, hostFirst.values().stream().distinct().count(), hostFirst.toString());
  }

  /** alert_id + state -> incident label. */
  private static Map<String, String> incidents(List<Alert> alerts) {
    Map<String, String> out = new java.util.TreeMap<>();
    alerts.forEach(
        a -> out.put(a.getAlertId() + " " + a.getState(), a.getLabels().get("incident")));
    return out;
  }

  @Test
  void aSecondFlapAnHourLaterHasTheSameKeyButDoesNotOverlapTheFirst(TestInfo info) {
    try (DetectorDriver d = driver(info, "again")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      hostFlaps(600).forEach(r -> pipe(d, r));
      for (CounterRates r : hostFlaps(600)) {
        pipe(
            d,
            CounterRates.newBuilder(r)
                .setTime(r.getTime().plusSeconds(3600))
                .setSeq(r.getSeq() + 3600)
                .build());
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(4, alerts.size(), alerts.toString());
      assertEquals(1, alerts.stream().map(a -> a.getLabels().get("incident")).distinct().count());
      Alert firstResolved = alerts.get(1);
      Alert secondFiring = alerts.get(2);
      assertEquals(AlertState.RESOLVED, firstResolved.getState());
      assertEquals(AlertState.FIRING, secondFiring.getState());
      assertTrue(
          firstResolved.getResolvedAt().isBefore(secondFiring.getStartedAt()),
          "two incidents: the first resolved before the second started");
    }
  }

  @Test
  void theJoinReadsTheCableAsSweptAtTheAlertsTimeNotAsItArrived(TestInfo info) {
    try (DetectorDriver d = driver(info, "recabled")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      // the port is re-cabled to leaf-08 port 3 at +1h; that sweep reaches the pipeline before the
      // host's (lagging) samples of the flap at +3 min
      sweep(d, link(LINK_TO_LEAF8, "leaf-08", LEAF8_GUID, 3, at(3600)));
      d.<FabricLink>input(d.topics.topology()).pipeInput(LINK, null, at(3600));
      hostFlaps(400).forEach(r -> pipe(d, r));
      Alert firing = d.readAlerts().get(0);
      assertEquals("leaf-07 port 12", firing.getLabels().get("peer"));
    }
  }

  @Test
  void aCableTheSweepLostWhileItsPortWasDownStillNamesItsOtherEnd(TestInfo info) {
    try (DetectorDriver d = driver(info, "lost-while-down")) {
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      // iblinkinfo shows no remote end for a down port: the sweep during the second drop loses
      // the cable, the collector tombstones it, the next sweep (link up again) brings it back
      d.<FabricLink>input(d.topics.topology()).pipeInput(LINK, null, at(125));
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(135)));
      d.<FabricLink>input(d.topics.topology()).pipeInput(LINK, null, at(182));
      pipeInTimeOrder(d, hostFlaps(600), leafFlaps(600));
      List<Alert> firing =
          d.readAlerts().stream().filter(a -> a.getState() == AlertState.FIRING).toList();
      assertEquals(2, firing.size(), firing.toString());
      Alert host = firing.stream().filter(a -> a.getNode().equals("gpu007")).findFirst().get();
      Alert leaf = firing.stream().filter(a -> a.getNode().equals("leaf-07")).findFirst().get();
      assertEquals(
          "leaf-07 port 12", host.getLabels().get("peer"), "fired at 180 s, tombstone at 182 s");
      assertEquals(
          "gpu007 mlx5_3 port 1", leaf.getLabels().get("peer"), "fired at 185 s, after it");
      assertEquals(host.getLabels().get("incident"), leaf.getLabels().get("incident"));
    }
  }

  @Test
  void anAlertBeforeTheFirstSweepOfItsCableHasNoPeer(TestInfo info) {
    try (DetectorDriver d = driver(info, "late")) {
      hostFlaps(400).forEach(r -> pipe(d, r));
      // the fabric role's first sweep arrives after the alert: the alert is not re-sent
      sweep(d, link(LINK, "leaf-07", LEAF_GUID, 12, at(-300)));
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      for (Alert a : alerts) {
        assertFalse(a.getLabels().containsKey("peer"), a.toString());
        assertFalse(a.getLabels().containsKey("link_id"), a.toString());
        assertFalse(a.getLabels().containsKey("incident"), a.toString());
      }
    }
  }
}
