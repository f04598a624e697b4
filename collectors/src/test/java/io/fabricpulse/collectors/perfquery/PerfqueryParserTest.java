package io.fabricpulse.collectors.perfquery;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PerfqueryParserTest {
  private static final String TREY = "perfquery/treydock-perfquery-x-edr-switch-2ports.txt";
  private static final Instant T = Instant.parse("2025-03-01T10:00:00Z");
  private final SampleContext ctx = SampleContext.of(new NodeIdentity("c1", "mgmt01", "boot-m"), T);
  private final PerfqueryParser parser = new PerfqueryParser();

  private static Map<String, Counter> byName(PortCounters record) {
    return record.getCounters().stream().collect(Collectors.toMap(Counter::getName, c -> c));
  }

  @Test
  void extendedCountersOfBothSwitchPortsWithRawValues() throws Exception {
    ParseResult<PortCounters> result = parser.parse(ctx, TREY, read(TREY));

    assertEquals(List.of(), result.malformed());
    assertEquals(2, result.records().size());
    PortCounters port1 = result.records().get(0);
    PortCounters port2 = result.records().get(1);
    assertEquals("lid:1719", port1.getDevice());
    assertEquals(1, port1.getPort());
    assertEquals(2, port2.getPort());
    assertEquals(0L, port1.getSeq());
    assertEquals(1L, port2.getSeq());
    assertEquals(T, port1.getTime());
    assertEquals("boot-m", port1.getBootId());
    // 8 data/packet counters and 14 additional extended counters; the 3 selectors are not counters.
    assertEquals(22, port1.getCounters().size());
    Map<String, Counter> p1 = byName(port1);
    Map<String, Counter> p2 = byName(port2);
    assertEquals(22730501L, p1.get("PortXmitWait").getValue());
    assertEquals(36510964L, p2.get("PortXmitWait").getValue());
    assertEquals(36298026860928L, p1.get("PortXmitData").getValue(), "raw octets/4, no x4");
    assertEquals(12279028775751L, p1.get("PortRcvData").getValue());
    assertEquals(5584846741L, p1.get("PortMulticastRcvPkts").getValue());
    assertEquals(39078804993378L, p2.get("PortRcvData").getValue());
    assertEquals(0L, p2.get("SymbolErrorCounter").getValue());
    assertEquals(0L, p2.get("QP1Dropped").getValue());
    assertTrue(!p1.containsKey("PortSelect") && !p1.containsKey("CounterSelect2"));
    // perfquery -x prints the error counters of PortCountersExtended: 64-bit like the rest.
    assertTrue(
        port1.getCounters().stream()
            .allMatch(c -> c.getGroup() == CounterGroup.PERFQUERY && c.getWidth() == 64));
    assertEquals(port1, PortCounters.getDecoder().decode(PortCounters.getEncoder().encode(port1)));
  }

  @Test
  void guidNamesTheDeviceWhenGiven() {
    ParseResult<PortCounters> result = parser.parse(ctx, TREY, read(TREY), "0x7cfe9003009ce5b0");

    assertEquals("0x7cfe9003009ce5b0", result.records().get(0).getDevice());
    assertEquals("0x7cfe9003009ce5b0", result.records().get(1).getDevice());
  }

  @Test
  void basicPortCountersCarryPmaWidths() {
    ParseResult<PortCounters> result =
        parser.parse(
            ctx, "basic", resource("perfquery/perfquery-basic-port-counters-synthetic.txt"));

    assertEquals(List.of(), result.malformed());
    PortCounters port = result.records().get(0);
    assertEquals("lid:12", port.getDevice());
    assertEquals(1, port.getPort());
    assertEquals(17, port.getCounters().size());
    Map<String, Counter> c = byName(port);
    assertEquals(
        new Counter("SymbolErrorCounter", CounterGroup.PERFQUERY, 65535L, 16, null),
        c.get("SymbolErrorCounter"));
    assertEquals(8, c.get("LinkDownedCounter").getWidth());
    assertEquals(7L, c.get("LinkDownedCounter").getValue());
    assertEquals(4, c.get("LocalLinkIntegrityErrors").getWidth());
    assertEquals(15L, c.get("LocalLinkIntegrityErrors").getValue());
    assertEquals(32, c.get("PortXmitData").getWidth());
    assertEquals(4294967295L, c.get("PortXmitWait").getValue());
    assertEquals(32, c.get("PortXmitWait").getWidth());
  }

  @Test
  void malformedLinesAreSkippedWithLineNumbers() {
    ParseResult<PortCounters> result =
        parser.parse(ctx, "bad", resource("perfquery/perfquery-malformed-synthetic.txt"));

    assertEquals(
        List.of(1L, 6L, 8L, 9L, 10L), result.malformed().stream().map(Malformed::line).toList());
    assertTrue(result.malformed().get(4).reason().contains("without counters"));
    assertEquals(1, result.records().size());
    PortCounters port2 = result.records().get(0);
    assertEquals("lid:7", port2.getDevice());
    assertEquals(2, port2.getPort());
    assertEquals(
        List.of(
            new Counter("PortXmitData", CounterGroup.PERFQUERY, 123456789012L, 64, null),
            new Counter("PortXmitPkts", CounterGroup.PERFQUERY, 99L, 64, null)),
        port2.getCounters());
  }

  @Test
  void garbageNeverThrows() {
    ParseResult<PortCounters> result = parser.parse(ctx, "x", "\u0000\n#\n:::\n# Port counters:\n");

    assertEquals(List.of(), result.records());
    assertEquals(4, result.malformed().size());
  }
}
