package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.collectors.core.NodeFacts;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.ethtool.CommandEthtoolSource;
import io.fabricpulse.collectors.ethtool.EthtoolCollector;
import io.fabricpulse.collectors.kmsg.JournalctlKernelLogSource;
import io.fabricpulse.collectors.kmsg.KernelLogSource;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import io.fabricpulse.collectors.kmsg.KmsgSource;
import io.fabricpulse.collectors.lldp.CommandLldpSource;
import io.fabricpulse.collectors.nccl.NcclLogTailer;
import io.fabricpulse.collectors.nvsmi.CommandNvidiaSmiSource;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCollector;
import io.fabricpulse.collectors.opensm.OpenSmLogParser;
import io.fabricpulse.collectors.opensm.OpenSmLogTailer;
import io.fabricpulse.collectors.opensm.ProcessSminfoSource;
import io.fabricpulse.collectors.switchports.CommandSwitchCounterQuery;
import io.fabricpulse.collectors.switchports.SwitchCounterSweep;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import io.fabricpulse.collectors.topology.CommandFabricSweep;
import io.fabricpulse.collectors.topology.IbdiagnetRunDirectory;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the agent's sources on the real node from a {@link CollectorConfig}. */
public final class SourceTasks {
  private static final Logger LOG = LoggerFactory.getLogger(SourceTasks.class);

  /** How often the ethtool source looks up which netdevs are RoCE ports again. */
  static final Duration NETDEV_REFRESH = Duration.ofMinutes(1);

  private SourceTasks() {}

  /**
   * Who this node is: the configured cluster, the configured node name or the host name, and the
   * boot id (read from {@code proc_root}; "unknown" when it cannot be read, e.g. off Linux).
   */
  public static NodeIdentity identity(CollectorConfig config, NodeFacts facts) {
    String node = config.node() != null ? config.node() : facts.hostname();
    String bootId;
    try {
      bootId = facts.bootId();
    } catch (IOException e) {
      LOG.warn(
          "boot id unavailable ({}); reboots will look like counter clears",
          (e instanceof FileSystemException fs && fs.getFile() != null ? fs.getFile() + ": " : "")
              + IoReason.of(e));
      bootId = "unknown";
    }
    return new NodeIdentity(config.cluster(), node, bootId);
  }

  /** The enabled sources, in a fixed order (sysfs first, so --once lists ports first). */
  public static List<SourceTask> fromConfig(
      CollectorConfig config, NodeIdentity identity, NodeFacts facts, Instant now) {
    List<SourceTask> tasks = new ArrayList<>();
    SysfsTree tree = new DirectorySysfsTree(config.path(CollectorConfig.SYSFS_ROOT));
    SysfsPortCounterReader reader =
        new SysfsPortCounterReader(
            tree,
            config.pattern(CollectorConfig.SYSFS_INCLUDE),
            config.pattern(CollectorConfig.SYSFS_EXCLUDE));
    if (config.enabled(SourceKind.SYSFS)) {
      tasks.add(new SysfsTask(identity, config.interval(SourceKind.SYSFS), reader));
    }
    if (config.enabled(SourceKind.ETHTOOL)) {
      CommandEthtoolSource ethtool =
          new CommandEthtoolSource(
              config.string(CollectorConfig.ETHTOOL_COMMAND),
              config.duration(CollectorConfig.ETHTOOL_TIMEOUT),
              config.path(CollectorConfig.SYSFS_ROOT));
      RoceNetdevs netdevs =
          new RoceNetdevs(
              tree, reader, config.list(CollectorConfig.ETHTOOL_NETDEVS), NETDEV_REFRESH);
      tasks.add(
          new EthtoolTask(
              identity,
              config.interval(SourceKind.ETHTOOL),
              new EthtoolCollector(ethtool),
              netdevs));
    }
    if (config.enabled(SourceKind.GPU)) {
      CommandNvidiaSmiSource nvidiaSmi =
          new CommandNvidiaSmiSource(
              config.string(CollectorConfig.GPU_COMMAND),
              config.duration(CollectorConfig.GPU_TIMEOUT));
      tasks.add(
          new GpuTask(
              identity, config.interval(SourceKind.GPU), new NvidiaSmiCollector(nvidiaSmi)));
    }
    if (config.enabled(SourceKind.KMSG)) {
      tasks.add(kmsgTask(config, identity, facts, now));
    }
    if (config.enabled(SourceKind.SMINFO)) {
      tasks.add(
          new SminfoTask(
              identity,
              config.interval(SourceKind.SMINFO),
              new ProcessSminfoSource(
                  config.string(CollectorConfig.SMINFO_COMMAND),
                  config.list(CollectorConfig.SMINFO_ARGS),
                  config.duration(CollectorConfig.SMINFO_TIMEOUT))));
    }
    if (config.enabled(SourceKind.OPENSM)) {
      Path log = config.path(CollectorConfig.OPENSM_LOG);
      ZoneId zone = config.zone(CollectorConfig.OPENSM_ZONE);
      tasks.add(
          new OpenSmLogTask(
              identity,
              config.interval(SourceKind.OPENSM),
              OpenSmLogTailer.fromEnd(log),
              new OpenSmLogParser(zone != null ? zone : ZoneId.systemDefault()),
              log.toString()));
    }
    if (config.enabled(SourceKind.NCCL)) {
      tasks.add(
          new NcclTask(
              identity,
              config.interval(SourceKind.NCCL),
              new NcclLogTailer(
                  config.list(CollectorConfig.NCCL_GLOBS),
                  config.pattern(CollectorConfig.NCCL_JOB_REGEX))));
    }
    if (config.enabled(SourceKind.FABRIC)) {
      tasks.add(fabricTask(config, identity));
    }
    if (config.enabled(SourceKind.LLDP)) {
      CommandLldpSource lldp =
          new CommandLldpSource(
              config.string(CollectorConfig.LLDP_COMMAND),
              config.duration(CollectorConfig.LLDP_TIMEOUT));
      LldpTask.Role role =
          config.string(CollectorConfig.LLDP_ROLE).equals("switch")
              ? LldpTask.Role.SWITCH
              : LldpTask.Role.HOST;
      LOG.info(
          "lldp: {} every {}, as a {}",
          String.join(" ", lldp.neighborsCommand()),
          config.interval(SourceKind.LLDP),
          role.name().toLowerCase(java.util.Locale.ROOT));
      tasks.add(
          new LldpTask(
              identity,
              config.interval(SourceKind.LLDP),
              lldp,
              role,
              new RoceNetdevs(
                  tree, reader, config.list(CollectorConfig.ETHTOOL_NETDEVS), NETDEV_REFRESH),
              tree));
    }
    return tasks;
  }

  /**
   * The fabric role: {@code ibnetdiscover -p} or {@code iblinkinfo -l} (the tool's own name and
   * these arguments unless configured), and the ibdiagnet directory if one is configured.
   */
  static FabricTask fabricTask(CollectorConfig config, NodeIdentity identity) {
    String tool = config.string(CollectorConfig.FABRIC_TOOL);
    String command = config.string(CollectorConfig.FABRIC_COMMAND);
    List<String> args = config.list(CollectorConfig.FABRIC_ARGS);
    CommandFabricSweep sweep =
        new CommandFabricSweep(
            command != null ? command : tool,
            !args.isEmpty() ? args : List.of(tool.equals("iblinkinfo") ? "-l" : "-p"),
            config.duration(CollectorConfig.FABRIC_TIMEOUT));
    Path dir = config.path(CollectorConfig.FABRIC_IBDIAGNET_DIR);
    String perfquery = config.string(CollectorConfig.FABRIC_PERFQUERY);
    LOG.info(
        "fabric: {} every {}{}{}",
        String.join(" ", sweep.command()),
        config.interval(SourceKind.FABRIC),
        perfquery == null ? "" : ", switch ports with " + perfquery + " -x",
        dir == null ? "" : ", new ibdiagnet runs in " + dir);
    return new FabricTask(
        identity,
        config.interval(SourceKind.FABRIC),
        tool,
        sweep,
        dir == null ? null : new IbdiagnetRunDirectory(dir),
        perfquery == null
            ? null
            : new SwitchCounterSweep(
                new CommandSwitchCounterQuery(
                    perfquery, config.duration(CollectorConfig.FABRIC_TIMEOUT))));
  }

  /**
   * /dev/kmsg when it can be opened (records since the collector started, stamped in monotonic time
   * that the boot time converts); otherwise {@code journalctl -k -f}, which also works where
   * kernel.dmesg_restrict hides /dev/kmsg from a collector without CAP_SYSLOG.
   */
  private static KmsgTask kmsgTask(
      CollectorConfig config, NodeIdentity identity, NodeFacts facts, Instant now) {
    Path device = config.path(CollectorConfig.KMSG_DEVICE);
    Instant bootTime = facts.bootTime(now);
    KernelLogXidParser parser = new KernelLogXidParser(ZoneId.systemDefault(), bootTime);
    long uptimeMicros = bootTime == null ? 0 : Duration.between(bootTime, now).toNanos() / 1000;
    KernelLogSource source;
    String name;
    try {
      source = new KmsgSource(device, uptimeMicros);
      name = device.toString();
    } catch (IOException e) {
      JournalctlKernelLogSource journal =
          new JournalctlKernelLogSource(config.string(CollectorConfig.KMSG_JOURNALCTL));
      LOG.info("{} unreadable ({}); following {}", device, e.toString(), journal.command());
      source = journal;
      name = "journalctl -k";
    }
    return new KmsgTask(identity, config.interval(SourceKind.KMSG), source, parser, name);
  }
}
