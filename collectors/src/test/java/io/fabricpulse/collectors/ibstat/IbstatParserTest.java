package io.fabricpulse.collectors.ibstat;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbstatParserTest {
  private static final String GPUD = "ibstat/gpud-ibstat-h100-roce-some-down-polling.txt";
  private final IbstatParser parser = new IbstatParser();

  @Test
  void twelvePortsOfAnH100NodeWithTwoDown() {
    ParseResult<IbstatPort> result = parser.parse(GPUD, read(GPUD));

    assertEquals(List.of(), result.malformed());
    assertEquals(12, result.records().size());
    assertEquals(
        new IbstatPort(
            "mlx5_0",
            "MT4129",
            "28.39.1002",
            "0xa088c20300adeab8",
            1,
            "Active",
            "LinkUp",
            400.0,
            0,
            0,
            "0xa288c2fffeadeab8",
            "Ethernet",
            8L),
        result.records().get(0));
    IbstatPort polling = result.records().get(3);
    assertEquals("mlx5_11", polling.device());
    assertEquals("Down", polling.state());
    assertEquals("Polling", polling.physicalState());
    assertEquals(40.0, polling.rateGbps());
    IbstatPort disabled = result.records().get(7);
    assertEquals("mlx5_5", disabled.device());
    assertEquals("Disabled", disabled.physicalState());
    IbstatPort last = result.records().get(11);
    assertEquals("mlx5_9", last.device(), "the file ends without a newline");
    assertEquals("Ethernet", last.linkLayer());
    assertEquals(8, result.records().stream().filter(p -> p.state().equals("Active")).count() - 2);
  }

  @Test
  void anIbpanicLineIsSkipped() {
    ParseResult<IbstatPort> result =
        parser.parse("panic", resource("ibstat/ibstat-ibpanic-synthetic.txt"));

    assertEquals(List.of(13L), result.malformed().stream().map(Malformed::line).toList());
    IbstatPort port = result.records().get(0);
    assertEquals(13305, port.baseLid());
    assertEquals(1, port.smLid());
    assertEquals("InfiniBand", port.linkLayer());
    assertEquals(null, port.firmware());
  }
}
