package io.fabricpulse.collectors.switchports;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortSample;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.ibnetdiscover.IbnetdiscoverOutput;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The switch-port sweep over real perfquery output: the ibsim fabric's leaf01 (perfquery -x without
 * the additional error counters, then the basic query) and treydock's EDR switch (perfquery -x with
 * them), each with the topology capture of the same fabric. The query answers with the captured
 * text of the command the sweep asks for.
 */
class SwitchCounterSweepTest {
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");
  private static final String IBSIM_TOPOLOGY =
      "ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt";

  /** Answers the captured output of leaf01 (LID 1), and what it was asked, in order. */
  private static final class CapturedLeaf01 implements SwitchCounterQuery {
    final List<String> asked = new ArrayList<>();

    @Override
    public String query(int lid, List<Integer> ports, boolean extended) throws IOException {
      asked.add(
          new CommandSwitchCounterQuery("perfquery", Duration.ofSeconds(1))
              .command(lid, ports, extended)
              .toString());
      if (lid != 1) {
        throw new IOException("perfquery: exited with 1: ibwarn: no response from lid " + lid);
      }
      return read(
          extended
              ? "perfquery/ibsim-perfquery-x-leaf01-ports-1-2-7-8.txt"
              : "perfquery/ibsim-perfquery-leaf01-ports-1-2-7-8.txt");
    }
  }

  private static List<PortLink> lines(String capture) {
    return IbnetdiscoverOutput.parse(capture, read(capture)).records();
  }

  private static Counter counter(PortSample port, String name) {
    return port.getCounters().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + port));
  }

  @Test
  void aSwitchWithoutExtendedErrorCountersTakesThemFromTheBasicQuery() throws Exception {
    CapturedLeaf01 query = new CapturedLeaf01();
    ParseResult<NodeCounters> result =
        new SwitchCounterSweep(query).sweep("c1", T0, lines(IBSIM_TOPOLOGY));

    assertEquals(
        List.of(
            "[perfquery, -x, 3, 1,7]",
            "[perfquery, -x, 4, 1,2,3]",
            "[perfquery, -x, 1, 1,2,7,8]",
            "[perfquery, 1, 1,2,7,8]"),
        query.asked,
        "one switch at a time, only the ports with a link, basic only where -x lacks the errors");
    assertEquals(1, result.records().size());
    assertEquals(
        List.of("perfquery lid 3", "perfquery lid 4"),
        result.malformed().stream().map(Malformed::source).toList(),
        "leaf02 and spine01 did not answer: reported, leaf01 still read");

    NodeCounters leaf01 = result.records().get(0);
    assertEquals(RateSource.PERFQUERY, leaf01.getSource());
    assertEquals("c1", leaf01.getCluster());
    assertEquals("leaf01", leaf01.getNode());
    assertEquals("switch:0x0000000000200000", leaf01.getBootId());
    assertEquals(0, leaf01.getSeq());
    assertEquals(T0, leaf01.getTime());
    assertEquals(List.of(1, 2, 7, 8), leaf01.getPorts().stream().map(PortSample::getPort).toList());

    PortSample hostLink = leaf01.getPorts().get(0);
    assertEquals("0x0000000000200000", hostLink.getDevice());
    assertEquals("ACTIVE", hostLink.getState());
    assertEquals("10 Gb/sec (4X SDR)", hostLink.getRate());
    assertEquals(10.0, hostLink.getRateGbps());
    assertEquals("4X", hostLink.getLinkWidth());
    Counter xmitData = counter(hostLink, "port_xmit_data");
    assertEquals(864L, xmitData.getValue());
    assertEquals(64, xmitData.getWidth(), "from PortCountersExtended");
    assertEquals(CounterGroup.PERFQUERY, xmitData.getGroup());
    Counter symbol = counter(hostLink, "symbol_error");
    assertEquals(0L, symbol.getValue());
    assertEquals(16, symbol.getWidth(), "from PortCounters: saturates at 65535");
    assertEquals(32, counter(hostLink, "port_xmit_wait").getWidth());
    assertEquals(8, counter(hostLink, "link_downed").getWidth());
    assertEquals(
        1,
        hostLink.getCounters().stream().filter(c -> c.getName().equals("port_xmit_data")).count(),
        "the basic query's 32-bit PortXmitData does not replace the extended one");

    PortSample isl = leaf01.getPorts().get(3);
    assertEquals(8, isl.getPort());
    assertEquals("2.5 Gb/sec (1X SDR)", isl.getRate());
    assertEquals("1X", isl.getLinkWidth());
    assertEquals(288L, counter(isl, "port_xmit_data").getValue());
  }

  @Test
  void aPortThatLostItsLinkIsStillReadAndReadsDown() throws Exception {
    CapturedLeaf01 query = new CapturedLeaf01();
    SwitchCounterSweep sweep = new SwitchCounterSweep(query);
    sweep.sweep("c1", T0, lines(IBSIM_TOPOLOGY));
    String text = read(IBSIM_TOPOLOGY);
    String islUp =
        "SW     1  8 0x0000000000200000 1x SDR - SW     4  2 0x0000000000200002 ( 'leaf01' -"
            + " 'spine01' )";
    assertTrue(text.contains(islUp));
    String islGone =
        text.replace(
            islUp,
            "SW     1  8 0x0000000000200000 1x SDR                                    'leaf01'");
    query.asked.clear();

    ParseResult<NodeCounters> second =
        sweep.sweep("c1", T0.plusSeconds(300), IbnetdiscoverOutput.parse("t", islGone).records());

    assertTrue(query.asked.contains("[perfquery, -x, 1, 1,2,7,8]"), "port 8 is still asked");
    NodeCounters leaf01 = second.records().get(0);
    assertEquals(1, leaf01.getSeq());
    PortSample isl = leaf01.getPorts().get(3);
    assertEquals(8, isl.getPort());
    assertEquals("DOWN", isl.getState());
    assertNull(isl.getRate());
  }

  @Test
  void aSwitchWithExtendedErrorCountersIsAskedOnceAndPortsWithoutSectionsAreReported()
      throws Exception {
    List<String> asked = new ArrayList<>();
    SwitchCounterQuery treydock =
        (lid, ports, extended) -> {
          asked.add(lid + " " + ports + " " + extended);
          return read("perfquery/treydock-perfquery-x-edr-switch-2ports.txt");
        };
    ParseResult<NodeCounters> result =
        new SwitchCounterSweep(treydock)
            .sweep(
                "c1",
                T0,
                lines("ibnetdiscover/treydock-ibnetdiscover-p-edr-unconnected-4x-unknown.txt"));

    assertTrue(asked.contains("1719 [1, 10, 11] true"), asked.toString());
    assertTrue(asked.stream().noneMatch(a -> a.endsWith("false")), "no basic query needed");
    NodeCounters sw =
        result.records().stream()
            .filter(n -> n.getPorts().get(0).getDevice().equals("0x7cfe9003009ce5b0"))
            .findFirst()
            .orElseThrow();
    assertEquals("ib-i1l1s01", sw.getNode());
    assertEquals(1, sw.getPorts().size());
    PortSample isl = sw.getPorts().get(0);
    assertEquals(1, isl.getPort());
    assertEquals("100 Gb/sec (4X EDR)", isl.getRate());
    assertEquals(22730501L, counter(isl, "port_xmit_wait").getValue());
    assertEquals(64, counter(isl, "symbol_error").getWidth());
    assertEquals(36298026860928L, counter(isl, "port_xmit_data").getValue());
    assertEquals(101708165289L, counter(isl, "unicast_xmit_packets").getValue());
    assertTrue(
        result.malformed().stream()
            .anyMatch(m -> m.reason().equals("ib-i1l1s01 port 10: perfquery printed no counters")),
        result.malformed().toString());
  }

  @Test
  void aDescriptionThatIsNoPlainNameOrIsSharedGivesTheGuid() throws Exception {
    String text =
        read(IBSIM_TOPOLOGY)
            .replace("'leaf01'", "'MF0;leaf01:SX6036/U1'")
            .replace("'leaf02'", "'spine01'");
    List<String> nodes = new ArrayList<>();
    SwitchCounterQuery any =
        (lid, ports, extended) ->
            read(
                extended
                    ? "perfquery/ibsim-perfquery-x-leaf01-ports-1-2-7-8.txt"
                    : "perfquery/ibsim-perfquery-leaf01-ports-1-2-7-8.txt");
    new SwitchCounterSweep(any)
        .sweep("c1", T0, IbnetdiscoverOutput.parse("t", text).records())
        .records()
        .forEach(n -> nodes.add(n.getNode()));
    assertEquals(List.of("0x0000000000200001", "0x0000000000200002", "0x0000000000200000"), nodes);
  }
}
