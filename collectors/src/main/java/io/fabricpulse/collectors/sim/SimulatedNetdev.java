package io.fabricpulse.collectors.sim;

/**
 * A simulated netdev with ethtool counters and the RDMA port bound to it.
 *
 * @param netdev interface name, e.g. ens9f0np0
 * @param device RDMA device, e.g. mlx5_8
 * @param port RDMA port number
 */
public record SimulatedNetdev(String netdev, String device, int port) {}
