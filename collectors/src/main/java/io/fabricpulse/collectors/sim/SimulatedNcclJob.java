package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.nccl.NcclLogLine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One simulated multi-node NCCL job (8 ranks per node, one per GPU, rail-aligned: rank on GPU g
 * uses HCA g) and the NCCL_DEBUG=INFO lines its processes print into the job log of each node.
 *
 * <p>The lines are NCCL 2.27.5's, as in the real capture
 * collectors/testdata/nccl/slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5.txt (prefix {@code
 * host:pid:tid [cudaDev] NCCL INFO}, {@code NET/IB : Using [0]mlx5_0:1/IB ... [RO]; OOB
 * eth0:ip<0>}, {@code via NET/IB/0/GDRDMA}, {@code Connected all rings, use ring PXN 0 GDR 1}); the
 * format strings are those of docs/formats.md, NCCL logs. Version 2.27.5 rather than 2.21.5 because
 * the ring summary with {@code GDR %d} exists only from 2.24.3 [NCCL-generic]. Init takes 2 s:
 * discovery at start, connections at +1 s, {@code Init COMPLETE} at +2 s.
 */
final class SimulatedNcclJob {
  static final String VERSION = "2.27.5+cuda12.9";
  static final int RANKS_PER_NODE = SimulatedGpus.GPUS_PER_NODE;
  private static final int[] BUSES = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};

  /** How the job's transport comes up. */
  enum Mode {
    /** IB verbs with GPUDirect RDMA. */
    GDR,
    /** IB verbs staged through host memory: nvidia-peermem not loaded. */
    NO_GDR,
    /** No usable IB device: TCP sockets. */
    SOCKET
  }

  final String job;
  final List<String> nodes;
  final Instant start;
  final Mode mode;
  private final String linkLayer;
  private final String commId;
  private final long seed;

  SimulatedNcclJob(
      String job, List<String> nodes, Instant start, Mode mode, String linkLayer, long seed) {
    this.job = job;
    this.nodes = List.copyOf(nodes);
    this.start = start;
    this.mode = mode;
    this.linkLayer = linkLayer;
    this.seed = seed ^ job.hashCode();
    this.commId = String.format("0x%016x", new SplittableRandom(this.seed).nextLong());
  }

  /** The job log file on one node. */
  String file(String node) {
    return "/var/log/nccl/" + job + "/" + node + ".log";
  }

  /** Appends the lines printed in the second (previous, t] to each node's NCCL log. */
  void second(Instant previous, Instant t, Map<String, NodeLog> logs) {
    for (int phase = 0; phase < 3; phase++) {
      Instant at = start.plusSeconds(phase);
      if (at.isAfter(previous) && !at.isAfter(t)) {
        for (int n = 0; n < nodes.size(); n++) {
          NodeLog log = logs.get(nodes.get(n));
          for (int g = 0; g < RANKS_PER_NODE; g++) {
            for (String line : phase(phase, n, g)) {
              log.append(file(nodes.get(n)), line, job);
            }
          }
        }
      }
    }
  }

  private List<String> phase(int phase, int n, int g) {
    String node = nodes.get(n);
    int rank = n * RANKS_PER_NODE + g;
    int nranks = nodes.size() * RANKS_PER_NODE;
    int pid = 100_000 + new SplittableRandom(seed + node.hashCode() * 31L + g).nextInt(800_000);
    String main = node + ":" + pid + ":" + pid + " [" + g + "] NCCL INFO ";
    String init = node + ":" + pid + ":" + (pid + 1_043 + g) + " [" + g + "] NCCL INFO ";
    String ip = "10.0." + (n / 250) + "." + (n % 250 + 1);
    String comm = String.format("0x55%010x", new SplittableRandom(seed + rank).nextLong(1L << 40));
    String busId = String.format("%x000", BUSES[g]);
    String rankInit =
        "ncclCommInitRank comm "
            + comm
            + " rank "
            + rank
            + " nranks "
            + nranks
            + " cudaDev "
            + g
            + " nvmlDev "
            + g
            + " busId "
            + busId
            + " commId "
            + commId
            + " - Init ";
    List<String> lines = new ArrayList<>();
    switch (phase) {
      case 0 -> {
        lines.add(main + "cudaDriverVersion 12090");
        lines.add(main + "Bootstrap: Using eth0:" + ip + "<0>");
        lines.add(main + "NCCL version " + VERSION);
        if (mode == Mode.SOCKET) {
          lines.add(init + "NET/IB : No device found.");
          lines.add(init + "NET/Socket : Using [0]eth0:" + ip + "<0>");
          lines.add(init + "Initialized NET plugin Socket");
          lines.add(init + "Assigned NET plugin Socket to comm");
          lines.add(init + "Using network Socket");
        } else {
          StringBuilder using = new StringBuilder("NET/IB : Using");
          for (int h = 0; h < RANKS_PER_NODE; h++) {
            using.append(" [").append(h).append("]mlx5_").append(h).append(":1/").append(linkLayer);
          }
          lines.add(init + using + " [RO]; OOB eth0:" + ip + "<0>");
          lines.add(init + "Initialized NET plugin IB");
          lines.add(init + "Assigned NET plugin IB to comm");
          lines.add(init + "Using network IB");
          if (mode == Mode.GDR) {
            lines.add(init + "DMA-BUF is available on GPU device " + g);
          }
        }
        lines.add(init + rankInit + "START");
      }
      case 1 -> {
        lines.add(init + gdrLine(g));
        if (nodes.size() > 1) {
          int prev = ((n + nodes.size() - 1) % nodes.size()) * RANKS_PER_NODE + g;
          int next = ((n + 1) % nodes.size()) * RANKS_PER_NODE + g;
          lines.add(init + channel(g, prev, g, rank, g, "receive", g));
          lines.add(init + channel(g, rank, g, next, g, "send", g));
        }
        int peer = n * RANKS_PER_NODE + (g + 1) % RANKS_PER_NODE;
        lines.add(
            init
                + String.format(
                    "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM",
                    g, rank, g, peer, (g + 1) % RANKS_PER_NODE));
        lines.add(init + "Connected all rings, use ring PXN 0 GDR " + (mode == Mode.GDR ? 1 : 0));
      }
      default -> lines.add(init + rankInit + "COMPLETE");
    }
    return lines;
  }

  private String gdrLine(int g) {
    return switch (mode) {
      case GDR -> "NET/IB : GPU Direct RDMA Enabled for HCA " + g + " 'mlx5_" + g + "'";
      case NO_GDR -> "NET/IB : GPU Direct RDMA Disabled for HCA " + g + " 'mlx5_" + g + "'";
      // As the real socket-fallback capture prints it (gke-a3-h100 ... nccl2.22.3).
      case SOCKET -> "NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'";
    };
  }

  private String channel(int ch, int from, int fromDev, int to, int toDev, String dir, int g) {
    String via =
        switch (mode) {
          case GDR -> "NET/IB/" + g + "/GDRDMA";
          case NO_GDR -> "NET/IB/" + g;
          case SOCKET -> "NET/Socket/0";
        };
    return String.format(
        "Channel %02d/0 : %d[%d] -> %d[%d] [%s] via %s", ch, from, fromDev, to, toDev, dir, via);
  }

  /** The NCCL log lines of one node, across its jobs' files. */
  static final class NodeLog {
    final LineLog<NcclLogLine> lines;
    private final Map<String, Long> lineNumbers = new java.util.HashMap<>();

    NodeLog(Object lock) {
      this.lines = new LineLog<>(lock);
    }

    void append(String file, String text, String job) {
      long lineNo = lineNumbers.merge(file, 1L, Long::sum);
      lines.append(new NcclLogLine(file, lineNo, text, job));
    }
  }
}
