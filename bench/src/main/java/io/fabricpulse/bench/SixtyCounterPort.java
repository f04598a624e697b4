package io.fabricpulse.bench;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A RoCE port sample with exactly 60 counters, the size docs/design.md (section 1) budgets for one
 * port record: the 49 counters the simulator serves for a RoCE port (21 PMA, 24 mlx5 q counters, 4
 * congestion counters), 3 more mlx5 hw_counters a ConnectX-6/7 also exposes, and the 8 legacy
 * {@code counters_ext} 64-bit PMA counters [K-sysfs] carrying the values of their {@code counters/}
 * twins.
 */
final class SixtyCounterPort {

  static final int COUNTERS = 60;
  static final Instant START = Instant.parse("2025-01-23T17:07:40Z");

  private static final List<String> EXTRA_HW_COUNTERS =
      List.of("req_rnr_retries_exceeded", "req_transport_retries_exceeded", "rx_icrc_encapsulated");

  /** counters_ext name -> the counters/ counter whose value it repeats. */
  private static final Map<String, String> COUNTERS_EXT =
      Map.of(
          "port_xmit_data_64", "port_xmit_data",
          "port_rcv_data_64", "port_rcv_data",
          "port_xmit_packets_64", "port_xmit_packets",
          "port_rcv_packets_64", "port_rcv_packets",
          "port_unicast_xmit_packets", "unicast_xmit_packets",
          "port_unicast_rcv_packets", "unicast_rcv_packets",
          "port_multicast_xmit_packets", "multicast_xmit_packets",
          "port_multicast_rcv_packets", "multicast_rcv_packets");

  private SixtyCounterPort() {}

  /**
   * Samples of mlx5_0 on node gpu001 of a seeded RoCE simulator, one per second from 10 s after
   * {@link #START}.
   */
  static List<PortCounters> samples(int seconds) {
    FabricSimulator simulator = new FabricSimulator(SimulatorConfig.roce("bench", 1, 42L, START));
    String node = simulator.nodes().get(0);
    SysfsPortCounterReader reader = new SysfsPortCounterReader(simulator.nodeTree(node));
    List<PortCounters> samples = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      Instant time = START.plusSeconds(10 + s);
      simulator.advanceTo(time);
      PortCounters port =
          reader.read(SampleContext.of(simulator.identity(node), time)).records().get(0);
      samples.add(widen(port));
    }
    return samples;
  }

  private static PortCounters widen(PortCounters port) {
    List<Counter> counters = new ArrayList<>(port.getCounters());
    for (String name : EXTRA_HW_COUNTERS) {
      counters.add(new Counter(name, CounterGroup.HW_COUNTERS, 0L, 32, null));
    }
    COUNTERS_EXT.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                counters.add(
                    new Counter(
                        e.getKey(),
                        CounterGroup.COUNTERS_EXT,
                        valueOf(port, e.getValue()),
                        64,
                        null)));
    if (counters.size() != COUNTERS) {
      throw new IllegalStateException(
          "expected " + COUNTERS + " counters, simulator gave " + port.getCounters().size());
    }
    return PortCounters.newBuilder(port).setCounters(counters).build();
  }

  private static Long valueOf(PortCounters port, String name) {
    return port.getCounters().stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + name + " in " + port))
        .getValue();
  }
}
