package io.fabricpulse.collectors.iblinkinfo;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.List;
import org.junit.jupiter.api.Test;

class IblinkinfoParserTest {
  private static final String DEFAULT = "iblinkinfo/ibsim-iblinkinfo-leaf01-spine01-1x.txt";
  private static final String ONE_LINE = "iblinkinfo/ibsim-iblinkinfo-l-leaf01-spine01-1x.txt";
  private final IblinkinfoParser parser = new IblinkinfoParser();

  @Test
  void aWidthMismatchNamedWithBothEndsAndWhatTheLinkCouldBe() {
    ParseResult<PortLink> result = parser.parse(DEFAULT, read(DEFAULT));

    assertEquals(List.of(), result.malformed());
    assertEquals(27, result.records().size(), "3 HCA ports and 3 x 8 switch ports");
    List<PortLink> narrow =
        result.records().stream().filter(l -> Integer.valueOf(1).equals(l.width())).toList();
    assertEquals(2, narrow.size());
    PortLink fromSpine = narrow.get(0);
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200002", "spine01", 4, 2), fromSpine.local());
    assertEquals(new LinkEnd(null, null, "leaf01", 1, 8), fromSpine.remote());
    assertEquals(IbSpeed.SDR, fromSpine.speed(), "2.5 Gbps per lane");
    assertEquals("Active", fromSpine.state());
    assertEquals("LinkUp", fromSpine.physicalState());
    assertEquals(12, fromSpine.possibleWidth(), "Could be 12X");
    assertEquals(IbSpeed.QDR, fromSpine.possibleSpeed(), "Could be 10.0 Gbps");
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200000", "leaf01", 1, 8), narrow.get(1).local());
    assertEquals("spine01", narrow.get(1).remote().nodeDescription());
  }

  @Test
  void hcaPortsAndPortsWithoutLink() {
    ParseResult<PortLink> result = parser.parse(DEFAULT, read(DEFAULT));

    PortLink hca = result.records().get(0);
    assertEquals(
        new LinkEnd(NodeType.CA, "0x0000000000100005", "gpu003 mlx5_0", 6, 1), hca.local());
    assertEquals(new LinkEnd(null, null, "leaf02", 3, 1), hca.remote());
    assertEquals(4, hca.width());
    PortLink down = result.records().get(2);
    assertEquals(new LinkEnd(NodeType.SWITCH, "0x0000000000200001", "leaf02", 3, 2), down.local());
    assertNull(down.remote());
    assertEquals("Down", down.state());
    assertEquals("Polling", down.physicalState());
    assertNull(down.width());
    assertNull(down.speed());
    assertEquals(5L, down.line());
  }

  @Test
  void theOneLineLayoutCarriesBothGuids() {
    ParseResult<PortLink> result = parser.parse(ONE_LINE, read(ONE_LINE));

    assertEquals(List.of(), result.malformed());
    assertEquals(27, result.records().size());
    PortLink fromSpine = result.records().get(10);
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200002", "spine01", 4, 2), fromSpine.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x0000000000200000", "leaf01", 1, 8), fromSpine.remote());
    assertEquals(1, fromSpine.width());
    assertEquals(
        "gpu003 mlx5_0",
        result.records().get(0).local().nodeDescription(),
        "the right-aligned description is trimmed");
  }

  @Test
  void theOneLineLayoutTypesMultiPortGuidsAsSwitchesAndTheirSinglePortPeersAsCas() {
    ParseResult<PortLink> result = parser.parse(ONE_LINE, read(ONE_LINE));

    PortLink hca = result.records().get(0);
    assertEquals(
        new LinkEnd(NodeType.CA, "0x0000000000100005", "gpu003 mlx5_0", 6, 1), hca.local());
    assertEquals(new LinkEnd(NodeType.SWITCH, "0x0000000000200001", "leaf02", 3, 1), hca.remote());
    assertEquals(
        3,
        result.records().stream().filter(l -> l.local().type() == NodeType.CA).count(),
        "gpu001, gpu002, gpu003");
    assertEquals(
        24,
        result.records().stream().filter(l -> l.local().type() == NodeType.SWITCH).count(),
        "3 switches x 8 ports");
  }

  @Test
  void malformedLinesAreSkippedWithTheirLineNumbers() {
    ParseResult<PortLink> result =
        parser.parse("bad", resource("iblinkinfo/iblinkinfo-malformed-synthetic.txt"));

    assertEquals(List.of(1L, 4L, 5L), result.malformed().stream().map(Malformed::line).toList());
    assertEquals(
        "port line before any 'CA:' or 'Switch:' header", result.malformed().get(0).reason());
    assertEquals(1, result.records().size());
    assertEquals("spine01", result.records().get(0).remote().nodeDescription());
  }
}
