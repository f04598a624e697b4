package io.fabricpulse.collectors.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class FabricSimulatorTest {

  static final Instant T0 = Instant.parse("2025-03-01T00:00:00Z");

  static FabricSimulator sim(int nodes, long seed) {
    return new FabricSimulator(SimulatorConfig.infiniband("sim", nodes, seed, T0));
  }

  /** Every file of a tree and its text, to compare trees. */
  static TreeMap<String, String> dump(SysfsTree tree) throws IOException {
    TreeMap<String, String> files = new TreeMap<>();
    dump(tree, "", files);
    return files;
  }

  private static void dump(SysfsTree tree, String dir, TreeMap<String, String> files)
      throws IOException {
    for (String name : tree.list(dir)) {
      String path = dir.isEmpty() ? name : dir + "/" + name;
      if (tree.list(path).isEmpty()) {
        files.put(path, tree.read(path));
      } else {
        dump(tree, path, files);
      }
    }
  }

  /** The real reader on the simulator's tree of one node, at the simulator's current time. */
  static PortCounters sample(FabricSimulator sim, String node, String device) {
    ParseResult<PortCounters> result =
        new SysfsPortCounterReader(sim.nodeTree(node))
            .read(SampleContext.of(sim.identity(node), sim.now()));
    assertTrue(result.malformed().isEmpty(), result.malformed().toString());
    return result.records().stream()
        .filter(r -> r.getDevice().equals(device))
        .findFirst()
        .orElseThrow();
  }

  static long value(PortCounters record, String name) {
    return counter(record, name).getValue();
  }

  static Counter counter(PortCounters record, String name) {
    return record.getCounters().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name));
  }

  static PortCounters at(FabricSimulator sim, long second, String node, String device) {
    sim.advanceTo(T0.plusSeconds(second));
    return sample(sim, node, device);
  }

  @Test
  void sameSeedSameTextDifferentSeedDifferentText() throws IOException {
    FabricSimulator a = sim(2, 42);
    FabricSimulator b = sim(2, 42);
    FabricSimulator c = sim(2, 43);
    a.linkFlap("gpu002", "mlx5_3", T0.plusSeconds(3), 1);
    b.linkFlap("gpu002", "mlx5_3", T0.plusSeconds(3), 1);
    a.advanceTo(T0.plusSeconds(10));
    b.advanceTo(T0.plusSeconds(4)); // a different sequence of advances reaches the same state
    b.advanceTo(T0.plusSeconds(10).plusMillis(999));
    c.advanceTo(T0.plusSeconds(10));

    assertEquals(dump(a.nodeTree("gpu002")), dump(b.nodeTree("gpu002")));
    assertEquals(a.identity("gpu001"), b.identity("gpu001"));
    assertNotEquals(dump(a.nodeTree("gpu002")), dump(c.nodeTree("gpu002")));
    assertEquals(T0.plusSeconds(10), b.now());
  }

  @Test
  void realReaderParsesSimulatorOutput() {
    FabricSimulator sim = sim(3, 7);
    assertEquals(List.of("gpu001", "gpu002", "gpu003"), sim.nodes());
    sim.advanceTo(T0.plusSeconds(5));
    ParseResult<PortCounters> result =
        new SysfsPortCounterReader(sim.nodeTree("gpu002"))
            .read(SampleContext.of(sim.identity("gpu002"), sim.now()));

    assertTrue(result.malformed().isEmpty());
    assertEquals(9, result.records().size(), "8 InfiniBand HCAs and the RoCE storage NIC");
    PortCounters storage = result.records().get(8);
    assertEquals("mlx5_8", storage.getDevice());
    assertEquals("Ethernet", storage.getLinkLayer());
    assertEquals("ens9f0np0", storage.getNetdev());
    assertEquals(9000, storage.getNetdevMtu());
    assertEquals(100.0, storage.getRateGbps());
    assertEquals(
        List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"),
        sim.devices());
    for (int i = 0; i < 8; i++) {
      PortCounters p = result.records().get(i);
      assertEquals("mlx5_" + i, p.getDevice());
      assertEquals(1, p.getPort());
      assertEquals("sim", p.getCluster());
      assertEquals("gpu002", p.getNode());
      assertEquals("400 Gb/sec (4X NDR)", p.getRate());
      assertEquals(400.0, p.getRateGbps());
      assertEquals("4X", p.getLinkWidth());
      assertEquals("ACTIVE", p.getState());
      assertEquals("LinkUp", p.getPhysState());
      assertEquals("InfiniBand", p.getLinkLayer());
      assertNull(p.getNetdev());
      assertTrue(p.getReadErrors().isEmpty());
      assertEquals(21 + 24, p.getCounters().size(), "21 PMA + 24 q counters, lifespan skipped");
      assertEquals(64, counter(p, "port_xmit_data").getWidth(), "extended PMA set");
      assertEquals(32, counter(p, "rx_write_requests").getWidth());
      assertEquals(CounterGroup.HW_COUNTERS, counter(p, "rx_write_requests").getGroup());
    }
  }

  @Test
  void trafficAdvancesPlausiblyPerSecond() {
    FabricSimulator sim = sim(1, 11);
    PortCounters first = at(sim, 10, "gpu001", "mlx5_5");
    PortCounters second = at(sim, 11, "gpu001", "mlx5_5");

    long bytes = (value(second, "port_xmit_data") - value(first, "port_xmit_data")) * 4;
    assertTrue(
        bytes > 0.1 * 50e9 && bytes <= 50e9, "one second at 400 Gb/s is at most 50 GB: " + bytes);
    long packets = value(second, "port_xmit_packets") - value(first, "port_xmit_packets");
    assertEquals(bytes / 4096, packets, bytes / 4096 / 100 + 2.0);
    assertTrue(value(second, "port_xmit_wait") >= value(first, "port_xmit_wait"));
  }

  @Test
  void roceHasNetdevsMtu9000AndCongestionCounters() {
    FabricSimulator sim = new FabricSimulator(SimulatorConfig.roce("sim", 1, 5, T0));
    PortCounters p = at(sim, 3, "gpu001", "mlx5_2");

    assertEquals("Ethernet", p.getLinkLayer());
    assertEquals("ens3np0", p.getNetdev());
    assertEquals(9000, p.getNetdevMtu());
    assertEquals(400000, p.getNetdevSpeedMbps());
    assertEquals(64, counter(p, "np_ecn_marked_roce_packets").getWidth());
    assertTrue(value(p, "np_cnp_sent") > 0);
  }

  @Test
  void linkFlapGoesDownAndUpWithLinkDownedCounting() {
    FabricSimulator sim = sim(2, 1);
    Instant start = T0.plusSeconds(100);
    InjectedFault flap = sim.linkFlap("gpu002", "mlx5_4", start, 3);
    assertEquals(start.plusSeconds(180), flap.end());

    PortCounters before = at(sim, 99, "gpu002", "mlx5_4");
    assertEquals("ACTIVE", before.getState());
    long downed = value(before, "link_downed");

    PortCounters firstDown = at(sim, 100, "gpu002", "mlx5_4");
    assertEquals("DOWN", firstDown.getState());
    assertEquals("Polling", firstDown.getPhysState());
    assertEquals(downed + 1, value(firstDown, "link_downed"));
    PortCounters stillDown = at(sim, 125, "gpu002", "mlx5_4");
    assertEquals("DOWN", stillDown.getState());
    assertEquals(
        value(firstDown, "port_xmit_data"),
        value(stillDown, "port_xmit_data"),
        "no traffic while down");
    assertEquals("ACTIVE", at(sim, 126, "gpu002", "mlx5_4").getState());
    assertEquals(downed + 2, value(at(sim, 160, "gpu002", "mlx5_4"), "link_downed"));
    assertEquals("DOWN", at(sim, 220, "gpu002", "mlx5_4").getState());
    PortCounters after = at(sim, 280, "gpu002", "mlx5_4");
    assertEquals("ACTIVE", after.getState());
    assertEquals(downed + 3, value(after, "link_downed"));
    assertEquals(downed + 3, value(at(sim, 400, "gpu002", "mlx5_4"), "link_downed"), "over");
    assertEquals("ACTIVE", sample(sim, "gpu002", "mlx5_3").getState(), "other ports untouched");
    assertEquals(0, value(sample(sim, "gpu001", "mlx5_4"), "link_downed"));
  }

  @Test
  void linkDownForMinutes() {
    FabricSimulator sim = sim(1, 2);
    sim.linkDown("gpu001", "mlx5_0", T0.plusSeconds(10), Duration.ofMinutes(5));

    assertEquals("ACTIVE", at(sim, 9, "gpu001", "mlx5_0").getState());
    PortCounters down = at(sim, 10, "gpu001", "mlx5_0");
    assertEquals("DOWN", down.getState());
    assertEquals(1, value(down, "link_downed"));
    assertEquals("DOWN", at(sim, 309, "gpu001", "mlx5_0").getState());
    PortCounters back = at(sim, 310, "gpu001", "mlx5_0");
    assertEquals("ACTIVE", back.getState());
    assertEquals(1, value(back, "link_downed"));
  }

  @Test
  void linkDegradedSpeedOrWidth() {
    FabricSimulator sim = sim(1, 3);
    sim.linkDegraded(
        "gpu001", "mlx5_6", T0.plusSeconds(20), Duration.ofSeconds(30), "200 Gb/sec (4X HDR)");
    sim.linkDegraded(
        "gpu001", "mlx5_7", T0.plusSeconds(20), Duration.ofSeconds(30), "200 Gb/sec (2X NDR)");

    assertEquals(400.0, at(sim, 19, "gpu001", "mlx5_6").getRateGbps());
    PortCounters slow = at(sim, 20, "gpu001", "mlx5_6");
    assertEquals("200 Gb/sec (4X HDR)", slow.getRate());
    assertEquals(200.0, slow.getRateGbps());
    assertEquals("4X", slow.getLinkWidth());
    PortCounters narrow = sample(sim, "gpu001", "mlx5_7");
    assertEquals(200.0, narrow.getRateGbps());
    assertEquals("2X", narrow.getLinkWidth());
    PortCounters next = at(sim, 21, "gpu001", "mlx5_6");
    assertTrue(
        (value(next, "port_xmit_data") - value(slow, "port_xmit_data")) * 4 <= 25e9,
        "at most 200 Gb/s");
    assertEquals("ACTIVE", next.getState());
    assertEquals("400 Gb/sec (4X NDR)", at(sim, 50, "gpu001", "mlx5_6").getRate());
  }

  @Test
  void symbolErrorBurst() {
    FabricSimulator sim = sim(1, 4);
    sim.symbolErrorBurst("gpu001", "mlx5_2", T0.plusSeconds(30), Duration.ofSeconds(10), 50);

    long before = value(at(sim, 29, "gpu001", "mlx5_2"), "symbol_error");
    PortCounters end = at(sim, 39, "gpu001", "mlx5_2");
    long during = value(end, "symbol_error") - before;
    assertTrue(
        during >= 500 && during <= 501, "10 s x 50/s (plus at most one background): " + during);
    assertTrue(value(end, "port_rcv_errors") >= 10);
    long after =
        value(at(sim, 100, "gpu001", "mlx5_2"), "symbol_error") - value(end, "symbol_error");
    assertTrue(after <= 1, "burst over: " + after);
  }

  @Test
  void symbolErrorsSaturateAt16Bits() {
    FabricSimulator sim = sim(1, 4);
    sim.symbolErrorBurst("gpu001", "mlx5_2", T0.plusSeconds(1), Duration.ofSeconds(10), 10_000);
    assertEquals(65535, value(at(sim, 20, "gpu001", "mlx5_2"), "symbol_error"));
  }

  @Test
  void counterClearResetsPmaCountersWithoutReboot() {
    FabricSimulator sim = sim(1, 5);
    sim.counterClear("gpu001", "mlx5_1", T0.plusSeconds(60));
    PortCounters before = at(sim, 59, "gpu001", "mlx5_1");
    PortCounters cleared = at(sim, 60, "gpu001", "mlx5_1");

    assertEquals(before.getBootId(), cleared.getBootId());
    assertTrue(value(cleared, "port_xmit_data") < value(before, "port_xmit_data"));
    assertTrue(
        value(cleared, "port_xmit_data") * 4 <= 50e9, "one second of traffic since the clear");
    assertTrue(value(cleared, "port_xmit_wait") < 200_000);
    assertTrue(
        value(sample(sim, "gpu001", "mlx5_0"), "port_xmit_data") > 1L << 33,
        "other ports keep their counters");
  }

  @Test
  void nodeRebootChangesBootIdAndRestartsCounters() {
    FabricSimulator sim = sim(2, 6);
    String bootBefore = sim.identity("gpu001").bootId();
    String otherBoot = sim.identity("gpu002").bootId();
    sim.nodeReboot("gpu001", T0.plusSeconds(30));

    PortCounters before = at(sim, 29, "gpu001", "mlx5_3");
    assertEquals(bootBefore, before.getBootId());
    PortCounters after = at(sim, 30, "gpu001", "mlx5_3");
    assertNotEquals(bootBefore, after.getBootId());
    assertTrue(value(after, "port_xmit_data") * 4 <= 50e9);
    assertTrue(
        value(after, "rx_write_requests") < value(before, "rx_write_requests")
            || value(before, "rx_write_requests") < 2_000_000);
    assertEquals(otherBoot, sim.identity("gpu002").bootId());
  }

  @Test
  void qCountersWrapAt32Bits() {
    FabricSimulator sim = sim(1, 9);
    long[] last = new long[8];
    int wraps = 0;
    for (int s = 1; s <= 4000; s += 50) {
      sim.advanceTo(T0.plusSeconds(s));
      for (int d = 0; d < 8; d++) {
        long v = value(sample(sim, "gpu001", "mlx5_" + d), "rx_write_requests");
        assertTrue(v >= 0 && v <= 0xFFFF_FFFFL);
        if (s > 1 && v < last[d]) {
          wraps++;
        }
        last[d] = v;
      }
    }
    assertTrue(wraps > 0, "some rx_write_requests wrapped in 4000 s");
  }

  @Test
  void faultsAreListedWithTheirExpectedAlerts() {
    FabricSimulator sim = sim(6, 8);
    List<InjectedFault> scheduled = DemoFaults.schedulePortFaults(sim, T0, Duration.ofSeconds(60));

    assertEquals(scheduled, sim.faults());
    assertEquals(
        List.of(
            FaultKind.LINK_FLAP,
            FaultKind.LINK_DEGRADED,
            FaultKind.SYMBOL_ERROR_BURST,
            FaultKind.LINK_DOWN,
            FaultKind.COUNTER_CLEAR,
            FaultKind.NODE_REBOOT),
        sim.faults().stream().map(InjectedFault::kind).toList());
    assertEquals(Optional.of(AlertKind.LINK_FLAP), sim.faults().get(0).expectedAlert());
    assertEquals(Optional.empty(), sim.faults().get(4).expectedAlert());
    assertEquals(Optional.empty(), sim.faults().get(5).expectedAlert());
    for (InjectedFault f : sim.faults()) {
      assertTrue(f.start().isAfter(T0) && f.start().isBefore(T0.plusSeconds(61)), f.toString());
      if (f.kind() == FaultKind.LINK_DOWN) {
        // long enough for the link-down rule's down_for, even in a one-minute window
        assertEquals(DemoFaults.SHORTEST_LINK_DOWN, Duration.between(f.start(), f.end()));
      } else {
        assertTrue(f.end().isBefore(T0.plusSeconds(61)), f.toString());
      }
    }
    InjectedFault flap = sim.faults().get(0);
    assertEquals("gpu001", flap.node());
    assertEquals("mlx5_0", flap.device());
    assertEquals(1, flap.port());
    sim.advanceTo(flap.start());
    assertEquals("DOWN", sample(sim, "gpu001", "mlx5_0").getState());
  }

  @Test
  void everyKindOfIssue3IsListed() {
    // issue 3's 18, and issue 13's three faults of a leaf-spine cable
    assertEquals(18 + 3, FaultKind.values().length);
    assertEquals(
        List.of(AlertKind.LINK_DEGRADED), FaultKind.ISL_NARROW_WIDTH.alsoExpected(), "both ends");
    EnumSet<FaultKind> silent = EnumSet.noneOf(FaultKind.class);
    for (FaultKind kind : FaultKind.values()) {
      if (kind.expectedAlert().isEmpty()) {
        silent.add(kind);
      }
    }
    assertEquals(EnumSet.of(FaultKind.COUNTER_CLEAR, FaultKind.NODE_REBOOT), silent);
    assertEquals(Optional.of(AlertKind.PAUSE_STORM), FaultKind.PFC_PAUSE_STORM.expectedAlert());
    assertEquals(
        Optional.of(AlertKind.NET_FALLBACK_SOCKET), FaultKind.NCCL_SOCKET_FALLBACK.expectedAlert());
  }

  @Test
  void rejectsFaultsInThePastAndUnknownDevices() {
    FabricSimulator sim = sim(1, 1);
    sim.advanceTo(T0.plusSeconds(10));
    assertThrows(
        IllegalArgumentException.class,
        () -> sim.counterClear("gpu001", "mlx5_0", T0.plusSeconds(5)));
    assertThrows(
        IllegalArgumentException.class,
        () -> sim.counterClear("gpu001", "mlx5_9", T0.plusSeconds(50)));
    assertThrows(
        IllegalArgumentException.class, () -> sim.nodeReboot("gpu404", T0.plusSeconds(50)));
    assertThrows(IllegalArgumentException.class, () -> sim.advanceTo(T0));
  }
}
