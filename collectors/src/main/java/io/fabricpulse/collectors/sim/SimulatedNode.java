package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.core.NodeIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** One simulated node: its HCA ports, its boot count and the sysfs tree that shows them. */
final class SimulatedNode {
  final String name;
  final List<SimulatedPort> ports = new ArrayList<>();
  final SimulatedNodeTree tree;
  private final String cluster;
  private final long seed;
  private int boots;

  SimulatedNode(String cluster, String name, long seed, Object lock) {
    this.cluster = cluster;
    this.name = name;
    this.seed = seed;
    this.tree = new SimulatedNodeTree(lock);
  }

  void addPort(SimulatedPort p, String hcaType, String firmware, String linkLayer) {
    ports.add(p);
    String dev = "class/infiniband/" + p.device;
    String dir = dev + "/ports/" + p.port;
    tree.constant(dev + "/hca_type", hcaType + "\n");
    tree.constant(dev + "/fw_ver", firmware + "\n");
    tree.constant(dev + "/node_guid", nodeGuid(p) + "\n");
    tree.constant(dir + "/link_layer", linkLayer + "\n");
    tree.file(dir + "/state", p::stateText);
    tree.file(dir + "/phys_state", p::physStateText);
    tree.file(dir + "/rate", () -> p.rate + "\n");
    for (String counter : SimulatedPort.PMA_COUNTERS) {
      tree.file(dir + "/counters/" + counter, () -> p.pmaText(counter));
    }
    for (String counter : p.hw.keySet()) {
      tree.file(dir + "/hw_counters/" + counter, () -> p.hwText(counter));
    }
    tree.constant(dir + "/hw_counters/lifespan", "10\n");
    if (p.netdev != null) {
      tree.constant(dir + "/gid_attrs/ndevs/0", p.netdev + "\n");
      tree.constant(dev + "/device/net/" + p.netdev + "/dev_port", (p.port - 1) + "\n");
      tree.constant("class/net/" + p.netdev + "/address", mac(seed, name, p.netdev) + "\n");
      tree.file("class/net/" + p.netdev + "/mtu", () -> p.mtu + "\n");
      tree.file(
          "class/net/" + p.netdev + "/speed",
          () -> p.up ? (long) (rateGbps(p.rate) * 1000) + "\n" : "-1\n");
    }
  }

  /**
   * A netdev's MAC, from the seed: ConnectX's OUI b8:3f:d2 and three hashed bytes. The node's sysfs
   * shows it and its lldpd sends it ({@link SimulatedEthernetFabric}).
   */
  static String mac(long seed, String node, String netdev) {
    long h =
        UUID.nameUUIDFromBytes(
                (seed + "/" + node + "/" + netdev + "/mac").getBytes(StandardCharsets.UTF_8))
            .getMostSignificantBits();
    return String.format("b8:3f:d2:%02x:%02x:%02x", (h >> 16) & 0xff, (h >> 8) & 0xff, h & 0xff);
  }

  private String nodeGuid(SimulatedPort p) {
    long guid =
        UUID.nameUUIDFromBytes(
                (seed + "/" + name + "/" + p.device).getBytes(StandardCharsets.UTF_8))
            .getMostSignificantBits();
    String hex = String.format("%016x", guid);
    return hex.substring(0, 4)
        + ":"
        + hex.substring(4, 8)
        + ":"
        + hex.substring(8, 12)
        + ":"
        + hex.substring(12);
  }

  static double rateGbps(String rateText) {
    Double gbps = io.fabricpulse.collectors.sysfs.SysfsValues.parseRate(rateText).gbps();
    return gbps == null ? 0 : gbps;
  }

  void reboot() {
    boots++;
    for (SimulatedPort p : ports) {
      p.resetAll();
      p.up = true;
    }
  }

  /** Deterministic per seed, node and boot: a new value after every reboot. */
  String bootId() {
    return UUID.nameUUIDFromBytes(
            (seed + "/" + name + "/boot/" + boots).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  NodeIdentity identity() {
    return new NodeIdentity(cluster, name, bootId());
  }
}
