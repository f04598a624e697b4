package io.fabricpulse.collectors.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The full fault script, determinism of every source, and a clean background. */
class DemoFaultsTest {
  static final Instant T0 = FabricSimulatorTest.T0;

  /** Every text every source of every host gives at the simulator's current time. */
  static TreeMap<String, String> everything(
      FabricSimulator sim, Map<String, SimulatedNodeSources> s) throws Exception {
    TreeMap<String, String> out = new TreeMap<>();
    for (String host : s.keySet()) {
      SimulatedNodeSources src = s.get(host);
      out.putAll(prefixed(host + "/sys/", FabricSimulatorTest.dump(src.sysfs())));
      for (SimulatedNetdev nd : src.netdevs()) {
        out.put(host + "/ethtool/" + nd.netdev(), src.ethtool().stats(nd.netdev()));
      }
      if (src.nvidiaSmi().isPresent()) {
        out.put(host + "/nvidia-smi", src.nvidiaSmi().get().queryGpu(GpuFieldsHolder.FIELDS));
      }
      if (src.sminfo().isPresent()) {
        out.put(host + "/sminfo", src.sminfo().get().run().toString());
      }
      out.put(host + "/kmsg", String.join("\n", src.kmsg().poll()));
      out.put(host + "/nccl", src.nccl().poll().toString());
      if (src.openSmLog().isPresent()) {
        out.put(host + "/opensm", String.join("\n", src.openSmLog().get().poll()));
      }
      out.put(host + "/identity", sim.identity(host).toString());
    }
    return out;
  }

  static final class GpuFieldsHolder {
    static final List<String> FIELDS = io.fabricpulse.collectors.nvsmi.GpuQueryFields.WANTED;
  }

  private static Map<String, String> prefixed(String prefix, Map<String, String> files) {
    Map<String, String> out = new HashMap<>();
    files.forEach((k, v) -> out.put(prefix + k, v));
    return out;
  }

  static Map<String, SimulatedNodeSources> sources(FabricSimulator sim) {
    Map<String, SimulatedNodeSources> s = new java.util.LinkedHashMap<>();
    for (String host : sim.nodes()) {
      s.put(host, sim.sources(host));
    }
    for (String host : sim.smHosts()) {
      s.put(host, sim.sources(host));
    }
    return s;
  }

  static FabricSimulator demo(int nodes, long seed) {
    return new FabricSimulator(SimulatorConfig.infiniband("demo", nodes, seed, T0));
  }

  @Test
  void sameSeedSameScriptSameTextOfEverySource() throws Exception {
    FabricSimulator a = demo(16, 77);
    FabricSimulator b = demo(16, 77);
    FabricSimulator c = demo(16, 78);
    DemoFaults.scheduleAll(a, T0, Duration.ofSeconds(120));
    DemoFaults.scheduleAll(b, T0, Duration.ofSeconds(120));
    DemoFaults.scheduleAll(c, T0, Duration.ofSeconds(120));
    Map<String, SimulatedNodeSources> sa = sources(a);
    Map<String, SimulatedNodeSources> sb = sources(b);
    Map<String, SimulatedNodeSources> sc = sources(c);
    for (long t : new long[] {30, 61, 90, 120}) {
      a.advanceTo(T0.plusSeconds(t));
      for (long u = t - 5; u <= t; u++) {
        b.advanceTo(T0.plusSeconds(u)); // another sequence of advances, same state
      }
      c.advanceTo(T0.plusSeconds(t));
      TreeMap<String, String> ta = everything(a, sa);
      assertEquals(ta, everything(b, sb), "at +" + t + " s");
      assertFalse(ta.equals(everything(c, sc)));
    }
  }

  @Test
  void scheduleAllPlacesOneFaultOfEveryKind() {
    FabricSimulator sim = demo(16, 5);
    Duration window = Duration.ofMinutes(2);
    List<InjectedFault> faults = DemoFaults.scheduleAll(sim, T0, window);

    assertEquals(sim.faults(), faults);
    assertEquals(FaultKind.values().length, faults.size());
    EnumSet<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
    faults.forEach(f -> kinds.add(f.kind()));
    assertEquals(EnumSet.allOf(FaultKind.class), kinds);
    for (InjectedFault f : faults) {
      assertTrue(f.start().isAfter(T0), f.toString());
      if (f.kind() == FaultKind.LINK_DOWN) {
        // never shorter than the link-down rule's down_for, so it may outlast a short window
        assertEquals(DemoFaults.SHORTEST_LINK_DOWN, Duration.between(f.start(), f.end()));
      } else {
        assertFalse(f.end().isAfter(T0.plus(window)), f.toString());
      }
      assertEquals(f.kind().expectedAlert(), f.expectedAlert());
    }
    // Each alerting (kind, node) pair once; a node shows one alert kind, except the GPU node
    // (faults on distinct GPUs) and the NCCL pair (distinct jobs).
    Map<String, Set<FaultKind>> kindsByNode = new HashMap<>();
    for (InjectedFault f : faults) {
      List<String> nodes = new ArrayList<>(List.of(f.node()));
      if (f.kind() == FaultKind.PFC_PAUSE_STORM) {
        f.affected().forEach(v -> nodes.add(v.substring(0, v.indexOf('/'))));
      } else if (f.kind().source() == FaultKind.Source.NCCL) {
        nodes.clear();
        nodes.addAll(f.affected());
      }
      nodes.forEach(n -> kindsByNode.computeIfAbsent(n, k -> new HashSet<>()).add(f.kind()));
    }
    assertEquals(
        List.of("leaf02", "spine02", "leaf04"),
        faults.stream()
            .filter(f -> f.kind().source() == FaultKind.Source.FABRIC)
            .map(InjectedFault::node)
            .toList(),
        "the switch port each ISL fault is expected on");
    assertEquals(16 + 1 + 3, kindsByNode.size(), "every node, sm01 and the three switches");
    Set<String> gpuSubjects = new HashSet<>();
    for (Map.Entry<String, Set<FaultKind>> e : kindsByNode.entrySet()) {
      Set<FaultKind> k = e.getValue();
      boolean gpu = k.stream().allMatch(x -> x.source() == FaultKind.Source.GPU);
      boolean nccl = k.stream().allMatch(x -> x.source() == FaultKind.Source.NCCL);
      assertTrue(k.size() == 1 || gpu || nccl, e.toString());
    }
    for (InjectedFault f : faults) {
      if (f.kind().source() == FaultKind.Source.GPU) {
        assertTrue(gpuSubjects.add(f.node() + "/" + f.device()), "distinct GPUs");
      }
    }
    InjectedFault storm = faults.get(6);
    assertEquals(List.of("gpu008/ens9f0np0", "gpu009/ens9f0np0"), storm.affected());

    FabricSimulator big = demo(21, 5);
    List<InjectedFault> spread = DemoFaults.scheduleAll(big, T0, window);
    Set<String> subjects = new HashSet<>();
    for (InjectedFault f : spread) {
      List<String> nodes =
          f.kind().source() == FaultKind.Source.NCCL ? f.affected() : List.of(f.node());
      nodes.forEach(n -> assertTrue(subjects.add(n), "one fault per node: " + n));
    }

    assertThrows(
        IllegalArgumentException.class, () -> DemoFaults.scheduleAll(demo(15, 5), T0, window));
    assertThrows(
        IllegalArgumentException.class,
        () -> DemoFaults.scheduleAll(demo(16, 5), T0, Duration.ofSeconds(59)));
  }

  /**
   * Ten simulated minutes without faults (and one healthy NCCL job), read as a collector would:
   * nothing that any rule could take for trouble.
   */
  @Test
  void backgroundStaysCleanForTenMinutes() throws Exception {
    for (SimulatorConfig config :
        List.of(
            SimulatorConfig.infiniband("bg", 4, 90, T0), SimulatorConfig.roce("bg", 2, 91, T0))) {
      FabricSimulator sim = new FabricSimulator(config);
      sim.ncclJob("job-bg", sim.nodes(), T0.plusSeconds(30));
      Map<String, SimulatedNodeSources> sources = sources(sim);
      Map<String, SimulatedEthtoolTest.EthtoolSample> last = new HashMap<>();
      List<NcclLog> ncclLines = new ArrayList<>();
      String masterGuid = null;
      for (int s = 1; s <= 600; s++) {
        sim.advanceTo(T0.plusSeconds(s));
        for (String node : sim.nodes()) {
          SimulatedNodeSources src = sources.get(node);
          for (SimulatedNetdev nd : src.netdevs()) {
            SimulatedEthtoolTest.EthtoolSample now =
                SimulatedEthtoolTest.ethtool(sim, node, nd.netdev());
            SimulatedEthtoolTest.EthtoolSample prev = last.put(node + nd.netdev(), now);
            if (prev != null) {
              assertTrue(SimulatedEthtoolTest.ratio(prev, now, "rx_prio3_pause_duration") < 0.8);
              assertTrue(SimulatedEthtoolTest.ratio(prev, now, "tx_prio3_pause_duration") < 0.8);
              assertEquals(
                  prev.ecn("rp_cnp_ignored"), now.ecn("rp_cnp_ignored"), "CNPs are handled");
              assertTrue(now.ecn("rp_cnp_handled") >= prev.ecn("rp_cnp_handled"));
              assertTrue(
                  now.ecn("np_cnp_sent") - prev.ecn("np_cnp_sent")
                      == now.ecn("np_ecn_marked_roce_packets")
                          - prev.ecn("np_ecn_marked_roce_packets"),
                  "a CNP for every mark");
            }
            assertEquals(0, now.pfc("rx_prio3_buf_discard"));
            assertEquals(0, now.pfc("rx_prio3_cong_discard"));
            assertEquals(0, now.pfc("tx_pause_storm_warning_events"));
            assertFalse(now.hasPfc("rx_prio0_pause"), "PFC on prio 3 only");
            PortCounters port = SimulatedEthtoolTest.port(sim, node, nd.netdev());
            assertEquals(9000, port.getNetdevMtu());
          }
          if (s % 10 == 0) {
            for (GpuEcc gpu : SimulatedLogsTest.gpus(sim, node)) {
              assertTrue(gpu.getTemperatureGpu() < 85, gpu.toString());
              assertEquals(0L, gpu.getEccCorrectedVolatile());
              assertEquals(0L, gpu.getEccUncorrectedVolatile());
              assertEquals(false, gpu.getRemappedRowsPending());
            }
          }
          assertTrue(SimulatedLogsTest.xids(sim, src).isEmpty(), "no Xid");
          ncclLines.addAll(SimulatedLogsTest.nccl(sim, src));
        }
        if (s % 10 == 0) {
          var info = SimulatedLogsTest.sminfo(sim);
          assertEquals(SmEventKind.SMINFO_POLL, info.getEvent());
          assertEquals("MASTER", info.getSmState());
          masterGuid = masterGuid == null ? info.getSmGuid() : masterGuid;
          assertEquals(masterGuid, info.getSmGuid());
        }
      }
      for (String host : sim.smHosts()) {
        var events =
            SimulatedLogsTest.openSm(sim, sources.get(host).openSmLog().orElseThrow(), host);
        assertTrue(
            events.stream().allMatch(e -> e.getTime().isBefore(T0.plusSeconds(1))),
            "only start-up lines");
      }
      assertFalse(ncclLines.stream().anyMatch(l -> l.getRawLine().contains("Disabled")));
      Map<String, NcclTransportVerdict> verdicts = NcclTransportVerdict.byGroup(ncclLines);
      assertEquals(sim.nodes().size(), verdicts.size());
      for (NcclTransportVerdict v : verdicts.values()) {
        assertEquals("IB", v.net());
        assertEquals(true, v.gdr());
      }
    }
  }

  @Test
  void faultsOfTheFullScriptShowAtTheirTimes() throws IOException {
    FabricSimulator sim = demo(16, 8);
    List<InjectedFault> faults = DemoFaults.scheduleAll(sim, T0, Duration.ofMinutes(10));
    InjectedFault mtu =
        faults.stream().filter(f -> f.kind() == FaultKind.MTU_MISMATCH).findFirst().orElseThrow();
    sim.advanceTo(mtu.start().minusSeconds(1));
    assertEquals(9000, SimulatedEthtoolTest.port(sim, mtu.node(), mtu.device()).getNetdevMtu());
    sim.advanceTo(mtu.start());
    assertEquals(1500, SimulatedEthtoolTest.port(sim, mtu.node(), mtu.device()).getNetdevMtu());
  }
}
