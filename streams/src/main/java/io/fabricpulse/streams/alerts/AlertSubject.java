package io.fabricpulse.streams.alerts;

import java.util.StringJoiner;

/**
 * What an alert is about. Fields that do not apply are null. {@link #key()} is the canonical
 * subject key used in tracker store keys and alert ids.
 */
public record AlertSubject(
    String cluster,
    String node,
    String device,
    Integer port,
    String netdev,
    Integer priority,
    Integer gpu,
    String job) {

  public static AlertSubject cluster(String cluster) {
    return new AlertSubject(cluster, null, null, null, null, null, null, null);
  }

  public static AlertSubject node(String cluster, String node) {
    return new AlertSubject(cluster, node, null, null, null, null, null, null);
  }

  public AlertSubject withDevice(String value) {
    return new AlertSubject(cluster, node, value, port, netdev, priority, gpu, job);
  }

  public AlertSubject withPort(Integer value) {
    return new AlertSubject(cluster, node, device, value, netdev, priority, gpu, job);
  }

  public AlertSubject withNetdev(String value) {
    return new AlertSubject(cluster, node, device, port, value, priority, gpu, job);
  }

  public AlertSubject withPriority(Integer value) {
    return new AlertSubject(cluster, node, device, port, netdev, value, gpu, job);
  }

  public AlertSubject withGpu(Integer value) {
    return new AlertSubject(cluster, node, device, port, netdev, priority, value, job);
  }

  public AlertSubject withJob(String value) {
    return new AlertSubject(cluster, node, device, port, netdev, priority, gpu, value);
  }

  /**
   * Canonical key, e.g. {@code c1/gpu017/netdev=ens5f0np0/prio=3}: cluster and node positional, the
   * other present fields named, in a fixed order.
   */
  public String key() {
    StringJoiner j = new StringJoiner("/");
    j.add(cluster);
    if (node != null) {
      j.add(node);
    }
    if (device != null) {
      j.add("device=" + device);
    }
    if (port != null) {
      j.add("port=" + port);
    }
    if (netdev != null) {
      j.add("netdev=" + netdev);
    }
    if (priority != null) {
      j.add("prio=" + priority);
    }
    if (gpu != null) {
      j.add("gpu=" + gpu);
    }
    if (job != null) {
      j.add("job=" + job);
    }
    return j.toString();
  }

  /** Short human form for summaries: {@code gpu017 ens5f0np0 prio 3}. */
  public String shortName() {
    StringJoiner j = new StringJoiner(" ");
    j.add(node != null ? node : cluster);
    if (device != null && netdev == null) {
      j.add(device + (port != null ? ":" + port : ""));
    }
    if (netdev != null) {
      j.add(netdev);
    }
    if (priority != null) {
      j.add("prio " + priority);
    }
    if (gpu != null) {
      j.add("GPU " + gpu);
    }
    if (job != null) {
      j.add("job " + job);
    }
    return j.toString();
  }
}
