package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsValues;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The netdevs the ethtool source samples, with the RDMA device and port behind each: the configured
 * list, or (when none is configured) every RoCE port sysfs shows. The mapping is looked up again
 * every {@code refresh}, since netdevs come and go rarely; the RoCE congestion counters of the
 * port's hw_counters are read fresh for every sample.
 */
public final class RoceNetdevs {
  /** A netdev and, when sysfs knows it, its RDMA device and port (null otherwise). */
  public record Port(String netdev, String device, Integer port) {}

  private static final NodeIdentity SCRATCH = new NodeIdentity("", "", "");

  private final SysfsTree tree;
  private final SysfsPortCounterReader reader;
  private final List<String> configured;
  private final Duration refresh;
  private List<Port> ports;
  private Instant lookedUp;

  /**
   * @param configured netdevs to sample; empty = every RoCE port's netdev found in sysfs
   */
  public RoceNetdevs(
      SysfsTree tree, SysfsPortCounterReader reader, List<String> configured, Duration refresh) {
    this.tree = tree;
    this.reader = reader;
    this.configured = List.copyOf(configured);
    this.refresh = refresh;
  }

  public synchronized List<Port> ports(Instant now) {
    if (ports == null || !now.isBefore(lookedUp.plus(refresh))) {
      ports = lookUp(now);
      lookedUp = now;
    }
    return ports;
  }

  private List<Port> lookUp(Instant now) {
    Map<String, Port> byNetdev = new LinkedHashMap<>();
    // A scratch context: this read only maps netdevs and must not use the sysfs source's sequence.
    for (PortCounters counters : reader.read(SampleContext.of(SCRATCH, now)).records()) {
      if (counters.getNetdev() != null) {
        byNetdev.putIfAbsent(
            counters.getNetdev(),
            new Port(counters.getNetdev(), counters.getDevice(), counters.getPort()));
      }
    }
    if (configured.isEmpty()) {
      return List.copyOf(byNetdev.values());
    }
    List<Port> selected = new ArrayList<>();
    for (String netdev : configured) {
      selected.add(byNetdev.getOrDefault(netdev, new Port(netdev, null, null)));
    }
    return selected;
  }

  /** The port's RoCE congestion counters ({@link EthtoolRecords#HW_CONGESTION_COUNTERS}). */
  public Map<String, Long> hwCongestion(Port port) {
    if (port.device() == null || port.port() == null) {
      return Map.of();
    }
    String dir =
        SysfsPortCounterReader.CLASS_INFINIBAND
            + "/"
            + port.device()
            + "/ports/"
            + port.port()
            + "/hw_counters/";
    Map<String, Long> values = new HashMap<>();
    for (String name : EthtoolRecords.HW_CONGESTION_COUNTERS) {
      try {
        if (tree.exists(dir + name)) {
          Long value = SysfsValues.parseUnsigned(tree.read(dir + name));
          if (value != null) {
            values.put(name, value);
          }
        }
      } catch (IOException unreadable) {
        // the counter is simply missing from this sample; sysfs reports the read error itself
      }
    }
    return values;
  }
}
