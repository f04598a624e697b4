package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.lldp.LldpSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Ethernet switches under the simulated nodes' RoCE netdevs, as lldpd on each end reports them.
 *
 * <p>Racks of {@link #HOSTS_PER_TOR} nodes: netdev r (in the node's order) of every node of rack k
 * is cabled to top-of-rack switch {@code roce-leaf<k * rails + r + 1>}, port {@code swp<position in
 * the rack>}; every leaf's {@code swp49..} go to the {@link #SPINES} spines, spine port {@code
 * swp<leaf>}. On an InfiniBand fleet that is the storage network of each node's storage NIC
 * (gpu001-008 on roce-leaf01, gpu009-016 on roce-leaf02); the names differ from the InfiniBand
 * leaves' so the two fabrics never merge in the topology.
 *
 * <p>Each host runs lldpd with its defaults (port ID = the netdev's MAC, description = its name),
 * each switch as Cumulus Linux configures it (port ID = interface name, bridge and router
 * capabilities), and both print {@code lldpcli -f keyvalue} exactly as lldpd 1.0.16 does (the
 * captures in collectors/testdata/lldp). A port that is down shows no neighbour, as lldpd drops the
 * neighbours of an interface that goes down.
 */
public final class SimulatedEthernetFabric {
  public static final int HOSTS_PER_TOR = 8;
  public static final int SPINES = 2;

  /** A leaf's first uplink port: swp49 to spine 1, swp50 to spine 2. */
  static final int FIRST_UPLINK = 49;

  private static final String HOST_DESCR =
      "Ubuntu 22.04.4 LTS Linux 5.15.0-105-generic #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024"
          + " x86_64";
  private static final String SWITCH_DESCR = "Cumulus Linux version 5.9.1 running on Nvidia SN5600";

  /** One end of a cable as lldpd sees it. */
  private record End(String system, String mac, String iface, SimulatedPort hostPort) {
    boolean isHost() {
      return hostPort != null;
    }
  }

  private final FabricSimulator simulator;
  private final Instant start;
  private final Map<String, String> chassisMacs = new LinkedHashMap<>();

  /** A cable seen from one of its systems: that system's end, and the end at the other side. */
  private record Cable(End near, End far) {}

  /** System name -> its interface -> the cable plugged into it. */
  private final Map<String, Map<String, Cable>> cables = new LinkedHashMap<>();

  /** A host's chassis ID: the MAC of its first netdev, as lldpd picks one of its interfaces. */
  private final Map<String, String> hostChassisMacs = new LinkedHashMap<>();

  SimulatedEthernetFabric(FabricSimulator simulator, Map<String, List<SimulatedPort>> netdevPorts) {
    this.simulator = simulator;
    this.start = simulator.config().start();
    int rails = netdevPorts.values().stream().mapToInt(List::size).max().orElse(0);
    int racks = (netdevPorts.size() + HOSTS_PER_TOR - 1) / HOSTS_PER_TOR;
    int leaves = racks * rails;
    for (int s = 1; s <= SPINES; s++) {
      chassisMacs.put(spine(s), String.format("1c:34:da:%02x:%02x:00", 0x80 + s, 0));
    }
    for (int l = 1; l <= leaves; l++) {
      chassisMacs.put(leaf(l), String.format("1c:34:da:%02x:%02x:00", l >> 8, l & 0xff));
      for (int s = 1; s <= SPINES; s++) {
        cable(
            new End(leaf(l), chassisMacs.get(leaf(l)), "swp" + (FIRST_UPLINK + s - 1), null),
            new End(spine(s), chassisMacs.get(spine(s)), "swp" + l, null));
      }
    }
    int n = 0;
    for (Map.Entry<String, List<SimulatedPort>> node : netdevPorts.entrySet()) {
      int rack = n / HOSTS_PER_TOR;
      int position = n % HOSTS_PER_TOR + 1;
      for (int r = 0; r < node.getValue().size(); r++) {
        SimulatedPort p = node.getValue().get(r);
        hostChassisMacs.putIfAbsent(node.getKey(), mac(node.getKey(), p.netdev));
        String leaf = leaf(rack * rails + r + 1);
        cable(
            new End(node.getKey(), mac(node.getKey(), p.netdev), p.netdev, p),
            new End(leaf, chassisMacs.get(leaf), "swp" + position, null));
      }
      n++;
    }
  }

  private void cable(End a, End b) {
    cables.computeIfAbsent(a.system(), k -> new LinkedHashMap<>()).put(a.iface(), new Cable(a, b));
    cables.computeIfAbsent(b.system(), k -> new LinkedHashMap<>()).put(b.iface(), new Cable(b, a));
  }

  static String leaf(int l) {
    return String.format("roce-leaf%02d", l);
  }

  static String spine(int s) {
    return String.format("roce-spine%02d", s);
  }

  private String mac(String node, String netdev) {
    return SimulatedNode.mac(simulator.config().seed(), node, netdev);
  }

  /** The switches, leaves first: each runs lldpd and the agent's LLDP source as a switch. */
  public List<String> switches() {
    List<String> all = new ArrayList<>();
    chassisMacs.keySet().stream().filter(s -> s.startsWith("roce-leaf")).forEach(all::add);
    chassisMacs.keySet().stream().filter(s -> s.startsWith("roce-spine")).forEach(all::add);
    return all;
  }

  /** Whether {@code system} is one of {@link #switches()}. */
  public boolean isSwitch(String system) {
    return chassisMacs.containsKey(system);
  }

  /** Host or switch {@code system}'s lldpcli. */
  public LldpSource lldp(String system) {
    return new LldpSource() {
      @Override
      public String neighbors() {
        synchronized (simulator) {
          return neighborsOf(system, simulator.now());
        }
      }

      @Override
      public String chassis() {
        return chassisOf(system);
      }
    };
  }

  /** The leaf and port a host's netdev is cabled to: {@code roce-leaf01 swp7}. */
  public String switchPortOf(String node, String netdev) {
    Cable cable = cables.getOrDefault(node, Map.of()).get(netdev);
    return cable == null ? null : cable.far().system() + " " + cable.far().iface();
  }

  private String neighborsOf(String system, Instant now) {
    StringBuilder out = new StringBuilder();
    int rid = 0;
    for (Cable cable : cables.getOrDefault(system, Map.of()).values()) {
      End far = cable.far();
      if (!up(cable.near()) || !up(far)) {
        continue;
      }
      rid++;
      String p = "lldp." + cable.near().iface() + ".";
      out.append(p).append("via=LLDP\n");
      out.append(p).append("rid=").append(rid).append('\n');
      out.append(p).append("age=").append(age(Duration.between(start, now))).append('\n');
      chassis(out, p + "chassis.", far);
      if (far.isHost()) {
        // lldpd's default on a Linux host: the port ID is the MAC, the description the netdev
        out.append(p).append("port.mac=").append(far.mac()).append('\n');
      } else {
        out.append(p).append("port.ifname=").append(far.iface()).append('\n');
      }
      out.append(p).append("port.descr=").append(far.iface()).append('\n');
      out.append(p).append("port.ttl=120\n");
    }
    return out.toString();
  }

  private String chassisOf(String system) {
    StringBuilder out = new StringBuilder();
    End self = cables.get(system).values().iterator().next().near();
    chassis(out, "local-chassis.chassis.", self);
    return out.toString();
  }

  private void chassis(StringBuilder out, String prefix, End end) {
    boolean host = end.isHost();
    String mac = host ? hostChassisMacs.get(end.system()) : chassisMacs.get(end.system());
    out.append(prefix).append("mac=").append(mac).append('\n');
    out.append(prefix).append("name=").append(end.system()).append('\n');
    out.append(prefix).append("descr=").append(host ? HOST_DESCR : SWITCH_DESCR).append('\n');
    out.append(prefix).append("Bridge.enabled=").append(host ? "off" : "on").append('\n');
    out.append(prefix).append("Router.enabled=").append(host ? "off" : "on").append('\n');
    out.append(prefix).append("Wlan.enabled=off\n");
    out.append(prefix).append("Station.enabled=").append(host ? "on" : "off").append('\n');
  }

  private static boolean up(End end) {
    return !end.isHost() || end.hostPort().up;
  }

  /** lldpd's age: {@code 0 day, 00:00:28}, {@code 17 days, 09:36:51}. */
  static String age(Duration d) {
    long s = Math.max(0, d.toSeconds());
    long days = s / 86_400;
    return String.format(
        "%d day%s, %02d:%02d:%02d",
        days, days > 1 ? "s" : "", (s / 3600) % 24, (s / 60) % 60, s % 60);
  }
}
