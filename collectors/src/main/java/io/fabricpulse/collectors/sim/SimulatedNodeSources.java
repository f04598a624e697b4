package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import io.fabricpulse.collectors.ethtool.EthtoolSource;
import io.fabricpulse.collectors.kmsg.KernelLogSource;
import io.fabricpulse.collectors.nccl.NcclLineSource;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiSource;
import io.fabricpulse.collectors.opensm.OpenSmLogSource;
import io.fabricpulse.collectors.opensm.SminfoSource;
import io.fabricpulse.collectors.sysfs.InMemorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Everything a collector on one simulated host reads, behind the collectors' own source interfaces,
 * so a loop runs the real parsers: after {@code sim.advanceTo(t)}, read {@link #sysfs} with
 * SysfsPortCounterReader, {@link #ethtool} per {@link #netdevs} with EthtoolCollector, {@link
 * #nvidiaSmi} every 10 s with NvidiaSmiCsvParser, poll {@link #kmsg} with KernelLogXidParser (boot
 * time {@code sim.bootTime(node)}), {@link #nccl} with NcclLineParser, {@link #sminfo} with
 * SminfoParser and {@link #openSmLog} with OpenSmLogParser(LOG_ZONE).
 *
 * <p>Every read renders the simulator's state at its current time; log sources return what was
 * written since their previous poll (each instance has its own position).
 *
 * @param node host name (gpu001.. or sm01/sm02)
 * @param sysfs the /sys tree (empty on SM hosts)
 * @param netdevs the netdevs with ethtool counters and their RDMA ports (none on SM hosts)
 * @param ethtool {@code ethtool -S} and the driver of those netdevs
 * @param nvidiaSmi nvidia-smi of the node's 8 GPUs; empty on SM hosts
 * @param kmsg /dev/kmsg records; no lines on SM hosts
 * @param nccl NCCL_DEBUG job logs; no lines on SM hosts
 * @param sminfo sminfo, present on {@code sim.smQueryNode()} only
 * @param openSmLog the OpenSM log, present on SM hosts only
 */
public record SimulatedNodeSources(
    String node,
    SysfsTree sysfs,
    List<SimulatedNetdev> netdevs,
    EthtoolSource ethtool,
    Optional<NvidiaSmiSource> nvidiaSmi,
    KernelLogSource kmsg,
    NcclLineSource nccl,
    Optional<SminfoSource> sminfo,
    Optional<OpenSmLogSource> openSmLog) {

  static SimulatedNodeSources node(FabricSimulator sim, String node) {
    LineLog<String>.Reader kmsg = sim.kernelLog(node).lines.reader();
    var nccl = sim.ncclLog(node).lines.reader();
    SimulatedGpus gpus = sim.gpus(node);
    Optional<SminfoSource> sminfo =
        node.equals(sim.smQueryNode())
            ? Optional.of(
                () -> {
                  synchronized (sim) {
                    return sim.subnetManager().sminfo();
                  }
                })
            : Optional.empty();
    return new SimulatedNodeSources(
        node,
        sim.nodeTree(node),
        sim.netdevs(node),
        new Ethtool(sim, node),
        Optional.of(new NvidiaSmi(sim, gpus)),
        kmsg::poll,
        nccl::poll,
        sminfo,
        Optional.empty());
  }

  static SimulatedNodeSources smHost(FabricSimulator sim, String host, LineLog<String>.Reader log) {
    return new SimulatedNodeSources(
        host,
        new InMemorySysfsTree(),
        List.of(),
        new Ethtool(sim, host),
        Optional.empty(),
        List::of,
        List::of,
        Optional.empty(),
        Optional.of(log::poll));
  }

  /** {@code ethtool -S} of the host's netdevs (mlx5, or ice on the E810 node). */
  private record Ethtool(FabricSimulator sim, String node) implements EthtoolSource {
    @Override
    public String stats(String netdev) throws IOException {
      synchronized (sim) {
        SimulatedNetdev known =
            sim.smHosts().contains(node)
                ? null
                : sim.netdevs(node).stream()
                    .filter(n -> n.netdev().equals(netdev))
                    .findFirst()
                    .orElse(null);
        if (known == null) {
          // What ethtool prints for an interface that does not exist.
          throw new IOException("Cannot get stats strings information: No such device");
        }
        return sim.netdevPort(node, netdev).ethtool.text();
      }
    }

    @Override
    public String driver(String netdev) {
      synchronized (sim) {
        boolean known =
            !sim.smHosts().contains(node)
                && sim.netdevs(node).stream().anyMatch(n -> n.netdev().equals(netdev));
        return known ? sim.netdevPort(node, netdev).ethtool.driver() : EthtoolRecords.MLX5_DRIVER;
      }
    }
  }

  /** nvidia-smi of one node. */
  private record NvidiaSmi(FabricSimulator sim, SimulatedGpus gpus) implements NvidiaSmiSource {
    @Override
    public String helpQueryGpu() {
      return SimulatedGpus.helpQueryGpu();
    }

    @Override
    public String queryGpu(List<String> fields) throws IOException {
      synchronized (sim) {
        try {
          return gpus.queryGpu(fields);
        } catch (IllegalArgumentException e) {
          // nvidia-smi rejects the whole query and exits non-zero.
          throw new IOException(e.getMessage(), e);
        }
      }
    }

    @Override
    public String queryAll() throws IOException {
      synchronized (sim) {
        return gpus.queryAll(sim.now());
      }
    }
  }
}
