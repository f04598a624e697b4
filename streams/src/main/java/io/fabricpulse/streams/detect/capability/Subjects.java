package io.fabricpulse.streams.detect.capability;

import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.streams.alerts.AlertSubject;

/**
 * How a link end is named in an alert: a host port as the host's own alerts name it (node {@code
 * gpu007}, device {@code mlx5_3} from its NodeDescription {@code gpu007 mlx5_3}), a switch port as
 * its switch-port counters do (node = the NodeDescription when a plain name, else the GUID; device
 * = the GUID; docs/switch-ports.md). The topology join (io.fabricpulse.streams.peers) finds a port
 * alert's link by this name.
 */
public final class Subjects {
  private Subjects() {}

  public static AlertSubject of(String cluster, LinkPort end) {
    String description = end.getNodeDescription();
    if (end.getNodeType() == FabricNodeType.CA
        && description != null
        && description.matches("\\S+ \\S+")) {
      String[] words = description.split(" ");
      return AlertSubject.node(cluster, words[0]).withDevice(words[1]).withPort(end.getPort());
    }
    String node =
        description != null && description.matches("[A-Za-z0-9._:;@+-]+")
            ? description
            : end.getGuid();
    return AlertSubject.node(cluster, node).withDevice(end.getGuid()).withPort(end.getPort());
  }

  /**
   * {@code leaf-07 port 12}, {@code leaf-r01 swp12} for an Ethernet end (its port name), or the
   * GUID when the end has no description.
   */
  public static String label(LinkPort end) {
    String name =
        end.getNodeDescription() != null && !end.getNodeDescription().isEmpty()
            ? end.getNodeDescription()
            : end.getGuid();
    return end.getPortName() != null
        ? name + " " + end.getPortName()
        : name + " port " + end.getPort();
  }

  static String encode(AlertSubject s) {
    return s.cluster() + "\t" + s.node() + "\t" + s.device() + "\t" + s.port();
  }

  static AlertSubject decode(String line) {
    String[] p = line.split("\t", -1);
    return AlertSubject.node(p[0], p[1]).withDevice(p[2]).withPort(Integer.parseInt(p[3]));
  }
}
