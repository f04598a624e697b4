package io.fabricpulse.collectors.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolCollector;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** The simulator's ethtool text and RoCE sysfs, read by the real EthtoolCollector and reader. */
class SimulatedEthtoolTest {
  static final Instant T0 = FabricSimulatorTest.T0;
  static final String STORAGE = "ens9f0np0";

  /** One ethtool sample through the real collector: its PfcPauseFrames and EcnMarks. */
  record EthtoolSample(PfcPauseFrames pfc, EcnMarks ecn) {
    long pfc(String name) {
      return value(pfc.getCounters(), name);
    }

    long ecn(String name) {
      return value(ecn.getCounters(), name);
    }

    boolean hasPfc(String name) {
      return pfc.getCounters().stream().anyMatch(c -> c.getName().equals(name));
    }
  }

  static long value(List<Counter> counters, String name) {
    return counters.stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + counters))
        .getValue();
  }

  static PortCounters port(FabricSimulator sim, String node, String netdev) {
    ParseResult<PortCounters> ports =
        new SysfsPortCounterReader(sim.nodeTree(node))
            .read(SampleContext.of(sim.identity(node), sim.now()));
    assertTrue(ports.malformed().isEmpty(), ports.malformed().toString());
    return ports.records().stream()
        .filter(p -> netdev.equals(p.getNetdev()))
        .findFirst()
        .orElseThrow();
  }

  static EthtoolSample ethtool(FabricSimulator sim, String node, String netdev) {
    SimulatedNodeSources sources = sim.sources(node);
    SimulatedNetdev nd =
        sources.netdevs().stream().filter(n -> n.netdev().equals(netdev)).findFirst().orElseThrow();
    Map<String, Long> hw = new HashMap<>();
    for (Counter c : port(sim, node, netdev).getCounters()) {
      if (c.getGroup() == CounterGroup.HW_COUNTERS) {
        hw.put(c.getName(), c.getValue());
      }
    }
    ParseResult<SpecificRecord> result =
        new EthtoolCollector(sources.ethtool())
            .collect(
                SampleContext.of(sim.identity(node), sim.now()),
                netdev,
                nd.device(),
                nd.port(),
                hw);
    assertTrue(result.malformed().isEmpty(), result.malformed().toString());
    assertEquals(2, result.records().size());
    return new EthtoolSample(
        (PfcPauseFrames) result.records().get(0), (EcnMarks) result.records().get(1));
  }

  static EthtoolSample at(FabricSimulator sim, long second, String node, String netdev) {
    sim.advanceTo(T0.plusSeconds(second));
    return ethtool(sim, node, netdev);
  }

  /** Fraction of the second (prev, cur] spent paused, from a _pause_duration counter (us). */
  static double ratio(EthtoolSample prev, EthtoolSample cur, String counter) {
    return (cur.pfc(counter) - prev.pfc(counter)) / 1e6;
  }

  @Test
  void infinibandNodesHaveOneRoceStorageNetdevWithEthtoolText() throws IOException {
    FabricSimulator sim = FabricSimulatorTest.sim(2, 21);
    assertEquals(List.of(new SimulatedNetdev(STORAGE, "mlx5_8", 1)), sim.netdevs("gpu001"));
    sim.advanceTo(T0.plusSeconds(5));
    String text = sim.sources("gpu001").ethtool().stats(STORAGE);
    assertTrue(text.startsWith("NIC statistics:\n     rx_packets: "), text);
    assertTrue(text.contains("\n     rx_prio3_pause: "));
    assertTrue(text.contains("\n     tx_pause_storm_warning_events: 0\n"));
    assertFalse(text.contains("rx_prio0_pause"), "PFC is enabled on prio 3 only");
    assertEquals("mlx5_core", sim.sources("gpu001").ethtool().driver(STORAGE));
    assertThrows(IOException.class, () -> sim.sources("gpu001").ethtool().stats("ib0"));

    EthtoolSample s = ethtool(sim, "gpu001", STORAGE);
    assertEquals("mlx5_8", s.pfc().getDevice());
    assertEquals("mlx5_core", s.pfc().getDriver());
    assertTrue(s.pfc("rx_prio3_bytes") > 30 * s.pfc("rx_prio0_bytes"), "RDMA on prio 3");
    assertTrue(s.pfc("rx_prio0_bytes") > 0, "a little TCP on prio 0");
    assertEquals(0, s.pfc("rx_prio3_buf_discard"));
    assertEquals(0, s.pfc("rx_out_of_buffer"));
    assertEquals(s.ecn("rx_prio3_marked"), s.ecn("np_ecn_marked_roce_packets"));
    assertEquals(s.ecn("np_cnp_sent"), s.ecn("np_ecn_marked_roce_packets"));
    assertTrue(s.ecn("rp_cnp_handled") > 0);
    assertEquals(0, s.ecn("rp_cnp_ignored"));
  }

  /**
   * gpu010 of an InfiniBand fleet has an Intel E810 storage NIC: ice's {@code ethtool -S} names and
   * irdma's hw_counters names, read by the real collector, which reports driver ice; a
   * PFC_MISCONFIG on priority 0 shows as XOFF frames on priority 0, a LOSSLESS_DROP as
   * rx_dropped.nic, an ECN_MISCONFIG as cnpIgnored.
   */
  @Test
  void theE810NodeSpeaksIceAndIrdmaNames() throws IOException {
    FabricSimulator sim = FabricSimulatorTest.sim(10, 23);
    String node = FabricSimulator.E810_NODE;
    String netdev = FabricSimulator.E810_NETDEV;
    assertEquals(
        List.of(new SimulatedNetdev(netdev, FabricSimulator.E810_DEVICE, 1)), sim.netdevs(node));
    sim.pfcMisconfig(node, netdev, 0, T0.plusSeconds(10), Duration.ofSeconds(5));
    sim.losslessDrop(node, netdev, T0.plusSeconds(10), Duration.ofSeconds(5));
    sim.ecnMisconfig(node, netdev, T0.plusSeconds(10), Duration.ofSeconds(5));
    EthtoolSample before = at(sim, 5, node, netdev);
    String text = sim.sources(node).ethtool().stats(netdev);
    assertTrue(text.startsWith("NIC statistics:\n     rx_unicast.nic: "), text);
    assertTrue(text.contains("\n     tx_priority_3_xoff.nic: "), text);
    assertFalse(text.contains("rx_prio3_pause"), text);
    assertEquals("ice", sim.sources(node).ethtool().driver(netdev));
    assertEquals("ice", before.pfc().getDriver());
    assertEquals(FabricSimulator.E810_DEVICE, before.pfc().getDevice());
    assertTrue(before.pfc("rx_priority_3_xoff.nic") > 0, "healthy pauses on the lossless prio");
    assertEquals(0, before.pfc("tx_priority_0_xoff.nic") + before.pfc("rx_priority_0_xoff.nic"));
    assertEquals(0, before.pfc("rx_dropped.nic"));
    assertEquals(0, before.ecn("cnpIgnored"));
    assertTrue(before.ecn("cnpHandled") > 0);
    assertEquals(before.ecn("cnpSent"), before.ecn("RxECNMrkd"));

    EthtoolSample during = at(sim, 12, node, netdev);
    assertTrue(during.pfc("rx_priority_0_xoff.nic") >= 2_000, "PFC misconfigured on prio 0");
    assertTrue(during.pfc("rx_dropped.nic") > 0, "lossless priority dropping");
    assertTrue(during.ecn("cnpIgnored") > 0, "DCQCN off");
    // the ConnectX nodes keep mlx5 names
    assertEquals("mlx5_core", sim.sources("gpu009").ethtool().driver(STORAGE));
  }

  @Test
  void pauseStormFromOneNicSpreadsToItsVictims() {
    FabricSimulator sim = FabricSimulatorTest.sim(4, 22);
    Instant start = T0.plusSeconds(20);
    InjectedFault storm =
        sim.pfcPauseStorm("gpu002", STORAGE, start, Duration.ofSeconds(15), "gpu003", "gpu004");
    assertEquals(List.of("gpu003/" + STORAGE, "gpu004/" + STORAGE), storm.affected());
    assertEquals(FaultKind.PFC_PAUSE_STORM, storm.kind());

    EthtoolSample origin0 = at(sim, 19, "gpu002", STORAGE);
    EthtoolSample v1a = ethtool(sim, "gpu003", STORAGE);
    EthtoolSample v2a = ethtool(sim, "gpu004", STORAGE);
    EthtoolSample origin1 = at(sim, 20, "gpu002", STORAGE);
    long txPauses = origin1.pfc("tx_prio3_pause") - origin0.pfc("tx_prio3_pause");
    long rxPauses = origin1.pfc("rx_prio3_pause") - origin0.pfc("rx_prio3_pause");
    assertTrue(txPauses >= 60_000 && rxPauses < 30, txPauses + " tx vs " + rxPauses + " rx");
    assertTrue(ratio(origin0, origin1, "tx_prio3_pause_duration") >= 0.95);
    assertTrue(
        origin1.pfc("rx_prio3_bytes") - origin0.pfc("rx_prio3_bytes") < 0.02 * 12.5e9,
        "origin's receive is stalled");
    assertEquals(1, origin1.pfc("tx_pause_storm_warning_events"));
    assertEquals(0, origin1.pfc("tx_pause_storm_error_events"));

    EthtoolSample v1b = at(sim, 22, "gpu003", STORAGE);
    EthtoolSample v2b = ethtool(sim, "gpu004", STORAGE);
    assertTrue(ratio(v1a, v1b, "rx_prio3_pause_duration") < 0.01, "not reached before +3 s");
    assertTrue(ratio(v2a, v2b, "rx_prio3_pause_duration") < 0.01);
    EthtoolSample v1c = at(sim, 23, "gpu003", STORAGE);
    EthtoolSample v2c = ethtool(sim, "gpu004", STORAGE);
    assertTrue(ratio(v1b, v1c, "rx_prio3_pause_duration") >= 0.9, "first victim at +3 s");
    assertTrue(ratio(v2b, v2c, "rx_prio3_pause_duration") < 0.01, "second one 1 s later");
    EthtoolSample v1d = at(sim, 24, "gpu003", STORAGE);
    EthtoolSample v2d = ethtool(sim, "gpu004", STORAGE);
    assertTrue(ratio(v1c, v1d, "rx_prio3_pause_duration") >= 0.9);
    assertTrue(ratio(v2c, v2d, "rx_prio3_pause_duration") >= 0.9);
    assertTrue(
        v1d.pfc("tx_prio3_bytes") - v1c.pfc("tx_prio3_bytes") < 0.03 * 12.5e9,
        "a paused victim transmits almost nothing");

    EthtoolSample origin2 = at(sim, 28, "gpu002", STORAGE);
    assertEquals(1, origin2.pfc("tx_pause_storm_error_events"), "error watermark after 8 s");
    EthtoolSample v1e = at(sim, 40, "gpu003", STORAGE);
    EthtoolSample v1f = at(sim, 41, "gpu003", STORAGE);
    assertTrue(ratio(v1e, v1f, "rx_prio3_pause_duration") < 0.01, "over at +15 s");
  }

  @Test
  void pfcMisconfigShowsPauseFramesOnPriorityZero() {
    FabricSimulator sim = FabricSimulatorTest.sim(1, 23);
    sim.pfcMisconfig("gpu001", STORAGE, 0, T0.plusSeconds(10), Duration.ofSeconds(20));
    EthtoolSample before = at(sim, 9, "gpu001", STORAGE);
    assertTrue(before.hasPfc("rx_prio0_pause"), "PFC now enabled on prio 0");
    assertEquals(0, before.pfc("rx_prio0_pause"));
    EthtoolSample during = at(sim, 12, "gpu001", STORAGE);
    assertTrue(during.pfc("rx_prio0_pause") >= 3 * 2_000, "pauses on a lossy priority");
    assertTrue(during.pfc("rx_prio0_pause_duration") > 0);
    assertThrows(
        IllegalArgumentException.class,
        () -> sim.pfcMisconfig("gpu001", STORAGE, 3, T0.plusSeconds(50), Duration.ofSeconds(5)));
  }

  @Test
  void ecnMisconfigIgnoresCnpsAndLosslessDropDiscards() {
    FabricSimulator sim = FabricSimulatorTest.sim(2, 24);
    sim.ecnMisconfig("gpu001", STORAGE, T0.plusSeconds(10), Duration.ofSeconds(10));
    sim.losslessDrop("gpu002", STORAGE, T0.plusSeconds(10), Duration.ofSeconds(10));
    EthtoolSample ecn0 = at(sim, 10, "gpu001", STORAGE);
    EthtoolSample drop0 = ethtool(sim, "gpu002", STORAGE);
    EthtoolSample ecn1 = at(sim, 15, "gpu001", STORAGE);
    EthtoolSample drop1 = ethtool(sim, "gpu002", STORAGE);
    assertTrue(ecn1.ecn("rp_cnp_ignored") - ecn0.ecn("rp_cnp_ignored") >= 5 * 500);
    assertEquals(ecn0.ecn("rp_cnp_handled"), ecn1.ecn("rp_cnp_handled"), "none handled");
    assertTrue(drop1.pfc("rx_prio3_buf_discard") - drop0.pfc("rx_prio3_buf_discard") >= 5 * 200);
    assertTrue(drop1.pfc("rx_out_of_buffer") > drop0.pfc("rx_out_of_buffer"));
    assertEquals(0, ecn1.pfc("rx_prio3_buf_discard"), "no drops on the ECN node");
    EthtoolSample ecn2 = at(sim, 20, "gpu001", STORAGE);
    EthtoolSample ecn3 = at(sim, 30, "gpu001", STORAGE);
    assertEquals(ecn2.ecn("rp_cnp_ignored"), ecn3.ecn("rp_cnp_ignored"), "over");
  }

  @Test
  void mtuMismatchShowsInSysfs() {
    FabricSimulator sim = FabricSimulatorTest.sim(1, 25);
    sim.mtuMismatch("gpu001", STORAGE, 1500, T0.plusSeconds(10), Duration.ofSeconds(10));
    sim.advanceTo(T0.plusSeconds(9));
    assertEquals(9000, port(sim, "gpu001", STORAGE).getNetdevMtu());
    sim.advanceTo(T0.plusSeconds(10));
    assertEquals(1500, port(sim, "gpu001", STORAGE).getNetdevMtu());
    sim.advanceTo(T0.plusSeconds(20));
    assertEquals(9000, port(sim, "gpu001", STORAGE).getNetdevMtu());
    assertThrows(
        IllegalArgumentException.class,
        () -> sim.mtuMismatch("gpu001", "ens1np0", 1500, T0.plusSeconds(30), Duration.ZERO));
  }

  @Test
  void roceNodesHaveEthtoolOnEveryRail() {
    FabricSimulator sim = new FabricSimulator(SimulatorConfig.roce("sim", 3, 26, T0));
    assertEquals(8, sim.netdevs("gpu001").size());
    assertEquals(new SimulatedNetdev("ens4np0", "mlx5_3", 1), sim.netdevs("gpu001").get(3));
    sim.pfcPauseStorm("gpu001", "ens4np0", T0.plusSeconds(5), Duration.ofSeconds(10), "gpu002");
    EthtoolSample a = at(sim, 9, "gpu002", "ens4np0");
    EthtoolSample b = at(sim, 10, "gpu002", "ens4np0");
    assertTrue(ratio(a, b, "rx_prio3_pause_duration") >= 0.9);
    EthtoolSample other = ethtool(sim, "gpu002", "ens5np0");
    EthtoolSample otherBefore = at(sim, 11, "gpu002", "ens5np0");
    assertTrue(ratio(other, otherBefore, "rx_prio3_pause_duration") < 0.01, "other rail clean");
    assertEquals(9000, port(sim, "gpu003", "ens1np0").getNetdevMtu());
  }
}
