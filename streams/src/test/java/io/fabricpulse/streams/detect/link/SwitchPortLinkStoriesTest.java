package io.fabricpulse.streams.detect.link;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.PortRates;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * Switch ports under the link rules: the fabric role sweeps every switch's ports with perfquery
 * every 5 minutes (fabric.raw.switch-counters), the rate stage rates them as PERFQUERY, and the
 * link detectors judge them like host ports (node = the switch, device = its GUID).
 */
class SwitchPortLinkStoriesTest {
  private static final long SWEEP_MS = 300_000;
  private static final String SPINE = "spine01";
  private static final String SPINE_GUID = "0x0000000000200002";
  private static final String LEAF = "leaf01";
  private static final String LEAF_GUID = "0x0000000000200000";

  private static RuleSet defaults;
  @TempDir Path stateDir;

  @BeforeAll
  static void loadDefaultRules() throws Exception {
    defaults = RuleSet.load(RepoPaths.alertRules());
  }

  private LinkDriver driver(TestInfo info) {
    return new LinkDriver(defaults, stateDir, "switch-link-" + info.getDisplayName());
  }

  private static Instant at(long minute) {
    return Instant.ofEpochMilli(PortRates.T0 + minute * 60_000L);
  }

  /**
   * One sweep's rates of a switch port, as the rate stage emits them for a PERFQUERY record: sweep
   * {@code n} at minute 5n, counters rising by the given deltas since the last sweep (the first
   * sweep is tagged first).
   */
  private static CounterRates sweep(
      String node, String guid, int port, int n, long symbolErrors, long linkDowned) {
    List<CounterRate> rates = new ArrayList<>();
    rates.add(rate("symbol_error", symbolErrors, n));
    rates.add(rate("link_downed", linkDowned, n));
    rates.add(rate("link_error_recovery", 0, n));
    return CounterRates.newBuilder()
        .setCluster(PortRates.CLUSTER)
        .setNode(node)
        .setBootId("switch:" + guid)
        .setSeq(n)
        .setTime(at(5L * n))
        .setIntervalMs(n == 0 ? null : SWEEP_MS)
        .setSource(RateSource.PERFQUERY)
        .setDevice(guid)
        .setPort(port)
        .setLinkLayer("InfiniBand")
        .setState("ACTIVE")
        .setRateGbps(400.0)
        .setLinkWidth("4X")
        .setRates(rates)
        .build();
  }

  private static CounterRate rate(String name, long delta, int n) {
    boolean first = n == 0;
    return CounterRate.newBuilder()
        .setName(name)
        .setValue(first ? 0 : delta)
        .setDelta(first ? null : delta)
        .setPerSecond(first ? null : delta * 1000.0 / SWEEP_MS)
        .setUnit("events")
        .setTag(first ? RateTag.first : RateTag.normal)
        .build();
  }

  private static void pipe(LinkDriver d, CounterRates r) {
    d.pipe(r.getCluster() + "/" + r.getNode(), r);
  }

  @Test
  void aDirtySpineLinkWithRisingSymbolErrorsIsOnePhyErrorsAlertOnTheSpinePort(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      long[] symbolErrors = {0, 10, 40, 90, 0, 0};
      for (int n = 0; n < symbolErrors.length; n++) {
        pipe(d, sweep(SPINE, SPINE_GUID, 2, n, symbolErrors[n], 0));
        pipe(d, sweep(LEAF, LEAF_GUID, 8, n, 0, 0)); // the other end of the ISL stays clean
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertState.FIRING, firing.getState());
      assertEquals(AlertKind.PHY_ERRORS, firing.getKind());
      assertEquals(SPINE, firing.getNode());
      assertEquals(SPINE_GUID, firing.getDevice());
      assertEquals(2, firing.getPort());
      assertEquals(at(15), firing.getStartedAt(), "10 + 40 + 90 = 140 in the hour, over 120/h");
      assertEquals(140.0, firing.getValue());
      assertEquals("140/h > 120/h", firing.getEvidence().get("symbol_error_per_hour"));
    }
  }

  @Test
  void aLeafPortThatDroppedThreeTimesBetweenTwoSweepsIsOneLinkFlap(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      long[] drops = {0, 0, 3, 0, 0};
      for (int n = 0; n < drops.length; n++) {
        pipe(d, sweep(LEAF, LEAF_GUID, 12, n, 0, drops[n]));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert firing = alerts.get(0);
      assertEquals(AlertKind.LINK_FLAP, firing.getKind());
      assertEquals(LEAF, firing.getNode());
      assertEquals(LEAF_GUID, firing.getDevice());
      assertEquals(12, firing.getPort());
      assertEquals(at(10), firing.getStartedAt());
      assertEquals("3", firing.getEvidence().get("link_downed_increases"));
      assertEquals(AlertState.RESOLVED, alerts.get(1).getState());
    }
  }

  @Test
  void aCleanSwitchStaysSilent(TestInfo info) {
    try (LinkDriver d = driver(info)) {
      for (int n = 0; n < 12; n++) {
        pipe(d, sweep(LEAF, LEAF_GUID, 12, n, 0, 0));
        pipe(d, sweep(SPINE, SPINE_GUID, 2, n, 0, 0));
      }
      assertEquals(List.of(), d.readAlerts());
    }
  }
}
