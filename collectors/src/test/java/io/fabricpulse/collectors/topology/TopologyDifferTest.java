package io.fabricpulse.collectors.topology;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.ibnetdiscover.IbnetdiscoverPortsParser;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two sweeps of the ibsim fabric of ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt. The
 * earlier sweep is the same capture edited in memory to what the fabric looked like five minutes
 * before: the leaf01/spine01 ISL still at 4x, gpu003 not yet cabled; in the later one gpu002's
 * cable has been pulled (its two lines removed).
 */
class TopologyDifferTest {
  private static final String PORTS = "ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt";
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");
  private static final Instant T1 = Instant.parse("2026-12-01T11:35:00Z");
  private static final String ISL = "c1/0x0000000000200000:8<->0x0000000000200002:2";
  private static final String GPU002 = "c1/0x0000000000100003:1<->0x0000000000200000:2";
  private static final String GPU003 = "c1/0x0000000000100005:1<->0x0000000000200001:1";

  private static TopologySnapshot snapshot(long seq, Instant time, String text) {
    return TopologySnapshot.of(
            new TopologySweep("c1", "sm01", TopologySource.IBNETDISCOVER, seq, time),
            PORTS,
            new IbnetdiscoverPortsParser().parse(PORTS, text).records())
        .records()
        .get(0);
  }

  private static String without(String text, String guid) {
    return text.lines().filter(l -> !l.contains(guid)).collect(Collectors.joining("\n"));
  }

  private static TopologySnapshot before() {
    String islAt4x = read(PORTS).replace(" 1x SDR - ", " 4x SDR - ");
    return snapshot(1L, T0, without(islAt4x, "0x0000000000100005"));
  }

  private static TopologySnapshot after() {
    return snapshot(2L, T1, without(read(PORTS), "0x0000000000100003"));
  }

  @Test
  void anIslDegradesToOneLaneACableIsPulledAndAHostIsCabled() {
    TopologyDiff diff = TopologyDiffer.diff(before(), after());

    List<FabricLinkChange> changes = diff.changes();
    assertEquals(
        List.of(GPU002, GPU003, ISL), changes.stream().map(FabricLinkChange::getLinkId).toList());
    FabricLinkChange pulled = changes.get(0);
    assertEquals(LinkChangeKind.DISAPPEARED, pulled.getChange());
    assertEquals("gpu002 mlx5_0", pulled.getBefore().getEndA().getNodeDescription());
    assertNull(pulled.getAfter());
    FabricLinkChange cabled = changes.get(1);
    assertEquals(LinkChangeKind.APPEARED, cabled.getChange());
    assertNull(cabled.getBefore());
    assertEquals("leaf02", cabled.getAfter().getEndB().getNodeDescription());
    FabricLinkChange degraded = changes.get(2);
    assertEquals(LinkChangeKind.RENEGOTIATED, degraded.getChange());
    assertEquals(4, degraded.getBefore().getEndA().getWidth());
    assertEquals(1, degraded.getAfter().getEndA().getWidth());
    assertEquals(1, degraded.getAfter().getEndB().getWidth());
    assertEquals("leaf01", degraded.getAfter().getEndA().getNodeDescription());
    assertEquals("spine01", degraded.getAfter().getEndB().getNodeDescription());
    for (FabricLinkChange change : changes) {
      assertEquals(T1, change.getTime());
      assertEquals(T0, change.getPreviousTime());
      assertEquals(2L, change.getSweepSeq());
      assertEquals("sm01", change.getObservedBy());
    }

    assertEquals(List.of(GPU002), diff.removed());
    assertEquals(
        List.of(GPU003, ISL),
        diff.upserts().stream().map(FabricLink::getLinkId).toList(),
        "unchanged links are not republished");
  }

  @Test
  void theSameFabricAgainChangesNothing() {
    TopologyDiff diff =
        TopologyDiffer.diff(
            after(), snapshot(3L, T1.plusSeconds(300), without(read(PORTS), "0x0000000000100003")));

    assertEquals(List.of(), diff.changes());
    assertEquals(List.of(), diff.upserts());
    assertEquals(List.of(), diff.removed());
  }

  @Test
  void aNewLidIsAnUpdateNotAChange() {
    String relidded =
        read(PORTS).replace("SW     4 ", "SW    40 ").replace("SW     4  ", "SW    40  ");
    TopologyDiff diff =
        TopologyDiffer.diff(snapshot(1L, T0, read(PORTS)), snapshot(2L, T1, relidded));

    assertEquals(List.of(), diff.changes());
    assertEquals(3, diff.upserts().size(), "the three links with a spine01 end");
    assertEquals(40, diff.upserts().get(0).getEndB().getLid());
  }

  @Test
  void theFirstSweepPublishesEveryLinkAndNoChange() {
    TopologyDiff diff = TopologyDiffer.baseline(after());

    assertEquals(5, diff.upserts().size());
    assertEquals(List.of(), diff.changes());
    assertEquals(List.of(), diff.removed());
  }
}
