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
  /**
   * Nodes {@link #scheduleAll} needs: 6 port-fault nodes, the storm origin and 2 victims, 4
   * ethtool-fault nodes, 1 node for the 4 GPU faults (distinct GPUs), 2 nodes for the 2 NCCL jobs
   * (distinct job ids).
   */
  public static final int MIN_NODES = 16;

  /** From this many nodes on, every GPU fault and every NCCL job gets nodes of its own. */
  public static final int NODES_FOR_ONE_FAULT_PER_NODE = 21;

  /** The shortest window: the SM failover needs its 40 s handoff [OSM-base] inside it. */
  public static final Duration MIN_WINDOW = Duration.ofSeconds(60);

  /**
   * The shortest LINK_DOWN drop, also in compressed windows: the link-down rule pages a port only
   * after it stayed down for its {@code down_for} (4 min in alert-rules/link.yaml, after gpud and
   * NVSentinel [GPUD-drop][NVS-047]), so a drop compressed below it is never paged and a short demo
   * could not be exact. 30 s of margin over those 4 min; a drop may then outlast a short window.
   */
  public static final Duration SHORTEST_LINK_DOWN = Duration.ofSeconds(270);

  private DemoFaults() {}

  /**
   * One fault of every {@link FaultKind} inside [from, from + window), plus a healthy NCCL job
   * (GPUDirect RDMA on, must raise nothing). Returns the faults in the order scripted: the six of
   * {@link #schedulePortFaults} (nodes 1-6), then PFC_PAUSE_STORM (origin node 7, victims 8 and 9,
   * on the first ethtool netdev), PFC_MISCONFIG (prio 0), ECN_MISCONFIG, LOSSLESS_DROP,
   * MTU_MISMATCH (1500) on nodes 10-13, SM_FAILOVER (sm01), GPU_ECC_GROWTH, GPU_ECC_UNCORRECTABLE,
   * GPU_ROW_REMAP_PENDING, GPU_HOT (92 C) on GPUs 0-3, NCCL_GDR_FALLBACK and NCCL_SOCKET_FALLBACK
   * (2-node jobs); on an InfiniBand fleet then the three faults of {@link #scheduleIslFaults}.
   *
   * <p>Placement: with {@link #MIN_NODES} nodes every node shows alerts of one kind only, except
   * that the four GPU faults share one node (one GPU each, alerts carry the GPU) and the two NCCL
   * jobs share two nodes (alerts carry the job). With {@link #NODES_FOR_ONE_FAULT_PER_NODE} or
   * more, each GPU fault and each job has nodes of its own. The healthy job runs on the
   * PFC_MISCONFIG and ECN_MISCONFIG nodes. Detection is checked by (kind, node, subject).
   *
   * <p>On an InfiniBand fleet the PFC_MISCONFIG node is {@link FabricSimulator#E810_NODE}, whose
   * storage NIC is an Intel E810: that fault is seen through ice's XOFF counters ({@code
   * tx/rx_priority_0_xoff.nic}), so the demo's exact detection covers a second NIC vendor.
   *
   * @throws IllegalArgumentException with fewer than {@link #MIN_NODES} nodes or a window shorter
   *     than {@link #MIN_WINDOW}
   */
  public static List<InjectedFault> scheduleAll(
      FabricSimulator sim, Instant from, Duration window) {
    List<String> nodes = sim.nodes();
    if (nodes.size() < MIN_NODES || window.compareTo(MIN_WINDOW) < 0) {
      throw new IllegalArgumentException(
          "one fault of every kind needs at least "
              + MIN_NODES
              + " nodes and a window of "
              + MIN_WINDOW.toSeconds()
              + " s: "
              + nodes.size()
              + " nodes, "
              + window.toSeconds()
              + " s");
    }
    boolean spacious = nodes.size() >= NODES_FOR_ONE_FAULT_PER_NODE;
    List<InjectedFault> scheduled = new ArrayList<>(schedulePortFaults(sim, from, window));
    String netdev = sim.netdevs(nodes.get(6)).get(0).netdev();
    Duration stormLength = max(part(window, 0.2), Duration.ofSeconds(12));
    scheduled.add(
        sim.pfcPauseStorm(
            nodes.get(6), netdev, at(from, window, 0.30), stormLength, nodes.get(7), nodes.get(8)));
    // each node's own first netdev: gpu010's is the E810's ens9f0 on an InfiniBand fleet
    scheduled.add(
        sim.pfcMisconfig(
            nodes.get(9),
            firstNetdev(sim, nodes.get(9)),
            0,
            at(from, window, 0.35),
            part(window, 0.2)));
    scheduled.add(
        sim.ecnMisconfig(nodes.get(10), netdev, at(from, window, 0.40), part(window, 0.2)));
    scheduled.add(
        sim.losslessDrop(nodes.get(11), netdev, at(from, window, 0.45), part(window, 0.2)));
    scheduled.add(
        sim.mtuMismatch(nodes.get(12), netdev, 1500, at(from, window, 0.30), part(window, 0.3)));
    scheduled.add(sim.smFailover(at(from, window, 0.20)));
    String eccGrowthNode = nodes.get(13);
    String uncorrectableNode = spacious ? nodes.get(16) : nodes.get(13);
    String remapNode = spacious ? nodes.get(17) : nodes.get(13);
    String hotNode = spacious ? nodes.get(18) : nodes.get(13);
    scheduled.add(
        sim.gpuEccGrowth(eccGrowthNode, 0, at(from, window, 0.25), part(window, 0.3), 120));
    scheduled.add(sim.gpuEccUncorrectable(uncorrectableNode, 1, at(from, window, 0.50)));
    scheduled.add(sim.gpuRowRemapPending(remapNode, 2, at(from, window, 0.55)));
    scheduled.add(sim.gpuHot(hotNode, 3, at(from, window, 0.30), part(window, 0.3), 92));
    List<String> gdrJobNodes = List.of(nodes.get(14), nodes.get(15));
    List<String> socketJobNodes =
        spacious ? List.of(nodes.get(19), nodes.get(20)) : List.of(nodes.get(14), nodes.get(15));
    scheduled.add(sim.ncclGdrFallback("job-gdr-fallback", gdrJobNodes, at(from, window, 0.15)));
    scheduled.add(
        sim.ncclSocketFallback("job-socket-fallback", socketJobNodes, at(from, window, 0.35)));
    sim.ncclJob("job-healthy", List.of(nodes.get(9), nodes.get(10)), at(from, window, 0.05));
    sim.fatTree().ifPresent(tree -> scheduled.addAll(scheduleIslFaults(tree, from, window)));
    return scheduled;
  }

  /**
   * ISL_FLAP on leaf02-spine01 (3 drops, timed like {@link #schedulePortFaults}' host flap),
   * ISL_SYMBOL_ERRORS on leaf03-spine02 and ISL_NARROW_WIDTH on leaf04-spine03, inside [from, from
   * + window).
   */
  public static List<InjectedFault> scheduleIslFaults(
      SimulatedFatTree tree, Instant from, Duration window) {
    boolean realistic = window.compareTo(Duration.ofMinutes(10)) >= 0;
    Duration down = realistic ? FabricSimulator.FLAP_DOWN : Duration.ofSeconds(3);
    Duration up = realistic ? FabricSimulator.FLAP_UP : Duration.ofSeconds(5);
    return List.of(
        tree.islFlap(2, 1, at(from, window, 0.15), 3, down, up),
        tree.islFault(FaultKind.ISL_SYMBOL_ERRORS, 3, 2, at(from, window, 0.25), part(window, 0.2)),
        tree.islFault(FaultKind.ISL_NARROW_WIDTH, 4, 3, at(from, window, 0.35), part(window, 0.3)));
  }

  private static String firstNetdev(FabricSimulator sim, String node) {
    return sim.netdevs(node).get(0).netdev();
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /**
   * Schedules LINK_FLAP, LINK_DEGRADED, SYMBOL_ERROR_BURST, LINK_DOWN, COUNTER_CLEAR and
   * NODE_REBOOT inside [from, from + window). Windows of 10 minutes or more get the real-world
   * timings (flaps of 26 s down / 34 s up [GPUD-flap], a 5-minute drop [GPUD-drop]); shorter
   * windows get the same shapes compressed (3 s down / 5 s up), and a drop of 40% of the window but
   * never shorter than {@link #SHORTEST_LINK_DOWN}.
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
    Duration drop = realistic ? Duration.ofMinutes(5) : max(part(window, 0.4), SHORTEST_LINK_DOWN);
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
