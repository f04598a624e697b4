package io.fabricpulse.collectors.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A ready-made script of one fault of every implemented port kind, fitted into a run window, for
 * {@code demo} and end-to-end tests. Placement is deterministic: fault i goes to node i (modulo the
 * node count) and device mlx5_i (modulo the HCA count).
 */
public final class DemoFaults {
  private DemoFaults() {}

  /**
   * Schedules LINK_FLAP, LINK_DEGRADED, SYMBOL_ERROR_BURST, LINK_DOWN, COUNTER_CLEAR and
   * NODE_REBOOT inside [from, from + window). Windows of 10 minutes or more get the real-world
   * timings (flaps of 26 s down / 34 s up [GPUD-flap], a 5-minute drop [GPUD-drop]); shorter
   * windows get the same shapes compressed (3 s down / 5 s up, a drop of 40% of the window).
   */
  public static List<InjectedFault> schedulePortFaults(
      FabricSimulator sim, Instant from, Duration window) {
    List<String> nodes = sim.nodes();
    List<String> devices = sim.devices();
    boolean realistic = window.compareTo(Duration.ofMinutes(10)) >= 0;
    List<InjectedFault> scheduled = new ArrayList<>();
    Duration down = realistic ? FabricSimulator.FLAP_DOWN : Duration.ofSeconds(3);
    Duration up = realistic ? FabricSimulator.FLAP_UP : Duration.ofSeconds(5);
    scheduled.add(
        sim.linkFlap(node(nodes, 0), device(devices, 0), at(from, window, 0.10), 3, down, up));
    scheduled.add(
        sim.linkDegraded(
            node(nodes, 1),
            device(devices, 1),
            at(from, window, 0.15),
            part(window, 0.5),
            "200 Gb/sec (4X HDR)"));
    scheduled.add(
        sim.symbolErrorBurst(
            node(nodes, 2), device(devices, 2), at(from, window, 0.20), part(window, 0.2), 50));
    Duration drop = realistic ? Duration.ofMinutes(5) : part(window, 0.4);
    scheduled.add(sim.linkDown(node(nodes, 3), device(devices, 3), at(from, window, 0.25), drop));
    scheduled.add(sim.counterClear(node(nodes, 4), device(devices, 4), at(from, window, 0.50)));
    scheduled.add(sim.nodeReboot(node(nodes, 5), at(from, window, 0.60)));
    return scheduled;
  }

  private static String node(List<String> nodes, int i) {
    return nodes.get(i % nodes.size());
  }

  private static String device(List<String> devices, int i) {
    return devices.get(i % devices.size());
  }

  private static Instant at(Instant from, Duration window, double fraction) {
    return from.plus(part(window, fraction)).plusSeconds(1);
  }

  private static Duration part(Duration window, double fraction) {
    return Duration.ofSeconds(Math.max(1, (long) (window.toSeconds() * fraction)));
  }
}
