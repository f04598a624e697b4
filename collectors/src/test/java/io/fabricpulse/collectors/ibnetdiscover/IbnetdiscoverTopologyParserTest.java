package io.fabricpulse.collectors.ibnetdiscover;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbnetdiscoverTopologyParserTest {
  private static final String IBSIM = "ibnetdiscover/ibsim-ibnetdiscover-leaf01-spine01-1x.txt";
  private final IbnetdiscoverTopologyParser parser = new IbnetdiscoverTopologyParser();

  @Test
  void everyLinkedPortOfEveryNodeWithBothLids() {
    ParseResult<PortLink> result = parser.parse(IBSIM, read(IBSIM));

    assertEquals(List.of(), result.malformed());
    // leaf02 2, spine01 3, leaf01 4 linked ports, and one port on each of the 3 HCAs.
    assertEquals(12, result.records().size());
    PortLink narrow =
        result.records().stream().filter(l -> l.width() == 1).findFirst().orElseThrow();
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200002", "spine01", 4, 2), narrow.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200000", "leaf01", 1, 8), narrow.remote());
    assertEquals(IbSpeed.SDR, narrow.speed());
    assertEquals(20L, narrow.line());
  }

  @Test
  void caEndsCarryTheirPortGuidAsIbnetdiscoverPortsDoes() {
    ParseResult<PortLink> result = parser.parse(IBSIM, read(IBSIM));

    PortLink leafToHost = result.records().get(0);
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200001", "leaf02", 3, 1), leafToHost.local());
    assertEquals(
        new LinkEnd(NodeType.CA, "0x0000000000100005", "gpu003 mlx5_0", 6, 1), leafToHost.remote());
    PortLink hostToLeaf =
        result.records().stream()
            .filter(l -> l.local().type() == NodeType.CA)
            .findFirst()
            .orElseThrow();
    assertEquals(
        new LinkEnd(NodeType.CA, "0x0000000000100005", "gpu003 mlx5_0", 6, 1), hostToLeaf.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200001", "leaf02", 3, 1), hostToLeaf.remote());
    assertEquals(4, hostToLeaf.width());
  }

  @Test
  void portLinesNeedANodeAndAComment() {
    ParseResult<PortLink> result =
        parser.parse(
            "bad",
            "[1]\t\"S-0000000000200002\"[3]\t\t# \"spine01\" lid 4 4xSDR\n"
                + "Switch\t8 \"S-0000000000200001\"\t\t# \"leaf02\" base port 0 lid 3 lmc 0\n"
                + "[7]\t\"S-0000000000200002\"[3]\t\t# \"spine01\" 4xSDR\n"
                + "[8]\t\"spine-by-name\"[4]\t\t# \"spine01\" lid 4 4xEDR\n");

    assertEquals(List.of(1L, 3L), result.malformed().stream().map(Malformed::line).toList());
    PortLink mapped = result.records().get(0);
    assertEquals(
        new LinkEnd(null, null, "spine01", 4, 4),
        mapped.remote(),
        "a node-name-map name has no GUID");
    assertEquals(IbSpeed.EDR, mapped.speed());
  }

  @Test
  void ibdiagnetsCopyLabelsQuantum2SwitchPortsInParentheses() {
    String file = "ibdiagnet/gary-minghuili-ibdiagnet2-ibnetdiscover-ndr-excerpt.ibnetdiscover";
    ParseResult<PortLink> result = parser.parse(file, read(file));

    assertEquals(List.of(), result.malformed());
    assertEquals(41, result.records().size(), "8 spine ports, 32 host ports and the leaf uplink");
    PortLink spineToLeaf = result.records().get(0);
    assertEquals(
        new LinkEnd(
            NodeType.SWITCH, "0xb0cf0e0300d33fc0", "MF0;ib-switch-sequoia:MQM9700/U1", 180, 1),
        spineToLeaf.local(),
        "[1](1/1/1): the label is no port GUID");
    assertEquals(
        new LinkEnd(
            NodeType.SWITCH, "0xfc6a1c030091cf00", "Quantum-2 Mellanox Technologies", 13, 63),
        spineToLeaf.remote());
    assertEquals(IbSpeed.NDR, spineToLeaf.speed());
    PortLink host = result.records().get(8);
    assertEquals(
        new LinkEnd(NodeType.CA, "0x5c25730300e6706e", "is-north-7-compute-1 mlx5_8", 164, 1),
        host.remote());
    assertEquals(1, host.local().port());
  }
}
