package io.fabricpulse.collectors.ethtool;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EthtoolStatsParserTest {
  private final EthtoolStatsParser parser = new EthtoolStatsParser();

  private static Map<String, Long> values(ParseResult<EthtoolStat> result) {
    return result.records().stream()
        .collect(Collectors.toMap(EthtoolStat::name, EthtoolStat::value));
  }

  @Test
  void ethqConnectX4DumpWithoutHeaderOrIndentationParsesEveryLine() {
    ParseResult<EthtoolStat> result =
        parser.parse("ethq", read("ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"));

    assertEquals(List.of(), result.malformed());
    assertEquals(751, result.records().size());
    Map<String, Long> v = values(result);
    assertEquals(845320277L, v.get("rx_packets"));
    assertEquals(0L, v.get("rx_discards_phy"));
    assertEquals(34L, v.get("tx_pci_signal_integrity"));
    assertEquals(2202570777997L, v.get("rx_prio0_bytes"));
    assertEquals(896117891L, v.get("tx_prio0_packets"));
    assertEquals(2662454044895L, v.get("tx_bytes_phy"));
    assertEquals(546395557L, v.get("rx_cache_reuse"));
    assertEquals(0L, v.get("rx_global_pause_transition"));
    assertEquals(5530L, v.get("tx15_xmit_more"));
    EthtoolStat pci = result.records().get(97);
    assertEquals(new EthtoolStat("tx_pci_signal_integrity", 34L, 98), pci);
  }

  @Test
  void bytepsIndentedGrepExcerptKeepsPerPriorityTraffic() {
    ParseResult<EthtoolStat> result =
        parser.parse("byteps", read("ethtool/byteps-179-mlx5-prio-counters-before-benchmark.txt"));

    assertEquals(List.of(), result.malformed());
    assertEquals(32, result.records().size());
    Map<String, Long> v = values(result);
    assertEquals(88034564921216L, v.get("rx_prio0_bytes"));
    assertEquals(419873392068L, v.get("rx_prio0_packets"));
    assertEquals(13906677385186L, v.get("tx_prio0_bytes"));
    assertEquals(40177770079L, v.get("tx_prio0_packets"));
    assertEquals(0L, v.get("rx_prio7_bytes"));
  }

  @Test
  void headerLineIsNotACounter() {
    ParseResult<EthtoolStat> result =
        parser.parse("synthetic", resource("ethtool/mlx5-pfc-storm-prio3-synthetic.txt"));

    assertEquals(List.of(), result.malformed());
    assertEquals(37, result.records().size());
    assertEquals(new EthtoolStat("rx_packets", 9182736450L, 2), result.records().get(0));
    assertEquals(1290418L, values(result).get("tx_prio3_pause"));
  }

  @Test
  void malformedLinesAreCountedWithLineNumbersAndSkipped() {
    ParseResult<EthtoolStat> result =
        parser.parse("bad.txt", resource("ethtool/mlx5-malformed-lines-synthetic.txt"));

    assertEquals(
        List.of(
            new EthtoolStat("rx_packets", 100L, 2),
            new EthtoolStat("tx_prio3_pause_duration", -1L, 6),
            new EthtoolStat("tx_pause_storm_warning_events", 3L, 11)),
        result.records());
    assertEquals(
        List.of(3L, 4L, 5L, 7L, 8L, 9L, 12L),
        result.malformed().stream().map(Malformed::line).toList());
    assertTrue(result.malformed().stream().allMatch(m -> m.source().equals("bad.txt")));
    assertTrue(result.malformed().get(5).reason().contains("duplicate counter rx_packets"));
  }

  @Test
  void u64MaximumIsKeptAsItsTwosComplement() {
    ParseResult<EthtoolStat> result =
        parser.parse("x", "     rx_prio3_pause_duration: 18446744073709551615\n");

    assertEquals("18446744073709551615", Long.toUnsignedString(result.records().get(0).value()));
  }

  @Test
  void crlfAndEmptyInputNeverFail() {
    assertEquals(0, parser.parse("x", "").records().size());
    assertEquals(0, parser.parse("x", "NIC statistics:\r\n").malformed().size());
    assertEquals(
        List.of(new EthtoolStat("rx_prio3_pause", 5L, 2)),
        parser.parse("x", "NIC statistics:\r\n     rx_prio3_pause: 5\r\n").records());
  }
}
