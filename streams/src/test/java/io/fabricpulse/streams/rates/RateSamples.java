package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import java.time.Instant;
import java.util.List;

/** Synthetic raw samples for the rate-stage tests: one node, gpu017 of cluster c1. */
final class RateSamples {

  static final String CLUSTER = "c1";
  static final String NODE = "gpu017";
  static final String NODE_KEY = CLUSTER + "/" + NODE;
  static final String BOOT_A = "3f9e2c1a-6b1d-4c55-9d0e-0a1b2c3d4e5f";
  static final String BOOT_B = "8d2b7e40-1f3a-4a6e-b2c9-5e6f7a8b9c0d";

  private RateSamples() {}

  static Counter counter(String name, CounterGroup group, int width, Long value) {
    return Counter.newBuilder()
        .setName(name)
        .setGroup(group)
        .setWidth(width)
        .setValue(value)
        .setUnavailable(value == null ? "N/A (no PMA)" : null)
        .build();
  }

  static Counter pma(String name, int width, long value) {
    return counter(name, CounterGroup.COUNTERS, width, value);
  }

  static Counter hw(String name, int width, long value) {
    return counter(name, CounterGroup.HW_COUNTERS, width, value);
  }

  static Counter ethtool(String name, long value) {
    return counter(name, CounterGroup.ETHTOOL, 64, value);
  }

  /** An active 400 Gb/s NDR port mlx5_0/1 of gpu017. */
  static PortCounters port(String bootId, long seq, Instant time, Counter... counters) {
    return PortCounters.newBuilder()
        .setCluster(CLUSTER)
        .setNode(NODE)
        .setBootId(bootId)
        .setSeq(seq)
        .setTime(time)
        .setDevice("mlx5_0")
        .setPort(1)
        .setLinkLayer("InfiniBand")
        .setState("ACTIVE")
        .setPhysState("LinkUp")
        .setRate("400 Gb/sec (4X NDR)")
        .setRateGbps(400.0)
        .setLinkWidth("4X")
        .setCounters(List.of(counters))
        .build();
  }

  static PfcPauseFrames pfc(String bootId, long seq, Instant time, Counter... counters) {
    return PfcPauseFrames.newBuilder()
        .setCluster(CLUSTER)
        .setNode(NODE)
        .setBootId(bootId)
        .setSeq(seq)
        .setTime(time)
        .setNetdev("ens5f0np0")
        .setDriver("mlx5_core")
        .setDevice("mlx5_2")
        .setCounters(List.of(counters))
        .build();
  }

  static EcnMarks ecn(
      String bootId, long seq, Instant time, String netdev, String device, Counter... counters) {
    return EcnMarks.newBuilder()
        .setCluster(CLUSTER)
        .setNode(NODE)
        .setBootId(bootId)
        .setSeq(seq)
        .setTime(time)
        .setNetdev(netdev)
        .setDevice(device)
        .setPort(device == null ? null : 1)
        .setCounters(List.of(counters))
        .build();
  }
}
