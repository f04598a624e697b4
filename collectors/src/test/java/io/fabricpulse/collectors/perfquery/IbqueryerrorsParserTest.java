package io.fabricpulse.collectors.perfquery;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class IbqueryerrorsParserTest {
  private static final String SAMPLE =
      "perfquery/linux-rdma-ibqueryerrors-sx6036-symbolerr-xmitwait-saturated.txt";
  private final SampleContext ctx =
      SampleContext.of(new NodeIdentity("c1", "mgmt01", "boot-m"), Instant.EPOCH);

  private static Counter pq(String name, long value, int width) {
    return new Counter(name, CounterGroup.PERFQUERY, value, width, null);
  }

  @Test
  void everyPortLineBecomesARecordWithPmaWidths() {
    ParseResult<PortCounters> result = new IbqueryerrorsParser().parse(ctx, SAMPLE, read(SAMPLE));

    assertEquals(List.of(), result.malformed());
    assertEquals(15, result.records().size());

    PortCounters hca = result.records().get(0);
    assertEquals("0x7cfe900300179b31", hca.getDevice());
    assertEquals(1, hca.getPort());
    assertEquals(
        List.of(pq("VL15Dropped", 14L, 16), pq("PortXmitWait", 4294967295L, 32)),
        hca.getCounters());

    PortCounters switchAll = result.records().get(3);
    assertEquals("0x2c903006e29b0", switchAll.getDevice());
    assertEquals(IbqueryerrorsParser.ALL_PORTS, switchAll.getPort());
    assertEquals(
        List.of(
            pq("LinkErrorRecoveryCounter", 15L, 8),
            pq("LinkDownedCounter", 48L, 8),
            pq("PortRcvSwitchRelayErrors", 2461L, 16),
            pq("PortXmitDiscards", 15854L, 16),
            pq("VL15Dropped", 5L, 16),
            pq("PortXmitWait", 4294967295L, 32)),
        switchAll.getCounters());

    PortCounters port5 = result.records().get(9);
    assertEquals(5, port5.getPort());
    assertEquals(pq("SymbolErrorCounter", 65535L, 16), port5.getCounters().get(0));
    assertEquals(pq("PortXmitWait", 84704351L, 32), port5.getCounters().get(5));

    PortCounters last = result.records().get(14);
    assertEquals("0xe41d2d0300e0bae2", last.getDevice());
    assertEquals(2, last.getPort());
    assertEquals(List.of(pq("PortXmitWait", 1L, 32)), last.getCounters());
    assertEquals(14L, last.getSeq());
  }

  @Test
  void unknownLinesAreSkippedNotFatal() {
    ParseResult<PortCounters> result =
        new IbqueryerrorsParser()
            .parse(
                ctx,
                "x",
                "Errors for \"n1 mlx5_0\"\n   GUID 0x1 port 1: no brackets\nrandom text\n"
                    + "   GUID 0x1 port 2: [PortRcvErrors == 3]\n");

    assertEquals(List.of(2L, 3L), result.malformed().stream().map(m -> m.line()).toList());
    assertEquals(List.of(pq("PortRcvErrors", 3L, 16)), result.records().get(0).getCounters());
  }
}
