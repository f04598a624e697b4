package io.fabricpulse.collectors.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.PortSample;
import io.fabricpulse.collectors.agent.FabricTask;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.iblinkinfo.IblinkinfoParser;
import io.fabricpulse.collectors.perfquery.PerfqueryParser;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class SimulatedFatTreeTest {
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");
  private static final NodeIdentity FABRIC01 = new NodeIdentity("c1", "fabric01", "boot-1");

  private final FabricSimulator simulator =
      new FabricSimulator(SimulatorConfig.infiniband("c1", 16, 7, T0));
  private final SimulatedFatTree tree = simulator.fatTree().orElseThrow();

  private static <T> List<T> of(ParseResult<SpecificRecord> result, Class<T> type) {
    return result.records().stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void theSweepIsRealIblinkinfoTextWithEverySwitchAndHcaPort() {
    simulator.advanceTo(T0.plusSeconds(10));

    ParseResult<PortLink> ports = new IblinkinfoParser().parse("iblinkinfo -l", tree.iblinkinfo());

    assertEquals(List.of(), ports.malformed());
    // 8 leaves x (16 host ports + 4 uplinks), 4 spines x 8 ports, 16 nodes x 8 HCAs
    assertEquals(8 * 20 + 4 * 8 + 128, ports.records().size());
    assertTrue(ports.records().stream().allMatch(PortLink::connected));
    assertEquals(
        128, ports.records().stream().filter(l -> l.local().type() == NodeType.CA).count());
    assertEquals(
        192, ports.records().stream().filter(l -> l.local().type() == NodeType.SWITCH).count());
    PortLink first = ports.records().get(0);
    assertEquals("leaf01", first.local().nodeDescription());
    assertEquals("gpu001 mlx5_0", first.remote().nodeDescription());
    assertEquals(4, first.width());
  }

  @Test
  void theFabricTaskPublishesEveryCableAndEverySwitchsCountersWhichAdvanceWithTraffic()
      throws Exception {
    FabricTask task = tree.fabricTask(FABRIC01);
    simulator.advanceTo(T0.plusSeconds(10));
    ParseResult<SpecificRecord> first = task.collect(simulator.now());
    simulator.advanceTo(T0.plusSeconds(20));
    ParseResult<SpecificRecord> second = task.collect(simulator.now());

    assertEquals(List.of(), first.malformed());
    assertEquals(List.of(), second.malformed());
    assertEquals(tree.cables(), of(first, FabricLink.class).size(), "128 host cables + 32 ISLs");
    List<NodeCounters> switches = of(second, NodeCounters.class);
    assertEquals(12, switches.size());
    assertEquals("leaf01", switches.get(0).getNode());
    assertEquals(20, switches.get(0).getPorts().size());
    assertEquals(8, switches.get(11).getPorts().size());
    long hostBefore = xmitData(of(first, NodeCounters.class).get(0), 1);
    long hostAfter = xmitData(switches.get(0), 1);
    long islBefore = xmitData(of(first, NodeCounters.class).get(0), 17);
    long islAfter = xmitData(switches.get(0), 17);
    assertTrue(hostAfter > hostBefore, hostBefore + " -> " + hostAfter);
    assertTrue(islAfter > islBefore, islBefore + " -> " + islAfter);
  }

  @Test
  void aDownHcaLinkIsADownLeafPortAndItsCountersStillParse() throws Exception {
    simulator.linkDown("gpu001", "mlx5_0", T0.plusSeconds(5), Duration.ofSeconds(60));
    simulator.advanceTo(T0.plusSeconds(10));

    ParseResult<PortLink> ports = new IblinkinfoParser().parse("iblinkinfo -l", tree.iblinkinfo());

    assertEquals(List.of(), ports.malformed());
    PortLink leafPort = ports.records().get(0);
    assertNull(leafPort.remote());
    assertEquals("Down", leafPort.state());
    String text = tree.perfquery(1, List.of(1, 17), true);
    ParseResult<PortCounters> counters =
        new PerfqueryParser()
            .parse(SampleContext.of(FABRIC01, T0), "perfquery -x", text, "0x0002000000000001");
    assertEquals(List.of(), counters.malformed());
    assertEquals(2, counters.records().size());
  }

  private static long xmitData(NodeCounters sw, int port) {
    PortSample p =
        sw.getPorts().stream().filter(x -> x.getPort() == port).findFirst().orElseThrow();
    return p.getCounters().stream()
        .filter(c -> c.getName().equals("port_xmit_data"))
        .mapToLong(Counter::getValue)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void islFaultsShowOnBothEndsOfTheCable() throws Exception {
    InjectedFault flap =
        tree.islFlap(
            1, 1, T0.plusSeconds(5), 5, FabricSimulator.FLAP_DOWN, FabricSimulator.FLAP_UP);
    InjectedFault dirty =
        tree.islFault(FaultKind.ISL_SYMBOL_ERRORS, 2, 3, T0.plusSeconds(5), Duration.ofMinutes(5));
    InjectedFault narrowed =
        tree.islFault(FaultKind.ISL_NARROW_WIDTH, 3, 4, T0.plusSeconds(5), Duration.ofMinutes(5));
    // each fault names the switch port whose alert is expected, and the cable
    assertEquals("leaf01", flap.node());
    assertEquals("0x0002000000000001", flap.device());
    assertEquals(17, flap.port());
    assertEquals(List.of("spine01 port 1"), flap.affected());
    assertEquals("spine03", dirty.node(), "the spine counts the dirty cable's symbol errors");
    assertEquals(2, dirty.port());
    assertEquals("leaf03 port 20 <-> spine04 port 3", narrowed.detail());
    assertEquals(T0.plusSeconds(5 + 5 * 60 - 34), flap.end(), "5 drops, the last one up again");
    assertEquals(List.of(flap, dirty, narrowed), simulator.faults());
    simulator.advanceTo(T0.plusSeconds(15));

    ParseResult<PortLink> ports = new IblinkinfoParser().parse("iblinkinfo -l", tree.iblinkinfo());

    assertEquals(List.of(), ports.malformed());
    List<PortLink> leaf01Uplink =
        ports.records().stream()
            .filter(l -> l.local().nodeDescription().equals("leaf01") && l.local().port() == 17)
            .toList();
    assertNull(leaf01Uplink.get(0).remote(), "leaf01-spine01 is in a flap's down phase");
    PortLink narrow =
        ports.records().stream()
            .filter(l -> l.local().nodeDescription().equals("leaf03") && l.local().port() == 20)
            .findFirst()
            .orElseThrow();
    assertEquals("spine04", narrow.remote().nodeDescription());
    assertEquals(2, narrow.width());
    assertEquals(4, narrow.possibleWidth(), "iblinkinfo: Could be 4X");
    ParseResult<PortCounters> spine03 =
        new PerfqueryParser()
            .parse(
                SampleContext.of(FABRIC01, T0),
                "perfquery -x",
                tree.perfquery(11, List.of(2), true),
                "0x0003000000000003");
    assertEquals(
        10 * SimulatedFatTree.ISL_SYMBOL_ERRORS_PER_SECOND,
        spine03.records().get(0).getCounters().stream()
            .filter(c -> c.getName().equals("SymbolErrorCounter"))
            .mapToLong(Counter::getValue)
            .findFirst()
            .orElseThrow());
    ParseResult<PortCounters> leaf01 =
        new PerfqueryParser()
            .parse(
                SampleContext.of(FABRIC01, T0),
                "perfquery -x",
                tree.perfquery(1, List.of(17), true),
                "0x0002000000000001");
    assertEquals(
        1L,
        leaf01.records().get(0).getCounters().stream()
            .filter(c -> c.getName().equals("LinkDownedCounter"))
            .mapToLong(Counter::getValue)
            .findFirst()
            .orElseThrow());
  }
}
