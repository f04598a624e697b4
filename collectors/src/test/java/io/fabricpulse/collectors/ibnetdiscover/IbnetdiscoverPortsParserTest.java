package io.fabricpulse.collectors.ibnetdiscover;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbnetdiscoverPortsParserTest {
  private static final String EDR =
      "ibnetdiscover/treydock-ibnetdiscover-p-edr-unconnected-4x-unknown.txt";
  private static final String HDR =
      "ibnetdiscover/treydock-ibnetdiscover-p-hdr-padded-descriptions.txt";
  private static final String QDR =
      "ibnetdiscover/treydock-ibnetdiscover-p-qdr-unquoted-description.txt";
  private static final String IBSIM = "ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt";
  private final IbnetdiscoverPortsParser parser = new IbnetdiscoverPortsParser();

  @Test
  void edrFabricLinksBothEndsAndAnUnconnectedPortWithUnknownSpeed() {
    ParseResult<PortLink> result = parser.parse(EDR, read(EDR));

    assertEquals(List.of(), result.malformed());
    assertEquals(9, result.records().size());
    PortLink hca = result.records().get(0);
    assertEquals(
        new LinkEnd(NodeType.CA, "0x7cfe9003003b4bde", "o0001 HCA-1", 134, 1), hca.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x7cfe9003009ce5b0", "ib-i1l1s01", 1719, 10), hca.remote());
    assertEquals(4, hca.width());
    assertEquals(IbSpeed.EDR, hca.speed());
    PortLink isl = result.records().get(5);
    assertEquals("ib-i1l2s01", isl.remote().nodeDescription());
    assertEquals(NodeType.SWITCH, isl.remote().type());
    assertEquals(1516, isl.remote().lid());

    PortLink unconnected = result.records().get(7);
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x506b4b03005c2740", "ib-i4l1s01", 2052, 37),
        unconnected.local());
    assertTrue(!unconnected.connected());
    assertEquals(4, unconnected.width(), "4x ???: the width is printed");
    assertNull(unconnected.speed(), "4x ???: the speed of a port without link is unknown");
    assertEquals(8L, unconnected.line());
    PortLink sdrUnconnected = result.records().get(8);
    assertEquals(IbSpeed.SDR, sdrUnconnected.speed());
    assertEquals(80, sdrUnconnected.local().port());
  }

  @Test
  void paddedNodeDescriptionsAreTrimmed() {
    ParseResult<PortLink> result = parser.parse(HDR, read(HDR));

    assertEquals(List.of(), result.malformed());
    assertEquals(5, result.records().size());
    PortLink worker = result.records().get(1);
    assertEquals("worker20 mlx5_3", worker.local().nodeDescription());
    assertEquals("5FB0405-leaf-IB01", worker.remote().nodeDescription());
    assertEquals(79, worker.remote().port());
    assertEquals(IbSpeed.HDR, worker.speed());
    assertEquals("5FB0406-spine-IB02", result.records().get(3).local().nodeDescription());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x946dae030053ec1a", "5FB0406-spine-IB03", 9, 81),
        result.records().get(4).local());
    assertEquals(
        "Mellanox Technologies Aggregation Node",
        result.records().get(4).remote().nodeDescription());
  }

  @Test
  void oldVersionsPrintTheDescriptionUnquoted() {
    ParseResult<PortLink> result = parser.parse(QDR, read(QDR));

    assertEquals(List.of(), result.malformed());
    PortLink port = result.records().get(0);
    assertEquals(
        new LinkEnd(
            NodeType.SWITCH, "0x0002c9020040f161", "Infiniscale-IV Mellanox Technologies", 479, 22),
        port.local());
    assertEquals(IbSpeed.QDR, port.speed());
    assertNull(port.remote());
  }

  @Test
  void aWidthMismatchIsNamedWithBothEnds() {
    ParseResult<PortLink> result = parser.parse(IBSIM, read(IBSIM));

    assertEquals(List.of(), result.malformed());
    assertEquals(27, result.records().size());
    List<PortLink> narrow = result.records().stream().filter(l -> l.width() == 1).toList();
    assertEquals(2, narrow.size(), "the 1x ISL, once from each end");
    PortLink fromSpine = narrow.get(0);
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200002", "spine01", 4, 2), fromSpine.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200000", "leaf01", 1, 8), fromSpine.remote());
    assertEquals(IbSpeed.SDR, fromSpine.speed());
    assertEquals("spine01 port 2", fromSpine.local().label());
    assertEquals("leaf01 port 8", fromSpine.remote().label());
    assertEquals(fromSpine.local(), narrow.get(1).remote());
    // ibsim prints the enabled speed for a port without a link where real switches print ???.
    PortLink down = result.records().get(1);
    assertEquals(8, down.local().port());
    assertNull(down.remote());
    assertEquals(IbSpeed.SDR, down.speed());
    assertEquals(
        new LinkEnd(NodeType.CA, "0x0000000000100005", "gpu003 mlx5_0", 6, 1),
        result.records().get(0).local());
  }

  @Test
  void malformedLinesAreSkippedWithTheirLineNumbers() {
    ParseResult<PortLink> result =
        parser.parse("bad", resource("ibnetdiscover/ibnetdiscover-p-malformed-synthetic.txt"));

    assertEquals(List.of(1L, 2L, 4L), result.malformed().stream().map(Malformed::line).toList());
    assertTrue(result.malformed().get(1).reason().contains("not a link width: 3x"));
    assertEquals(1, result.records().size());
    assertEquals(7, result.records().get(0).local().port());
  }

  @Test
  void garbageNeverThrows() {
    ParseResult<PortLink> result =
        parser.parse("x", "\u0000\nSW 1 2\n'''\nCA 99999999 1 0x1 4x EDR a");

    assertEquals(List.of(), result.records());
    assertEquals(4, result.malformed().size());
  }
}
