package io.fabricpulse.collectors.sim;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;

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

  /**
   * The node of an InfiniBand fleet (from 10 nodes on) whose storage NIC is an Intel E810 (ice
   * netdev {@link #E810_NETDEV}, irdma RDMA device {@link #E810_DEVICE}) instead of a ConnectX: its
   * ethtool and hw_counters names are Intel's, so the demo exercises detection on a second vendor.
   */
  public static final String E810_NODE = "gpu010";

  public static final String E810_NETDEV = "ens9f0";
  public static final String E810_DEVICE = "irdma0";

  /** The rate text of the 100 GbE RoCE storage NIC of InfiniBand nodes (sysfs rate). */
  public static final String STORAGE_RATE = "100 Gb/sec (4X EDR)";

  /** Time zone of every simulated host's local time (OpenSM log headers). */
  public static final ZoneId LOG_ZONE = ZoneOffset.UTC;

  /** A pause storm reaches its first victim this long after it starts, the next ones 1 s apart. */
  public static final Duration STORM_SPREAD = Duration.ofSeconds(3);

  /** mlx5 PFC stall prevention's default critical timeout: the error watermark [K-pfcstall]. */
  static final Duration STALL_ERROR_AFTER = Duration.ofSeconds(8);

  private static final Duration STEP = Duration.ofSeconds(1);

  private final SimulatorConfig config;
  private final Map<String, SimulatedNode> nodes = new LinkedHashMap<>();
  private final Map<String, SimulatedGpus> gpus = new LinkedHashMap<>();
  private final Map<String, SimulatedKernelLog> kernelLogs = new LinkedHashMap<>();
  private final Map<String, SimulatedNcclJob.NodeLog> ncclLogs = new LinkedHashMap<>();
  private final List<SimulatedNcclJob> jobs = new ArrayList<>();
  private final SimulatedSubnetManager subnetManager;
  private final SimulatedFatTree fatTree;
  private final SimulatedEthernetFabric ethernet;
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

    /** A fault with one number: priority, MTU, errors per minute or temperature. */
    static Script of(InjectedFault fault, long amount) {
      return new Script(fault, null, amount, null, null);
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
      if (!roce) {
        // InfiniBand GPU nodes carry a RoCE Ethernet NIC for storage and the front end next to the
        // compute HCAs (8x MT4129 plus MT4125, ibstat of leptonai/gpud testdata
        // ibstat.47.0.all.active.0).
        // It is the one netdev with ethtool PFC/ECN counters on such a node.
        int h = config.hcasPerNode();
        if (name.equals(E810_NODE)) {
          SimulatedPort storage =
              new SimulatedPort(
                  E810_DEVICE,
                  1,
                  E810_NETDEV,
                  STORAGE_RATE,
                  true,
                  SimulatedPort.Nic.E810,
                  seeds.nextLong());
          // hca_type and fw_ver are illustrative; no collector reads them.
          node.addPort(storage, "E810", "4.40", LinkLayer.ROCE.sysfsText());
        } else {
          SimulatedPort storage =
              new SimulatedPort(
                  "mlx5_" + h, 1, "ens" + (h + 1) + "f0np0", STORAGE_RATE, true, seeds.nextLong());
          node.addPort(storage, "MT4125", "22.39.1002", LinkLayer.ROCE.sysfsText());
        }
      }
      for (SimulatedPort port : node.ports) {
        if (port.netdev != null) {
          port.ethtool = new SimulatedEthtool(port.netdev, port.nic, seeds.nextLong());
        }
      }
      nodes.put(name, node);
      gpus.put(name, new SimulatedGpus(config.seed(), name));
      Instant booted = now.minusSeconds(86_400 + seeds.nextLong(30 * 86_400L));
      kernelLogs.put(name, new SimulatedKernelLog(this, booted, 1_200 + seeds.nextInt(800)));
      ncclLogs.put(name, new SimulatedNcclJob.NodeLog(this));
    }
    subnetManager = new SimulatedSubnetManager(config.seed(), now, this);
    fatTree = roce ? null : new SimulatedFatTree(this);
    Map<String, List<SimulatedPort>> netdevPorts = new LinkedHashMap<>();
    nodes.forEach(
        (name, node) ->
            netdevPorts.put(name, node.ports.stream().filter(p -> p.netdev != null).toList()));
    ethernet = new SimulatedEthernetFabric(this, netdevPorts);
  }

  /**
   * The Ethernet switches under the nodes' RoCE netdevs (all of a RoCE fleet's, the storage NICs of
   * an InfiniBand fleet), which every node's and switch's LLDP source reports.
   */
  public SimulatedEthernetFabric ethernet() {
    return ethernet;
  }

  /**
   * The InfiniBand fabric's switches under the nodes, which {@link SimulatedFatTree#FABRIC_HOST}'s
   * fabric role sweeps; empty on a RoCE fleet (its Ethernet switches speak no MADs).
   */
  public Optional<SimulatedFatTree> fatTree() {
    return Optional.ofNullable(fatTree);
  }

  public SimulatorConfig config() {
    return config;
  }

  /** Node names, gpu001 first. */
  public List<String> nodes() {
    return List.copyOf(nodes.keySet());
  }

  /**
   * The compute HCAs of every node: mlx5_0 .. mlx5_{n-1}. InfiniBand nodes also have the RoCE
   * storage NIC mlx5_n (see {@link #netdevs}), which is not listed here.
   */
  public List<String> devices() {
    return node(nodes().get(0)).ports.subList(0, config.hcasPerNode()).stream()
        .map(p -> p.device)
        .toList();
  }

  /**
   * The node's netdevs with ethtool counters, each with its RDMA device: ens1np0 .. ens8np0 on RoCE
   * nodes, the storage NIC ens9f0np0 (mlx5_8) on InfiniBand nodes, the E810's ens9f0 (irdma0) on
   * {@link #E810_NODE} of an InfiniBand fleet.
   */
  public List<SimulatedNetdev> netdevs(String node) {
    return node(node).ports.stream()
        .filter(p -> p.netdev != null)
        .map(p -> new SimulatedNetdev(p.netdev, p.device, p.port))
        .toList();
  }

  /** The subnet manager hosts: sm01 (master at start) and sm02 (standby). */
  public List<String> smHosts() {
    return SimulatedSubnetManager.HOSTS;
  }

  /** The node whose collector polls sminfo (one per fabric, so one SM_FAILOVER per failover). */
  public String smQueryNode() {
    return nodes().get(0);
  }

  /** The node's sysfs tree, rooted like /sys: a live view of the simulator's current state. */
  public SysfsTree nodeTree(String node) {
    return node(node).tree;
  }

  /**
   * Cluster, host and current boot id (a new one after every NODE_REBOOT); also of the SM hosts,
   * the fabric role host and the Ethernet switches.
   */
  public synchronized NodeIdentity identity(String node) {
    if (SimulatedSubnetManager.HOSTS.contains(node)
        || node.equals(SimulatedFatTree.FABRIC_HOST)
        || ethernet.isSwitch(node)) {
      String bootId =
          UUID.nameUUIDFromBytes(
                  (config.seed() + "/" + node + "/boot/0").getBytes(StandardCharsets.UTF_8))
              .toString();
      return new NodeIdentity(config.cluster(), node, bootId);
    }
    return node(node).identity();
  }

  /**
   * When the node last booted: the base of its /dev/kmsg timestamps, for {@code new
   * KernelLogXidParser(LOG_ZONE, bootTime(node))}. Changes at a NODE_REBOOT.
   */
  public synchronized Instant bootTime(String node) {
    return kernelLog(node).bootTime();
  }

  /**
   * Every source of one host at the simulator's current time, for a collector loop that runs the
   * real parsers: {@code advanceTo(t)}, then read each source. Each call gives log sources of its
   * own that start at the oldest retained line. Hosts are the nodes and the SM hosts.
   */
  public SimulatedNodeSources sources(String host) {
    if (SimulatedSubnetManager.HOSTS.contains(host)) {
      return SimulatedNodeSources.smHost(this, host, subnetManager.host(host).log.reader());
    }
    return SimulatedNodeSources.node(this, host);
  }

  /** The current simulated time. */
  public synchronized Instant now() {
    return now;
  }

  /** Every fault scripted so far: the hosts' in the order scripted, then the fat tree's. */
  public synchronized List<InjectedFault> faults() {
    List<InjectedFault> all = new ArrayList<>(scripts.stream().map(Script::fault).toList());
    fatTree().ifPresent(tree -> all.addAll(tree.injectedFaults()));
    return all;
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
    if (fatTree != null) {
      // the fabric role's iblinkinfo sweep says the cable could run faster (both ends support NDR)
      fault = fault.alsoRaising(AlertKind.LINK_BELOW_CAPABILITY);
    }
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

  /**
   * PFC_PAUSE_STORM: the origin NIC's receive pipeline stalls and it sends pause frames on the
   * lossless priority far faster than it receives any (tx_prio3_pause rising fast, its rx traffic
   * near 0, tx_pause_storm_warning_events + 1, error events + 1 after 8 s [K-pfcstall]). The switch
   * pauses the victims in turn: the first {@link #STORM_SPREAD} after the start, the next ones 1 s
   * apart, each paused for at least 90% of every second (rx_prio3_pause_duration) with its transmit
   * stalled.
   *
   * @param netdev the netdev on the origin and on every victim (rail-aligned fabrics put NIC i of
   *     every node on the same leaf)
   * @param victims victim nodes, in the order the storm reaches them
   */
  public synchronized InjectedFault pfcPauseStorm(
      String originNode, String netdev, Instant start, Duration duration, String... victims) {
    List<String> affected = Arrays.stream(victims).map(v -> v + "/" + netdev).toList();
    InjectedFault fault =
        new InjectedFault(
            FaultKind.PFC_PAUSE_STORM,
            originNode,
            netdev,
            null,
            start,
            start.plus(duration),
            "prio 3 storm from "
                + originNode
                + "/"
                + netdev
                + ", victims from +"
                + STORM_SPREAD.toSeconds()
                + " s: "
                + String.join(", ", affected),
            affected);
    return add(Script.of(fault));
  }

  /**
   * PFC_MISCONFIG: PFC is enabled on a priority that should be lossy (e.g. 0), so the driver shows
   * its pause counters (from now on, as after the configuration change) and pause frames arrive on
   * it from {@code start} for {@code duration}.
   */
  public synchronized InjectedFault pfcMisconfig(
      String node, String netdev, int priority, Instant start, Duration duration) {
    if (priority < 0 || priority > 7 || priority == SimulatedEthtool.LOSSLESS_PRIORITY) {
      throw new IllegalArgumentException("a misconfigured priority is 0..7 but not 3: " + priority);
    }
    InjectedFault fault =
        new InjectedFault(
            FaultKind.PFC_MISCONFIG,
            node,
            netdev,
            null,
            start,
            start.plus(duration),
            "pause frames on prio " + priority);
    InjectedFault added = add(Script.of(fault, priority));
    netdevPort(node, netdev).ethtool.enablePfc(priority);
    return added;
  }

  /** ECN_MISCONFIG: the reaction point ignores CNPs (rp_cnp_ignored rising, none handled). */
  public synchronized InjectedFault ecnMisconfig(
      String node, String netdev, Instant start, Duration duration) {
    return add(
        Script.of(
            new InjectedFault(
                FaultKind.ECN_MISCONFIG,
                node,
                netdev,
                null,
                start,
                start.plus(duration),
                "rp_cnp_ignored rising (DCQCN off)")));
  }

  /** LOSSLESS_DROP: rx_prio3_buf_discard, rx_prio3_discards and rx_out_of_buffer rising. */
  public synchronized InjectedFault losslessDrop(
      String node, String netdev, Instant start, Duration duration) {
    return add(
        Script.of(
            new InjectedFault(
                FaultKind.LOSSLESS_DROP,
                node,
                netdev,
                null,
                start,
                start.plus(duration),
                "drops on lossless prio 3")));
  }

  /** MTU_MISMATCH: /sys/class/net/NETDEV/mtu reads {@code mtu} while the fabric runs 9000. */
  public synchronized InjectedFault mtuMismatch(
      String node, String netdev, int mtu, Instant start, Duration duration) {
    if (mtu == 9000 || mtu < 68) {
      throw new IllegalArgumentException("a mismatched MTU differs from 9000: " + mtu);
    }
    return add(
        Script.of(
            new InjectedFault(
                FaultKind.MTU_MISMATCH,
                node,
                netdev,
                null,
                start,
                start.plus(duration),
                "MTU " + mtu + " instead of 9000"),
            mtu));
  }

  /**
   * SM_FAILOVER: the master OpenSM (sm01) dies at {@code start}; the standby (sm02) takes over
   * after 4 polls 10 s apart [OSM-base]. The fault ends when sm02 is master and the subnet is up.
   */
  public synchronized InjectedFault smFailover(Instant start) {
    Duration handoff =
        SimulatedSubnetManager.POLL_INTERVAL.multipliedBy(SimulatedSubnetManager.POLL_RETRIES);
    return add(
        Script.of(
            new InjectedFault(
                FaultKind.SM_FAILOVER,
                "sm01",
                null,
                null,
                start,
                start.plus(handoff),
                "master sm01 lost, sm02 MASTER after " + handoff.toSeconds() + " s")));
  }

  /** GPU_ECC_GROWTH: corrected volatile and aggregate ECC errors rising by perMinute. */
  public synchronized InjectedFault gpuEccGrowth(
      String node, int gpu, Instant start, Duration duration, long perMinute) {
    return add(
        Script.of(
            gpuFault(
                FaultKind.GPU_ECC_GROWTH,
                node,
                gpu,
                start,
                start.plus(duration),
                perMinute + " corrected ECC errors/min"),
            perMinute));
  }

  /** GPU_ECC_UNCORRECTABLE: uncorrected ECC + 1 and a kmsg Xid 48 line at {@code at}. */
  public synchronized InjectedFault gpuEccUncorrectable(String node, int gpu, Instant at) {
    return add(
        Script.of(gpuFault(FaultKind.GPU_ECC_UNCORRECTABLE, node, gpu, at, at, "Xid 48, DBE")));
  }

  /**
   * GPU_ROW_REMAP_PENDING: remapped_rows.pending Yes (until a reboot), remapped_rows.correctable +
   * 1 and a kmsg Xid 63 line at {@code at}.
   */
  public synchronized InjectedFault gpuRowRemapPending(String node, int gpu, Instant at) {
    return add(
        Script.of(
            gpuFault(FaultKind.GPU_ROW_REMAP_PENDING, node, gpu, at, at, "Xid 63, remap pending")));
  }

  /** GPU_HOT: temperature.gpu reads {@code celsius} (e.g. 92) for {@code duration}. */
  public synchronized InjectedFault gpuHot(
      String node, int gpu, Instant start, Duration duration, int celsius) {
    return add(
        Script.of(
            gpuFault(FaultKind.GPU_HOT, node, gpu, start, start.plus(duration), celsius + " C"),
            celsius));
  }

  /**
   * A healthy NCCL job (IB verbs with GPUDirect RDMA) starting at {@code start} on {@code nodes}, 8
   * ranks per node. Not a fault: a healthy job must raise nothing.
   */
  public synchronized void ncclJob(String job, List<String> nodes, Instant start) {
    startJob(job, nodes, start, SimulatedNcclJob.Mode.GDR);
  }

  /**
   * NCCL_GDR_FALLBACK: a job starting at {@code start} whose nodes lack nvidia-peermem: {@code GPU
   * Direct RDMA Disabled for HCA}, channels {@code via NET/IB/n} without /GDRDMA, {@code GDR 0}.
   */
  public synchronized InjectedFault ncclGdrFallback(String job, List<String> nodes, Instant start) {
    return ncclFault(FaultKind.NCCL_GDR_FALLBACK, job, nodes, start, SimulatedNcclJob.Mode.NO_GDR);
  }

  /**
   * NCCL_SOCKET_FALLBACK: a job starting at {@code start} that finds no IB device although the
   * ports are ACTIVE ({@code NET/IB : No device found.}, {@code Using network Socket}, {@code via
   * NET/Socket/0}).
   */
  public synchronized InjectedFault ncclSocketFallback(
      String job, List<String> nodes, Instant start) {
    return ncclFault(
        FaultKind.NCCL_SOCKET_FALLBACK, job, nodes, start, SimulatedNcclJob.Mode.SOCKET);
  }

  private InjectedFault ncclFault(
      FaultKind kind, String job, List<String> nodes, Instant start, SimulatedNcclJob.Mode mode) {
    InjectedFault fault =
        new InjectedFault(
            kind,
            nodes.get(0),
            job,
            null,
            start,
            start.plusSeconds(2),
            "job " + job + " on " + String.join(",", nodes) + ": " + mode,
            nodes);
    InjectedFault added = add(Script.of(fault));
    jobs.add(newJob(job, nodes, start, mode));
    return added;
  }

  private void startJob(String job, List<String> nodes, Instant start, SimulatedNcclJob.Mode mode) {
    nodes.forEach(this::node);
    if (!start.isAfter(now)) {
      throw new IllegalArgumentException("a job must start after " + now + ": " + start);
    }
    jobs.add(newJob(job, nodes, start, mode));
  }

  private SimulatedNcclJob newJob(
      String job, List<String> nodes, Instant start, SimulatedNcclJob.Mode mode) {
    if (nodes.isEmpty() || jobs.stream().anyMatch(j -> j.job.equals(job))) {
      throw new IllegalArgumentException("a job needs nodes and a new id: " + job);
    }
    String linkLayer = config.linkLayer() == LinkLayer.ROCE ? "RoCE" : "IB";
    return new SimulatedNcclJob(job, nodes, start, mode, linkLayer, config.seed());
  }

  private static InjectedFault gpuFault(
      FaultKind kind, String node, int gpu, Instant start, Instant end, String detail) {
    return new InjectedFault(kind, node, Integer.toString(gpu), null, start, end, detail);
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
    if (fault.kind() == FaultKind.SM_FAILOVER) {
      subnetManager.host(fault.node());
    } else if (fault.kind().source() == FaultKind.Source.NCCL) {
      fault.affected().forEach(this::node);
    } else if (fault.kind().source() == FaultKind.Source.GPU) {
      gpus.get(node(fault.node()).name).gpu(Integer.parseInt(fault.device()));
    } else if (fault.device() != null) {
      checkSubject(node(fault.node()), fault);
    } else {
      node(fault.node());
    }
    for (String victim :
        fault.kind() == FaultKind.PFC_PAUSE_STORM ? fault.affected() : List.<String>of()) {
      String[] parts = victim.split("/", 2);
      netdevPort(parts[0], parts[1]);
    }
    if (!fault.start().isAfter(now)) {
      throw new IllegalArgumentException(
          "a fault must start after the current simulated time " + now + ": " + fault);
    }
    if (fault.end().isBefore(fault.start())) {
      throw new IllegalArgumentException("fault ends before it starts: " + fault);
    }
  }

  private void checkSubject(SimulatedNode node, InjectedFault fault) {
    boolean byNetdev =
        fault.kind().source() == FaultKind.Source.ETHTOOL || fault.kind() == FaultKind.MTU_MISMATCH;
    if (byNetdev) {
      netdevPort(node.name, fault.device());
    } else if (node.ports.stream().noneMatch(p -> p.device.equals(fault.device()))) {
      throw new IllegalArgumentException("no device " + fault.device() + " on " + fault.node());
    }
  }

  /** The port behind a netdev that has ethtool counters. */
  SimulatedPort netdevPort(String node, String netdev) {
    return node(node).ports.stream()
        .filter(p -> netdev.equals(p.netdev))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no netdev " + netdev + " on " + node));
  }

  SimulatedGpus gpus(String node) {
    node(node);
    return gpus.get(node);
  }

  SimulatedKernelLog kernelLog(String node) {
    node(node);
    return kernelLogs.get(node);
  }

  SimulatedNcclJob.NodeLog ncclLog(String node) {
    node(node);
    return ncclLogs.get(node);
  }

  SimulatedSubnetManager subnetManager() {
    return subnetManager;
  }

  /** The compute HCA ports of a node, mlx5_0 first: what the simulated fat tree cables. */
  synchronized List<SimulatedPort> hcaPorts(String node) {
    return List.copyOf(node(node).ports.subList(0, config.hcasPerNode()));
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
        gpus.get(fault.node()).reboot();
        kernelLogs.get(fault.node()).reboot(fault.start());
      }
      if (fault.kind() == FaultKind.SM_FAILOVER && happensIn(fault, previous, t)) {
        subnetManager.masterLost(fault.start());
      }
    }
    for (SimulatedNode node : nodes.values()) {
      for (SimulatedPort port : node.ports) {
        stepPort(node.name, port, previous, t);
      }
      stepGpus(node.name, previous, t);
    }
    subnetManager.second(t);
    for (SimulatedNcclJob job : jobs) {
      job.second(previous, t, ncclLogs);
    }
  }

  private void stepGpus(String node, Instant previous, Instant t) {
    SimulatedGpus node_gpus = gpus.get(node);
    node_gpus.second();
    for (Script script : scripts) {
      InjectedFault fault = script.fault();
      if (fault.kind().source() != FaultKind.Source.GPU || !fault.node().equals(node)) {
        continue;
      }
      SimulatedGpus.Gpu gpu = node_gpus.gpu(Integer.parseInt(fault.device()));
      switch (fault.kind()) {
        case GPU_ECC_GROWTH -> {
          if (fault.activeAt(t)) {
            gpu.correctedGrowth += script.perSecond() / 60.0;
            long whole = (long) gpu.correctedGrowth;
            gpu.correctedGrowth -= whole;
            gpu.correctedVolatile += whole;
            gpu.correctedAggregate += whole;
          }
        }
        case GPU_ECC_UNCORRECTABLE -> {
          if (happensIn(fault, previous, t)) {
            gpu.uncorrectedVolatile++;
            gpu.uncorrectedAggregate++;
            kernelLogs
                .get(node)
                .log(
                    SimulatedKernelLog.WARNING,
                    fault.start(),
                    "NVRM: Xid ("
                        + gpu.xidAddress()
                        + "): 48, pid="
                        + processId(node, gpu.index)
                        + ", name=python3, An uncorrectable double bit error (DBE) has been"
                        + " detected on GPU in the framebuffer at partition 2, subpartition 1.");
          }
        }
        case GPU_ROW_REMAP_PENDING -> {
          if (happensIn(fault, previous, t)) {
            gpu.remapPending = true;
            gpu.remappedCorrectable++;
            // Wording of the real line in
            // collectors/testdata/nvsmi/mleng-a100-xid63-...-remap-pending.txt.
            kernelLogs
                .get(node)
                .log(
                    SimulatedKernelLog.WARNING,
                    fault.start(),
                    "NVRM: Xid ("
                        + gpu.xidAddress()
                        + "): 63, pid="
                        + processId(node, gpu.index)
                        + ", name=python3, Row Remapper: New row marked for remapping,"
                        + " reset gpu to activate.");
          }
        }
        case GPU_HOT -> gpu.hotTemperature = fault.activeAt(t) ? (int) script.perSecond() : null;
        default -> {}
      }
    }
  }

  private int processId(String node, int gpu) {
    return 100_000
        + new SplittableRandom(config.seed() + node.hashCode() * 31L + gpu).nextInt(800_000);
  }

  private void stepPort(String node, SimulatedPort port, Instant previous, Instant t) {
    boolean down = false;
    String rate = port.nominalRate;
    long symbolErrors = 0;
    double txFactor = 1;
    double rxFactor = 1;
    boolean cnpIgnored = false;
    int mtu = 9000;
    SimulatedEthtool.Second ethtool = new SimulatedEthtool.Second();
    for (Script script : scripts) {
      InjectedFault fault = script.fault();
      if (fault.kind().source() == FaultKind.Source.GPU
          || fault.kind().source() == FaultKind.Source.NCCL
          || fault.kind() == FaultKind.SM_FAILOVER) {
        continue;
      }
      if (fault.kind() == FaultKind.PFC_PAUSE_STORM && port.netdev != null) {
        int victim = fault.affected().indexOf(node + "/" + port.netdev);
        if (victim >= 0
            && fault.activeAt(t)
            && !t.isBefore(fault.start().plus(STORM_SPREAD).plusSeconds(victim))) {
          // Paused by the switch >= 90% of every second: almost nothing gets out.
          ethtool.stormVictim = true;
          txFactor = 0.02;
        }
      }
      if (fault.device() == null || !fault.concerns(node, deviceOrNetdev(fault, port), port.port)) {
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
        case PFC_PAUSE_STORM -> {
          if (fault.activeAt(t)) {
            // The origin's receive pipeline is stalled: it drains nothing and sends XOFF [MS16].
            ethtool.stormOrigin = true;
            ethtool.stormStarted = happensIn(fault, previous, t);
            Instant error = fault.start().plus(STALL_ERROR_AFTER);
            ethtool.stormErrorWatermark =
                error.isBefore(fault.end()) && error.isAfter(previous) && !error.isAfter(t);
            rxFactor = 0.01;
          }
        }
        case PFC_MISCONFIG -> {
          if (fault.activeAt(t)) {
            ethtool.misconfiguredPause.add((int) script.perSecond());
          }
        }
        case ECN_MISCONFIG -> cnpIgnored |= fault.activeAt(t);
        case LOSSLESS_DROP -> ethtool.losslessDrop |= fault.activeAt(t);
        case MTU_MISMATCH -> mtu = fault.activeAt(t) ? (int) script.perSecond() : mtu;
        default -> {}
      }
    }
    ethtool.linkWentDown = down && port.up;
    if (down && port.up) {
      port.addPma("link_downed", 1);
    }
    port.up = !down;
    port.rate = rate;
    port.mtu = mtu;
    ethtool.up = port.up;
    if (port.up) {
      port.traffic(SimulatedNode.rateGbps(rate), txFactor, rxFactor, cnpIgnored);
    } else {
      port.idle();
    }
    if (symbolErrors > 0) {
      port.addPma("symbol_error", symbolErrors);
      port.addPma("port_rcv_errors", 1);
    }
    if (port.ethtool != null) {
      port.ethtool.second(port, ethtool);
    }
  }

  /** Ethtool-level faults name the netdev, port faults the RDMA device. */
  private static String deviceOrNetdev(InjectedFault fault, SimulatedPort port) {
    return fault.kind().source() == FaultKind.Source.ETHTOOL
            || fault.kind() == FaultKind.MTU_MISMATCH
        ? port.netdev
        : port.device;
  }

  /** An instantaneous event at S is applied in the step (previous, t] that contains S. */
  private static boolean happensIn(InjectedFault fault, Instant previous, Instant t) {
    return fault.start().isAfter(previous) && !fault.start().isAfter(t);
  }
}
