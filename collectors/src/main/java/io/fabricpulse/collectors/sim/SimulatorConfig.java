package io.fabricpulse.collectors.sim;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Shape of the simulated fabric.
 *
 * @param nodes number of nodes, named gpu001, gpu002, ...
 * @param hcasPerNode HCAs per node, mlx5_0 .. mlx5_{n-1}, one port each
 * @param seed everything random derives from it: same seed, same faults, same clock = same text
 * @param start simulated time of the first sample (truncated to the second)
 * @param linkLayer InfiniBand NDR, or RoCE with netdevs at MTU 9000
 */
public record SimulatorConfig(
    String cluster, int nodes, int hcasPerNode, long seed, Instant start, LinkLayer linkLayer) {

  public SimulatorConfig {
    if (nodes < 1 || nodes > 99_999) {
      throw new IllegalArgumentException("nodes must be 1..99999: " + nodes);
    }
    if (hcasPerNode < 1) {
      throw new IllegalArgumentException("hcasPerNode must be at least 1: " + hcasPerNode);
    }
    start = start.truncatedTo(ChronoUnit.SECONDS);
  }

  /** 8 HCAs per node, InfiniBand NDR 400 Gb/s 4X, plus a 100 GbE RoCE storage NIC (mlx5_8). */
  public static SimulatorConfig infiniband(String cluster, int nodes, long seed, Instant start) {
    return new SimulatorConfig(cluster, nodes, 8, seed, start, LinkLayer.INFINIBAND);
  }

  /** 8 HCAs per node, RoCE at 400 Gb/s with netdevs at MTU 9000. */
  public static SimulatorConfig roce(String cluster, int nodes, long seed, Instant start) {
    return new SimulatorConfig(cluster, nodes, 8, seed, start, LinkLayer.ROCE);
  }
}
