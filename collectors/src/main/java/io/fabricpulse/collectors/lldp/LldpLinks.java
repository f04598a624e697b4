package io.fabricpulse.collectors.lldp;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Ethernet cables LLDP shows, as the topology's {@link PortLink}s, so that RoCE links join
 * fabric.topology as InfiniBand ones do and the streams' topology join and pause-propagation trace
 * read them unchanged.
 *
 * <p>On a host, each RoCE netdev's neighbour is the far end of that port's cable; the host end is
 * named as the host's own samples name the port (NodeDescription {@code gpu007 mlx5_8}, the RDMA
 * port number) so that alerts on the port find the link. Netdevs without an RDMA port (a management
 * NIC) are no part of the fabric and are left out.
 *
 * <p>On a switch that runs lldpd (Cumulus Linux, SONiC), only its cables to other switches are
 * taken: each host reports its own cables, with the RDMA device the switch cannot know.
 *
 * <p>An Ethernet end's GUID is its MAC ({@link LinkEnd#guidOfMac}): a switch's chassis ID, which
 * all its ports share as an IB switch's ports share its node GUID; a neighbour whose chassis ID is
 * no MAC is reported and skipped. A switch port's number is the last number of its name ({@code
 * swp12} is 12).
 */
public final class LldpLinks {

  /** A host netdev that is an RDMA port: which device and port, and the netdev's own MAC. */
  public record HostPort(String netdev, String device, int port, String mac) {}

  private static final Pattern LAST_NUMBER = Pattern.compile("(\\d+)\\D*$");

  private LldpLinks() {}

  /**
   * The host {@code node}'s cables: one link per neighbour heard on a netdev of {@code ports} (by
   * netdev name).
   */
  public static ParseResult<PortLink> ofHost(
      String source, String node, List<LldpNeighbor> neighbors, Map<String, HostPort> ports) {
    ParseResult<PortLink> result = new ParseResult<>();
    for (LldpNeighbor n : neighbors) {
      HostPort port = ports.get(n.localInterface());
      if (port == null) {
        continue;
      }
      if (port.mac() == null || !isMac(port.mac())) {
        result.skip(source, n.line(), "no MAC address for " + n.localInterface());
        continue;
      }
      LinkEnd remote = remote(source, n, result);
      if (remote == null) {
        continue;
      }
      LinkEnd local =
          new LinkEnd(
              NodeType.CA,
              LinkEnd.guidOfMac(port.mac()),
              node + " " + port.device(),
              null,
              port.port(),
              port.netdev());
      result.add(link(local, remote, n));
    }
    return result;
  }

  /** A switch's cables to the other switches it hears (Bridge or Router capability enabled). */
  public static ParseResult<PortLink> ofSwitch(
      String source, LldpChassis self, List<LldpNeighbor> neighbors) {
    ParseResult<PortLink> result = new ParseResult<>();
    if (!self.idType().equals("mac") || !isMac(self.id())) {
      result.skip(
          source, 1, "local chassis ID is a " + self.idType() + ", not a MAC: " + self.id());
      return result;
    }
    for (LldpNeighbor n : neighbors) {
      if (!n.isSwitch()) {
        continue;
      }
      LinkEnd remote = remote(source, n, result);
      if (remote == null) {
        continue;
      }
      LinkEnd local =
          new LinkEnd(
              NodeType.SWITCH,
              LinkEnd.guidOfMac(self.id()),
              self.name(),
              null,
              portNumber(n.localInterface()),
              n.localInterface());
      result.add(link(local, remote, n));
    }
    return result;
  }

  /** The last number of an interface name: 12 for {@code swp12} and {@code Ethernet1/12}; 0. */
  public static int portNumber(String name) {
    if (name == null) {
      return 0;
    }
    Matcher m = LAST_NUMBER.matcher(name);
    if (!m.find()) {
      return 0;
    }
    String digits = m.group(1);
    return digits.length() > 9 ? 0 : Integer.parseInt(digits);
  }

  private static LinkEnd remote(String source, LldpNeighbor n, ParseResult<PortLink> result) {
    if (!n.chassisIdType().equals("mac") || !isMac(n.chassisId())) {
      result.skip(
          source,
          n.line(),
          "chassis ID of the neighbour on "
              + n.localInterface()
              + " is a "
              + n.chassisIdType()
              + ", not a MAC: "
              + n.chassisId());
      return null;
    }
    NodeType type = n.isSwitch() ? NodeType.SWITCH : n.isStation() ? NodeType.CA : null;
    String name = n.portName();
    return new LinkEnd(
        type, LinkEnd.guidOfMac(n.chassisId()), n.systemName(), null, portNumber(name), name);
  }

  private static PortLink link(LinkEnd local, LinkEnd remote, LldpNeighbor n) {
    return new PortLink(local, remote, null, null, null, null, null, null, n.line());
  }

  private static boolean isMac(String text) {
    String hex = text.trim().replace(":", "").replace("-", "");
    return hex.length() == 12 && hex.chars().allMatch(c -> Character.digit(c, 16) >= 0);
  }
}
