package io.fabricpulse.collectors.topology;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The links of one topology sweep, one {@link FabricLink} per cable keyed by its link_id.
 *
 * <p>The tools print every link once from each end; both lines give one link whose ends carry what
 * each end reported (width, speed). iblinkinfo's default layout prints no GUID for the remote end:
 * it is taken from the remote port's own line, found by LID and port. A link whose remote GUID
 * cannot be found that way is skipped and reported, as are lines of ports without a link (they are
 * no link).
 *
 * @param sweep the sweep the links come from
 * @param links by link_id, in key order
 */
public record TopologySnapshot(TopologySweep sweep, SortedMap<String, FabricLink> links) {

  public TopologySnapshot {
    links = Collections.unmodifiableSortedMap(new TreeMap<>(links));
  }

  /**
   * The snapshot of {@code ports} (a parser's output); lines that give no link are reported in the
   * result's malformed list with {@code source} and their line.
   */
  public static ParseResult<TopologySnapshot> of(
      TopologySweep sweep, String source, List<PortLink> ports) {
    ParseResult<TopologySnapshot> result = new ParseResult<>();
    Map<String, PortLink> byGuidPort = new HashMap<>();
    Map<String, PortLink> byLidPort = new HashMap<>();
    for (PortLink port : ports) {
      LinkEnd local = port.local();
      if (local.guid() != null) {
        byGuidPort.putIfAbsent(local.guid() + ":" + local.port(), port);
      }
      if (local.lid() != null) {
        byLidPort.putIfAbsent(local.lid() + ":" + local.port(), port);
      }
    }
    SortedMap<String, FabricLink> links = new TreeMap<>();
    for (PortLink port : ports) {
      if (!port.connected()) {
        continue;
      }
      if (port.local().guid() == null) {
        result.skip(source, port.line(), "port without a GUID: " + port.local().label());
        continue;
      }
      PortLink far = farLine(port.remote(), byGuidPort, byLidPort);
      String farGuid = port.remote().guid() != null ? port.remote().guid() : guidOf(far);
      if (farGuid == null) {
        result.skip(
            source,
            port.line(),
            "no GUID for the far end of " + port.local().label() + ": " + port.remote().label());
        continue;
      }
      LinkPort near = linkPort(port.local(), port.local().guid(), port.width(), port.speed());
      LinkPort other =
          far != null
              ? linkPort(merge(port.remote(), far.local()), farGuid, far.width(), far.speed())
              : linkPort(port.remote(), farGuid, null, null);
      boolean nearFirst = compare(near, other) <= 0;
      LinkPort a = nearFirst ? near : other;
      LinkPort b = nearFirst ? other : near;
      String linkId = linkId(sweep.cluster(), a, b);
      if (links.containsKey(linkId)) {
        continue; // the same cable from its other end
      }
      Integer possibleWidth =
          firstNonNull(port.possibleWidth(), far == null ? null : far.possibleWidth());
      IbSpeed possibleSpeed =
          firstNonNull(port.possibleSpeed(), far == null ? null : far.possibleSpeed());
      links.put(
          linkId,
          FabricLink.newBuilder()
              .setCluster(sweep.cluster())
              .setLinkId(linkId)
              .setObservedBy(sweep.observedBy())
              .setSource(sweep.source())
              .setSweepSeq(sweep.sweepSeq())
              .setTime(sweep.time())
              .setEndA(a)
              .setEndB(b)
              .setPossibleWidth(possibleWidth)
              .setPossibleSpeed(speed(possibleSpeed))
              .build());
    }
    result.add(new TopologySnapshot(sweep, links));
    return result;
  }

  /**
   * {@code cluster/<guid a>:<port a><-><guid b>:<port b>}, the key of fabric.topology; an Ethernet
   * end gives its port name ({@code swp12}) for its port, since switch port numbers taken from
   * names need not be unique (breakout ports swp1s0 and swp2s0).
   */
  public static String linkId(String cluster, LinkPort a, LinkPort b) {
    return cluster + "/" + endId(a) + "<->" + endId(b);
  }

  private static String endId(LinkPort end) {
    return end.getGuid() + ":" + (end.getPortName() != null ? end.getPortName() : end.getPort());
  }

  /** The line the far end printed about itself, found by GUID and port, else by LID and port. */
  private static PortLink farLine(
      LinkEnd remote, Map<String, PortLink> byGuidPort, Map<String, PortLink> byLidPort) {
    if (remote.guid() != null) {
      PortLink line = byGuidPort.get(remote.guid() + ":" + remote.port());
      if (line != null) {
        return line;
      }
    }
    return remote.lid() == null ? null : byLidPort.get(remote.lid() + ":" + remote.port());
  }

  private static String guidOf(PortLink line) {
    return line == null ? null : line.local().guid();
  }

  /** What the far end's own line says, filled in from what the near end's line says of it. */
  private static LinkEnd merge(LinkEnd seenFromNear, LinkEnd own) {
    return new LinkEnd(
        own.type() != null ? own.type() : seenFromNear.type(),
        own.guid() != null ? own.guid() : seenFromNear.guid(),
        own.nodeDescription() != null ? own.nodeDescription() : seenFromNear.nodeDescription(),
        own.lid() != null ? own.lid() : seenFromNear.lid(),
        own.port(),
        own.portName() != null ? own.portName() : seenFromNear.portName());
  }

  private static LinkPort linkPort(LinkEnd end, String guid, Integer width, IbSpeed speed) {
    return LinkPort.newBuilder()
        .setGuid(guid)
        .setNodeType(nodeType(end.type()))
        .setNodeDescription(end.nodeDescription())
        .setLid(end.lid())
        .setPort(end.port())
        .setPortName(end.portName())
        .setWidth(width)
        .setSpeed(speed(speed))
        .build();
  }

  private static int compare(LinkPort x, LinkPort y) {
    int byGuid = x.getGuid().compareTo(y.getGuid());
    if (byGuid != 0) {
      return byGuid;
    }
    int byPort = Integer.compare(x.getPort(), y.getPort());
    return byPort != 0 ? byPort : endId(x).compareTo(endId(y));
  }

  private static FabricNodeType nodeType(NodeType type) {
    return type == null ? null : FabricNodeType.valueOf(type.name());
  }

  private static LinkSpeed speed(IbSpeed speed) {
    return speed == null ? null : LinkSpeed.valueOf(speed.name());
  }

  private static <T> T firstNonNull(T first, T second) {
    return first != null ? first : second;
  }
}
