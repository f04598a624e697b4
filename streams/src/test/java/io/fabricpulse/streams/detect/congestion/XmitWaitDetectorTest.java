package io.fabricpulse.streams.detect.congestion;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Congestion on switch ports, from the fabric role's perfquery sweeps every 5 minutes: ISL leaf-07
 * port 33 <-> spine-01 port 7 on NDR (400 Gb/s at 4X), Quantum-2 switches (one xmit_wait tick = 8
 * bytes [IBDIAG-cong]). At 400 Gb/s, losing a quarter of the bandwidth (100 Gb/s) is 1.5625e9
 * ticks/s; the rule fires at 10 % (6.25e8 ticks/s) held for two sweeps.
 */
class XmitWaitDetectorTest extends DetectorStories {
  private static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  private static final long SWEEP_S = 300;
  private static final String LEAF_GUID = "0x0002c90300a1b200";
  private static final String SPINE_GUID = "0x0002c90300a1c100";
  private static final String ISL = "c1/" + LEAF_GUID + ":33<->" + SPINE_GUID + ":7";

  private DetectorDriver driver(TestInfo info) {
    return new DetectorDriver(
        "congestion-test",
        XmitWaitDetector::addTo,
        defaults,
        stateDir,
        "congestion-" + info.getDisplayName());
  }

  private static Instant at(long sweep) {
    return T0.plusSeconds(sweep * SWEEP_S);
  }

  /** Sweep {@code n} of leaf-07 port 33: xmit_wait at {@code ticksPerSecond} since sweep n-1. */
  private static CounterRates sweep(RateSource source, int n, double ticksPerSecond, RateTag tag) {
    boolean first = n == 0;
    long delta = Math.round(ticksPerSecond * SWEEP_S);
    CounterRate wait =
        CounterRate.newBuilder()
            .setName("port_xmit_wait")
            .setValue(first ? 0 : delta * n)
            .setDelta(first ? null : delta)
            .setPerSecond(first || tag != RateTag.normal ? null : ticksPerSecond)
            .setUnit("ticks")
            .setTag(first ? RateTag.first : tag)
            .build();
    return CounterRates.newBuilder()
        .setCluster("c1")
        .setNode("leaf-07")
        .setBootId("switch:" + LEAF_GUID)
        .setSeq(n)
        .setTime(at(n))
        .setIntervalMs(first ? null : SWEEP_S * 1000)
        .setSource(source)
        .setDevice(LEAF_GUID)
        .setPort(33)
        .setLinkLayer("InfiniBand")
        .setState("ACTIVE")
        .setRateGbps(400.0)
        .setLinkWidth("4X")
        .setRates(List.of(wait))
        .build();
  }

  private static void pipeSweeps(DetectorDriver d, double... ticksPerSecond) {
    for (int n = 0; n < ticksPerSecond.length; n++) {
      CounterRates r = sweep(RateSource.PERFQUERY, n, ticksPerSecond[n], RateTag.normal);
      d.pipe("c1/leaf-07", r);
    }
  }

  private static void sweepTopology(DetectorDriver d) {
    FabricLink link =
        FabricLink.newBuilder()
            .setCluster("c1")
            .setLinkId(ISL)
            .setObservedBy("sm01")
            .setSource(TopologySource.IBNETDISCOVER)
            .setSweepSeq(0)
            .setTime(T0.minusSeconds(60))
            .setEndA(end(LEAF_GUID, "leaf-07", 33))
            .setEndB(end(SPINE_GUID, "spine-01", 7))
            .build();
    d.<FabricLink>input(d.topics.topology()).pipeInput(ISL, link, link.getTime().toEpochMilli());
  }

  private static LinkPort end(String guid, String name, int port) {
    return LinkPort.newBuilder()
        .setGuid(guid)
        .setNodeType(FabricNodeType.SWITCH)
        .setNodeDescription(name)
        .setPort(port)
        .setWidth(4)
        .setSpeed(LinkSpeed.NDR)
        .build();
  }

  @Test
  void anIslLosingAQuarterOfItsBandwidthForThreeSweepsIsOneXmitWaitNamingTheSpinePort(
      TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      sweepTopology(d);
      // 1 idle sweep, 3 congested (25 %), then clean again for 15 minutes
      pipeSweeps(d, 0, 1000, 1.5625e9, 1.5625e9, 1.5625e9, 2000, 0, 0, 0);
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(AlertKind.XMIT_WAIT, firing.getKind());
      assertEquals("switch-xmit-wait", firing.getRule());
      assertEquals("leaf-07", firing.getNode());
      assertEquals(LEAF_GUID, firing.getDevice());
      assertEquals(33, firing.getPort());
      assertEquals(at(2), firing.getStartedAt(), "the first of the two congested sweeps");
      assertEquals(0.25, firing.getValue(), 1e-9);
      assertEquals(0.1, firing.getThreshold());
      assertEquals("ratio", firing.getUnit());
      assertEquals("100.000", firing.getEvidence().get("lost_gbps"));
      assertEquals("25.0 % >= 10.0 %", firing.getEvidence().get("wait_ratio"));
      assertEquals(
          "leaf-07 "
              + LEAF_GUID
              + ":33 lost 25.0 % of its bandwidth waiting to transmit"
              + " (1.56250e+09 xmit_wait ticks/s at 400.000 Gb/s; threshold 10.0 %)",
          firing.getSummary());
      assertEquals("spine-01 port 7", firing.getLabels().get(LinkPeers.PEER));
      assertEquals(SPINE_GUID, firing.getLabels().get(LinkPeers.PEER_GUID));
      assertEquals("7", firing.getLabels().get(LinkPeers.PEER_PORT));
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(firing.getAlertId(), resolved.getAlertId());
      assertEquals(at(6), resolved.getResolvedAt(), "first clean sweep (5) + 5 min hysteresis");
    }
  }

  @Test
  void oneCongestedSweepIsABurstAndStaysSilent(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      pipeSweeps(d, 0, 1.5625e9, 0, 1.5625e9, 0, 0);
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void aPortLosingFivePercentStaysSilent(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      pipeSweeps(d, 0, 3.125e8, 3.125e8, 3.125e8, 3.125e8);
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void aClearedCounterBetweenTwoCongestedSweepsIsNotJudged(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      d.pipe("c1/leaf-07", sweep(RateSource.PERFQUERY, 0, 0, RateTag.normal));
      d.pipe("c1/leaf-07", sweep(RateSource.PERFQUERY, 1, 1.5625e9, RateTag.normal));
      // someone ran perfquery -R on the port: the rate stage tags the sweep clear, no rate
      d.pipe("c1/leaf-07", sweep(RateSource.PERFQUERY, 2, 1.5625e9, RateTag.clear));
      d.pipe("c1/leaf-07", sweep(RateSource.PERFQUERY, 3, 1.5625e9, RateTag.normal));
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(at(1), alerts.get(0).getStartedAt());
    }
  }

  @Test
  void aHostPortsXmitWaitIsNotThisDetectorsBusiness(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      for (int n = 0; n < 5; n++) {
        d.pipe("c1/leaf-07", sweep(RateSource.PORT, n, 1.5625e9, RateTag.normal));
      }
      assertEquals(List.of(), d.readAlerts());
    }
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (DetectorDriver d = driver(info)) {
      assertNamed(
          d.topology,
          List.of(
              "source-fabric-rates",
              "rates-per-port",
              "congestion-switch-ports-only",
              XmitWaitDetector.PROCESSOR,
              XmitWaitDetector.TRACKER_STORE,
              "congestion-alerts-by-port-repartition",
              "congestion-peer-join",
              LinkPeers.INDEXER,
              LinkPeers.BY_PORT_TOPIC + "-repartition",
              LinkPeers.TABLE_STORE,
              "congestion-to-alerts",
              "congestion-to-alerts-active",
              "congestion-sink-dlq"));
    }
  }
}
