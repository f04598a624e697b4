package io.fabricpulse.collectors.ibstatus;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbstatusParserTest {
  private static final String GPUD = "ibstatus/gpud-ibstatus-a100-8x-hdr-and-ethernet.txt";
  private final IbstatusParser parser = new IbstatusParser();

  @Test
  void eightHdrPortsAndAnEthernetPort() {
    ParseResult<IbstatusPort> result = parser.parse(GPUD, read(GPUD));

    assertEquals(List.of(), result.malformed());
    assertEquals(9, result.records().size());
    assertEquals(
        new IbstatusPort(
            "mlx5_0",
            1,
            "fe80:0000:0000:0000:0015:5dff:fd34:11eb",
            0x33bf,
            1,
            "ACTIVE",
            "LinkUp",
            200.0,
            4,
            IbSpeed.HDR,
            "InfiniBand",
            1L),
        result.records().get(0));
    assertEquals(13247, result.records().get(0).baseLid());
    IbstatusPort ethernet = result.records().get(8);
    assertEquals("mlx5_8", ethernet.device());
    assertEquals(null, ethernet.defaultGid(), "default gid: unknown");
    assertEquals(0, ethernet.baseLid());
    assertEquals(IbSpeed.QDR, ethernet.speed());
    assertEquals(40.0, ethernet.rateGbps());
    assertEquals("Ethernet", ethernet.linkLayer());
  }

  @Test
  void malformedLinesAndAPortWithoutRate() {
    ParseResult<IbstatusPort> result =
        parser.parse("bad", resource("ibstatus/ibstatus-malformed-synthetic.txt"));

    assertEquals(List.of(1L, 2L, 13L), result.malformed().stream().map(Malformed::line).toList());
    assertEquals(1, result.records().size());
    IbstatusPort port = result.records().get(0);
    assertEquals("mlx5_1", port.device());
    assertEquals(10.0, port.rateGbps());
    assertEquals(4, port.width());
    assertEquals(null, port.speed());
    assertEquals(5, port.baseLid());
  }
}
