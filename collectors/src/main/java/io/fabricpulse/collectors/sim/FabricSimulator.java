package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A seeded simulated fabric: N nodes with HCAs whose sysfs trees hold exactly the text a real node
 * would, served through {@link SysfsTree} so the real collectors parse them. Time is simulated and
 * moves in whole seconds with {@link #advanceTo(Instant)}; there is no wall clock. For one seed,
 * one fault script and one sequence of instants the text is always the same.
 *
 * <p>Faults are scripted before time reaches them and listed by {@link #faults()}. A fault with
 * start S is visible in every sample read after {@code advanceTo(t)} with S &lt;= t &lt; end.
 * Thread safety: every method and every read of a node tree synchronizes on the simulator, so a
 * collector may read while another thread advances (a sample read across an advance can mix two
 * seconds, as on a real node).
 */
public final class FabricSimulator {

  /** The rate text of an NDR port [K-sysfs]. */
  public static final String NDR_RATE = "400 Gb/sec (4X NDR)";

  /** Down then up phases of one flap: gpud counts a flap after at least 25 s down [GPUD-flap]. */
  public static final Duration FLAP_DOWN = Duration.ofSeconds(26);

  public static final Duration FLAP_UP = Duration.ofSeconds(34);

  private static final Duration STEP = Duration.ofSeconds(1);

  private final SimulatorConfig config;
  private final Map<String, SimulatedNode> nodes = new LinkedHashMap<>();
  private final List<Script> scripts = new ArrayList<>();
  private Instant now;

  /**
   * A fault with what it needs to be played: the degraded rate text, symbol errors per second, or
   * the down and up phases of a flap.
   */
  private record Script(
      InjectedFault fault, String rate, long perSecond, Duration down, Duration up) {

    static Script of(InjectedFault fault) {
      return new Script(fault, null, 0, null, null);
    }

    boolean flapDownAt(Instant t) {
      if (!fault.activeAt(t)) {
        return false;
      }
      long intoCycle = Duration.between(fault.start(), t).toMillis() % down.plus(up).toMillis();
      return intoCycle < down.toMillis();
    }
  }

  public FabricSimulator(SimulatorConfig config) {
    this.config = config;
    this.now = config.start();
    SplittableRandom seeds = new SplittableRandom(config.seed());
    boolean roce = config.linkLayer() == LinkLayer.ROCE;
    for (int n = 1; n <= config.nodes(); n++) {
      String name = String.format("gpu%03d", n);
      SimulatedNode node = new SimulatedNode(config.cluster(), name, config.seed(), this);
      for (int h = 0; h < config.hcasPerNode(); h++) {
        String netdev = roce ? "ens" + (h + 1) + "np0" : null;
        SimulatedPort port =
            new SimulatedPort("mlx5_" + h, 1, netdev, NDR_RATE, roce, seeds.nextLong());
        node.addPort(port, "MT4129", "28.39.1002", config.linkLayer().sysfsText());
      }
      nodes.put(name, node);
    }
  }

  public SimulatorConfig config() {
    return config;
  }

  /** Node names, gpu001 first. */
  public List<String> nodes() {
    return List.copyOf(nodes.keySet());
  }

  /** RDMA devices of every node: mlx5_0 .. mlx5_{n-1}. */
  public List<String> devices() {
    return node(nodes().get(0)).ports.stream().map(p -> p.device).toList();
  }

  /** The node's sysfs tree, rooted like /sys: a live view of the simulator's current state. */
  public SysfsTree nodeTree(String node) {
    return node(node).tree;
  }

  /** Cluster, node and current boot id (a new one after every NODE_REBOOT). */
  public synchronized NodeIdentity identity(String node) {
    return node(node).identity();
  }

  /** The current simulated time. */
  public synchronized Instant now() {
    return now;
  }

  /** Every fault scripted so far, in the order scripted. */
  public synchronized List<InjectedFault> faults() {
    return scripts.stream().map(Script::fault).toList();
  }

  /** Moves simulated time forward one second at a time up to {@code time} (floor to seconds). */
  public synchronized void advanceTo(Instant time) {
    if (time.isBefore(now)) {
      throw new IllegalArgumentException(
          "simulated time only moves forward: " + time + " < " + now);
    }
    while (!now.plus(STEP).isAfter(time)) {
      Instant previous = now;
      now = now.plus(STEP);
      step(previous, now);
    }
  }

  /**
   * LINK_FLAP: {@code flaps} times the port goes DOWN for {@link #FLAP_DOWN} (link_downed + 1, no
   * traffic) and comes back ACTIVE for {@link #FLAP_UP}.
   */
  public InjectedFault linkFlap(String node, String device, Instant start, int flaps) {
    return linkFlap(node, device, start, flaps, FLAP_DOWN, FLAP_UP);
  }

  /** LINK_FLAP with explicit down and up phases (short runs such as a 60 s demo). */
  public synchronized InjectedFault linkFlap(
      String node, String device, Instant start, int flaps, Duration down, Duration up) {
    if (flaps < 1 || down.toSeconds() < 1 || up.toSeconds() < 1) {
      throw new IllegalArgumentException("a flap needs flaps >= 1 and phases of at least 1 s");
    }
    Instant end = start.plus(down.plus(up).multipliedBy(flaps));
    String detail = flaps + " x (" + down.toSeconds() + " s DOWN, " + up.toSeconds() + " s ACTIVE)";
    return add(
        new Script(
            portFault(FaultKind.LINK_FLAP, node, device, start, end, detail), null, 0, down, up));
  }

  /** LINK_DOWN: the port is DOWN (Polling) from start for {@code duration}, link_downed + 1. */
  public synchronized InjectedFault linkDown(
      String node, String device, Instant start, Duration duration) {
    return add(
        Script.of(
            portFault(
                FaultKind.LINK_DOWN, node, device, start, start.plus(duration), "DOWN/Polling")));
  }

  /**
   * LINK_DEGRADED: the port runs at {@code degradedRate} (e.g. {@code 200 Gb/sec (4X HDR)} for a
   * speed drop or {@code 200 Gb/sec (2X NDR)} for a width drop), with traffic scaled to it.
   */
  public synchronized InjectedFault linkDegraded(
      String node, String device, Instant start, Duration duration, String degradedRate) {
    InjectedFault fault =
        portFault(
            FaultKind.LINK_DEGRADED,
            node,
            device,
            start,
            start.plus(duration),
            NDR_RATE + " -> " + degradedRate);
    return add(new Script(fault, degradedRate, 0, null, null));
  }

  /** SYMBOL_ERROR_BURST: symbol_error + perSecond and port_rcv_errors + 1 every second. */
  public synchronized InjectedFault symbolErrorBurst(
      String node, String device, Instant start, Duration duration, long perSecond) {
    InjectedFault fault =
        portFault(
            FaultKind.SYMBOL_ERROR_BURST,
            node,
            device,
            start,
            start.plus(duration),
            perSecond + " symbol errors/s");
    return add(new Script(fault, null, perSecond, null, null));
  }

  /** COUNTER_CLEAR: every PMA counter of the port reset to 0 at {@code at}; must not alert. */
  public synchronized InjectedFault counterClear(String node, String device, Instant at) {
    return add(
        Script.of(
            portFault(FaultKind.COUNTER_CLEAR, node, device, at, at, "PMA counters reset to 0")));
  }

  /** NODE_REBOOT: new boot_id and every counter restarted at {@code at}; must not alert. */
  public synchronized InjectedFault nodeReboot(String node, Instant at) {
    return add(
        Script.of(
            new InjectedFault(FaultKind.NODE_REBOOT, node, null, null, at, at, "new boot_id")));
  }

  private static InjectedFault portFault(
      FaultKind kind, String node, String device, Instant start, Instant end, String detail) {
    return new InjectedFault(kind, node, device, 1, start, end, detail);
  }

  private InjectedFault add(Script script) {
    check(script.fault());
    scripts.add(script);
    return script.fault();
  }

  private void check(InjectedFault fault) {
    SimulatedNode node = node(fault.node());
    if (fault.device() != null
        && node.ports.stream().noneMatch(p -> p.device.equals(fault.device()))) {
      throw new IllegalArgumentException("no device " + fault.device() + " on " + fault.node());
    }
    if (!fault.start().isAfter(now)) {
      throw new IllegalArgumentException(
          "a fault must start after the current simulated time " + now + ": " + fault);
    }
    if (fault.end().isBefore(fault.start())) {
      throw new IllegalArgumentException("fault ends before it starts: " + fault);
    }
  }

  private SimulatedNode node(String name) {
    SimulatedNode node = nodes.get(name);
    if (node == null) {
      throw new IllegalArgumentException("no simulated node " + name);
    }
    return node;
  }

  /** One simulated second (previous, t]: scripted events first, then that second's traffic. */
  private void step(Instant previous, Instant t) {
    for (Script script : scripts) {
      InjectedFault fault = script.fault();
      if (fault.kind() == FaultKind.NODE_REBOOT && happensIn(fault, previous, t)) {
        nodes.get(fault.node()).reboot();
      }
    }
    for (SimulatedNode node : nodes.values()) {
      for (SimulatedPort port : node.ports) {
        stepPort(node.name, port, previous, t);
      }
    }
  }

  private void stepPort(String node, SimulatedPort port, Instant previous, Instant t) {
    boolean down = false;
    String rate = port.nominalRate;
    long symbolErrors = 0;
    for (Script script : scripts) {
      InjectedFault fault = script.fault();
      if (fault.device() == null || !fault.concerns(node, port.device, port.port)) {
        continue;
      }
      switch (fault.kind()) {
        case COUNTER_CLEAR -> {
          if (happensIn(fault, previous, t)) {
            port.clearPma();
          }
        }
        case LINK_DOWN -> down |= fault.activeAt(t);
        case LINK_FLAP -> down |= script.flapDownAt(t);
        case LINK_DEGRADED -> rate = fault.activeAt(t) ? script.rate() : rate;
        case SYMBOL_ERROR_BURST -> symbolErrors += fault.activeAt(t) ? script.perSecond() : 0;
        default -> {}
      }
    }
    if (down && port.up) {
      port.addPma("link_downed", 1);
    }
    port.up = !down;
    port.rate = rate;
    if (port.up) {
      port.traffic(SimulatedNode.rateGbps(rate));
    }
    if (symbolErrors > 0) {
      port.addPma("symbol_error", symbolErrors);
      port.addPma("port_rcv_errors", 1);
    }
  }

  /** An instantaneous event at S is applied in the step (previous, t] that contains S. */
  private static boolean happensIn(InjectedFault fault, Instant previous, Instant t) {
    return fault.start().isAfter(previous) && !fault.start().isAfter(t);
  }
}
