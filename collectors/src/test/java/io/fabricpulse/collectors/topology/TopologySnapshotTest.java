package io.fabricpulse.collectors.topology;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.iblinkinfo.IblinkinfoParser;
import io.fabricpulse.collectors.ibnetdiscover.IbnetdiscoverPortsParser;
import io.fabricpulse.collectors.ibnetdiscover.IbnetdiscoverTopologyParser;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologySnapshotTest {
  private static final String LINKINFO = "iblinkinfo/ibsim-iblinkinfo-leaf01-spine01-1x.txt";
  private static final String PORTS = "ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt";
  private static final String TOPOLOGY = "ibnetdiscover/ibsim-ibnetdiscover-leaf01-spine01-1x.txt";
  private static final String EDR =
      "ibnetdiscover/treydock-ibnetdiscover-p-edr-unconnected-4x-unknown.txt";
  private static final Instant T = Instant.parse("2026-12-01T11:34:24Z");
  private static final String ISL = "c1/0x0000000000200000:8<->0x0000000000200002:2";

  private static TopologySweep sweep(TopologySource source) {
    return new TopologySweep("c1", "sm01", source, 7L, T);
  }

  private static TopologySnapshot fromIblinkinfo() {
    ParseResult<TopologySnapshot> result =
        TopologySnapshot.of(
            sweep(TopologySource.IBLINKINFO),
            LINKINFO,
            new IblinkinfoParser().parse(LINKINFO, read(LINKINFO)).records());
    assertEquals(List.of(), result.malformed());
    return result.records().get(0);
  }

  @Test
  void iblinkinfoGivesOneLinkPerCableWithTheDegradedIslNamedByBothEnds() {
    TopologySnapshot snapshot = fromIblinkinfo();

    assertEquals(
        List.of(
            "c1/0x0000000000100001:1<->0x0000000000200000:1",
            "c1/0x0000000000100003:1<->0x0000000000200000:2",
            "c1/0x0000000000100005:1<->0x0000000000200001:1",
            "c1/0x0000000000200000:7<->0x0000000000200002:1",
            ISL,
            "c1/0x0000000000200001:7<->0x0000000000200002:3"),
        List.copyOf(snapshot.links().keySet()));
    FabricLink isl = snapshot.links().get(ISL);
    assertEquals(
        new LinkPort(
            "0x0000000000200000", FabricNodeType.SWITCH, "leaf01", 1, 8, null, 1, LinkSpeed.SDR),
        isl.getEndA());
    assertEquals(
        new LinkPort(
            "0x0000000000200002", FabricNodeType.SWITCH, "spine01", 4, 2, null, 1, LinkSpeed.SDR),
        isl.getEndB());
    assertEquals(12, isl.getPossibleWidth());
    assertEquals(LinkSpeed.QDR, isl.getPossibleSpeed());
    assertEquals("sm01", isl.getObservedBy());
    assertEquals(7L, isl.getSweepSeq());
    assertEquals(T, isl.getTime());
    assertEquals(TopologySource.IBLINKINFO, isl.getSource());
    FabricLink host = snapshot.links().get("c1/0x0000000000100005:1<->0x0000000000200001:1");
    assertEquals("gpu003 mlx5_0", host.getEndA().getNodeDescription());
    assertEquals(FabricNodeType.CA, host.getEndA().getNodeType());
    assertEquals(6, host.getEndA().getLid());
    assertEquals("leaf02", host.getEndB().getNodeDescription());
  }

  @Test
  void theThreeLayoutsOfTheSameFabricGiveTheSameLinks() {
    TopologySnapshot linkinfo = fromIblinkinfo();
    TopologySnapshot ports =
        TopologySnapshot.of(
                sweep(TopologySource.IBNETDISCOVER),
                PORTS,
                new IbnetdiscoverPortsParser().parse(PORTS, read(PORTS)).records())
            .records()
            .get(0);
    TopologySnapshot topology =
        TopologySnapshot.of(
                sweep(TopologySource.IBNETDISCOVER),
                TOPOLOGY,
                new IbnetdiscoverTopologyParser().parse(TOPOLOGY, read(TOPOLOGY)).records())
            .records()
            .get(0);

    assertEquals(linkinfo.links().keySet(), ports.links().keySet());
    assertEquals(linkinfo.links().keySet(), topology.links().keySet());
    for (String id : linkinfo.links().keySet()) {
      assertEquals(linkinfo.links().get(id).getEndA(), ports.links().get(id).getEndA(), id);
      assertEquals(linkinfo.links().get(id).getEndB(), topology.links().get(id).getEndB(), id);
    }
    assertNull(ports.links().get(ISL).getPossibleWidth(), "ibnetdiscover has no 'Could be'");
  }

  @Test
  void aLinkSeenFromOneEndOnlyKeepsWhatThatEndSaid() {
    ParseResult<TopologySnapshot> result =
        TopologySnapshot.of(
            sweep(TopologySource.IBNETDISCOVER),
            EDR,
            new IbnetdiscoverPortsParser().parse(EDR, read(EDR)).records());

    assertEquals(List.of(), result.malformed());
    TopologySnapshot snapshot = result.records().get(0);
    assertEquals(4, snapshot.links().size(), "3 HCA links seen from both ends, 1 ISL, 2 unlinked");
    FabricLink isl = snapshot.links().get("c1/0x7cfe9003009ce5b0:1<->0x7cfe900300b07320:1");
    assertEquals("ib-i1l1s01", isl.getEndA().getNodeDescription());
    assertEquals(4, isl.getEndA().getWidth());
    assertEquals(LinkSpeed.EDR, isl.getEndA().getSpeed());
    assertEquals("ib-i1l2s01", isl.getEndB().getNodeDescription());
    assertEquals(1516, isl.getEndB().getLid());
    assertNull(isl.getEndB().getWidth(), "its own line is not in the capture");
  }

  @Test
  void aFarEndWithoutGuidAndWithoutItsOwnLineIsReported() {
    String partial = String.join("\n", read(LINKINFO).lines().limit(2).toList());
    ParseResult<TopologySnapshot> result =
        TopologySnapshot.of(
            sweep(TopologySource.IBLINKINFO),
            "partial",
            new IblinkinfoParser().parse("partial", partial).records());

    assertEquals(1, result.malformed().size());
    assertEquals(2L, result.malformed().get(0).line());
    assertEquals(
        "no GUID for the far end of gpu003 mlx5_0 port 1: leaf02 port 1",
        result.malformed().get(0).reason());
    assertEquals(0, result.records().get(0).links().size());
  }
}
