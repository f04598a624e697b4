package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.agent.EthtoolTask;
import io.fabricpulse.collectors.agent.GpuTask;
import io.fabricpulse.collectors.agent.KmsgTask;
import io.fabricpulse.collectors.agent.LldpTask;
import io.fabricpulse.collectors.agent.NcclTask;
import io.fabricpulse.collectors.agent.OpenSmLogTask;
import io.fabricpulse.collectors.agent.RoceNetdevs;
import io.fabricpulse.collectors.agent.SminfoTask;
import io.fabricpulse.collectors.agent.SourceTask;
import io.fabricpulse.collectors.agent.SysfsTask;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.ethtool.EthtoolCollector;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCollector;
import io.fabricpulse.collectors.opensm.OpenSmLogParser;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agents of every simulated host: the collector's own source tasks (the same classes
 * {@code fabricpulse collect} runs) over the simulator's sources. One {@link #collect(Instant)} is
 * one simulated second of the whole fleet; each task runs at its own interval (1 s counters and
 * logs, 10 s GPU and sminfo). {@code demo} publishes the records to Kafka; tests pipe them into a
 * TopologyTestDriver, so both see exactly the same records.
 */
public final class SimulatedAgents {
  private static final Logger log = LoggerFactory.getLogger(SimulatedAgents.class);
  private static final Duration COUNTERS = Duration.ofSeconds(1);
  private static final Duration SLOW = Duration.ofSeconds(10);
  private static final Duration LLDP = Duration.ofSeconds(30);

  /** What one host's agent produced in one cycle. */
  public record HostRecords(NodeIdentity identity, List<SpecificRecord> records) {
    public HostRecords {
      records = List.copyOf(records);
    }
  }

  private final FabricSimulator simulator;
  private final Map<String, SimulatedNodeSources> sources = new LinkedHashMap<>();
  private final Map<String, List<SourceTask>> tasks = new LinkedHashMap<>();
  private final Map<SourceTask, Instant> lastRun = new HashMap<>();
  private long malformed;
  private long failures;

  /**
   * Agents for every node and every subnet-manager host of {@code simulator}, on an InfiniBand
   * fleet the fabric role of {@link SimulatedFatTree#FABRIC_HOST} over its fat tree, and the LLDP
   * source of every Ethernet switch.
   */
  public SimulatedAgents(FabricSimulator simulator) {
    this.simulator = simulator;
    List<String> hosts = new ArrayList<>(simulator.nodes());
    hosts.addAll(simulator.smHosts());
    for (String host : hosts) {
      sources.put(host, simulator.sources(host));
    }
    // hosts without a node's sources: the fabric role's and the switches' agents
    simulator.fatTree().ifPresent(tree -> sources.put(SimulatedFatTree.FABRIC_HOST, null));
    simulator.ethernet().switches().forEach(s -> sources.put(s, null));
  }

  /**
   * Advances the simulated fabric to {@code time} and runs every task that is due; returns the
   * records of each host in host order (nodes, then SM hosts, then the fabric host, then the
   * Ethernet switches), one entry per host.
   */
  public List<HostRecords> collect(Instant time) {
    simulator.advanceTo(time);
    List<HostRecords> out = new ArrayList<>(sources.size());
    for (Map.Entry<String, SimulatedNodeSources> host : sources.entrySet()) {
      NodeIdentity identity = simulator.identity(host.getKey());
      List<SourceTask> hostTasks = tasks.get(host.getKey());
      if (hostTasks == null || !hostTasks.get(0).identity().equals(identity)) {
        // First start, or the node rebooted: the agent starts again with the new boot id.
        hostTasks = tasksFor(identity, host.getValue());
        tasks.put(host.getKey(), hostTasks);
      }
      List<SpecificRecord> records = new ArrayList<>();
      for (SourceTask task : hostTasks) {
        Instant previous = lastRun.get(task);
        if (previous != null && Duration.between(previous, time).compareTo(task.interval()) < 0) {
          continue;
        }
        lastRun.put(task, time);
        try {
          ParseResult<SpecificRecord> result = task.collect(time);
          records.addAll(result.records());
          malformed += result.malformed().size();
        } catch (Exception e) {
          failures++;
          log.warn("{} {} failed: {}", host.getKey(), task.kind(), e.toString());
        }
      }
      out.add(new HostRecords(identity, records));
    }
    return out;
  }

  private List<SourceTask> tasksFor(NodeIdentity identity, SimulatedNodeSources src) {
    List<SourceTask> list = new ArrayList<>();
    if (src == null && simulator.ethernet().isSwitch(identity.node())) {
      // An Ethernet switch that runs lldpd: its agent reports its cables to other switches.
      list.add(
          new LldpTask(
              identity,
              LLDP,
              simulator.ethernet().lldp(identity.node()),
              LldpTask.Role.SWITCH,
              null,
              null));
      return list;
    }
    if (src == null) {
      // The management host: its agent runs the fabric role only (iblinkinfo, then perfquery).
      list.add(simulator.fatTree().orElseThrow().fabricTask(identity));
      return list;
    }
    if (simulator.smHosts().contains(src.node())) {
      // A subnet-manager host: its agent follows the OpenSM log only.
      src.openSmLog()
          .ifPresent(
              l ->
                  list.add(
                      new OpenSmLogTask(
                          identity,
                          COUNTERS,
                          l,
                          new OpenSmLogParser(FabricSimulator.LOG_ZONE),
                          "/var/log/opensm.log")));
      return list;
    }
    SysfsPortCounterReader reader = new SysfsPortCounterReader(src.sysfs());
    list.add(new SysfsTask(identity, COUNTERS, reader));
    if (!src.netdevs().isEmpty()) {
      RoceNetdevs netdevs = new RoceNetdevs(src.sysfs(), reader, List.of(), Duration.ofMinutes(1));
      list.add(new EthtoolTask(identity, COUNTERS, new EthtoolCollector(src.ethtool()), netdevs));
      list.add(
          new LldpTask(
              identity,
              LLDP,
              simulator.ethernet().lldp(src.node()),
              LldpTask.Role.HOST,
              netdevs,
              src.sysfs()));
    }
    src.nvidiaSmi()
        .ifPresent(smi -> list.add(new GpuTask(identity, SLOW, new NvidiaSmiCollector(smi))));
    list.add(
        new KmsgTask(
            identity,
            COUNTERS,
            src.kmsg(),
            new KernelLogXidParser(FabricSimulator.LOG_ZONE, simulator.bootTime(src.node())),
            "/dev/kmsg"));
    list.add(new NcclTask(identity, COUNTERS, src.nccl()));
    src.sminfo().ifPresent(s -> list.add(new SminfoTask(identity, SLOW, s)));
    return list;
  }

  /** Malformed lines or samples the tasks skipped so far. */
  public long malformed() {
    return malformed;
  }

  /** Task cycles that failed (logged and retried next cycle) so far. */
  public long failures() {
    return failures;
  }
}
