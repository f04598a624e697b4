package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.lldp.LldpChassis;
import io.fabricpulse.collectors.lldp.LldpKeyValueParser;
import io.fabricpulse.collectors.lldp.LldpLinks;
import io.fabricpulse.collectors.lldp.LldpNeighbor;
import io.fabricpulse.collectors.lldp.LldpSource;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import io.fabricpulse.collectors.topology.TopologySnapshot;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * The LLDP source: each cycle lldpd's neighbours, as the Ethernet (RoCE) links of fabric.topology
 * (source LLDP) with the change log of links that appear or disappear, compared with the previous
 * cycle as the fabric role compares its sweeps. On a host the links of its RoCE netdevs; on a
 * switch that runs lldpd its cables to other switches ({@link LldpLinks}).
 */
public final class LldpTask extends SourceTask {
  /** Which end of its cables the node is. */
  public enum Role {
    HOST,
    SWITCH
  }

  private static final String NEIGHBORS = "lldpcli show neighbors";
  private static final String CHASSIS = "lldpcli show chassis";

  private final LldpSource lldp;
  private final Role role;
  private final RoceNetdevs netdevs;
  private final SysfsTree sysfs;
  private final TopologySweeps sweeps;
  private final LldpKeyValueParser parser = new LldpKeyValueParser();
  private TopologySnapshot last;

  /**
   * @param netdevs the host's RoCE netdevs and their RDMA ports; unused on a switch
   * @param sysfs where a netdev's MAC is read ({@code class/net/<netdev>/address}); unused on a
   *     switch
   */
  public LldpTask(
      NodeIdentity identity,
      Duration interval,
      LldpSource lldp,
      Role role,
      RoceNetdevs netdevs,
      SysfsTree sysfs) {
    super(SourceKind.LLDP, identity, interval);
    this.lldp = lldp;
    this.role = role;
    this.netdevs = netdevs;
    this.sysfs = sysfs;
    this.sweeps = new TopologySweeps(identity);
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) throws Exception {
    ParseResult<SpecificRecord> result = new ParseResult<>();
    ParseResult<LldpNeighbor> neighbors = parser.neighbors(NEIGHBORS, lldp.neighbors());
    result.skipAll(neighbors);
    ParseResult<PortLink> ports;
    if (role == Role.SWITCH) {
      ParseResult<LldpChassis> self = parser.chassis(CHASSIS, lldp.chassis());
      result.skipAll(self);
      if (self.records().isEmpty()) {
        return result;
      }
      ports = LldpLinks.ofSwitch(NEIGHBORS, self.records().get(0), neighbors.records());
    } else {
      ports = LldpLinks.ofHost(NEIGHBORS, identity().node(), neighbors.records(), hostPorts(now));
    }
    last =
        TopologySweeps.compare(
            last, sweeps.snapshot(TopologySource.LLDP, now, NEIGHBORS, ports, result), result);
    return result;
  }

  private Map<String, LldpLinks.HostPort> hostPorts(Instant now) {
    Map<String, LldpLinks.HostPort> ports = new LinkedHashMap<>();
    for (RoceNetdevs.Port p : netdevs.ports(now)) {
      if (p.device() == null || p.port() == null) {
        continue;
      }
      ports.put(
          p.netdev(), new LldpLinks.HostPort(p.netdev(), p.device(), p.port(), mac(p.netdev())));
    }
    return ports;
  }

  private String mac(String netdev) {
    try {
      String path = "class/net/" + netdev + "/address";
      return sysfs.exists(path) ? sysfs.read(path).trim() : null;
    } catch (IOException unreadable) {
      return null; // LldpLinks reports the port as having no MAC
    }
  }
}
