package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Synthetic fabric.rates records of a RoCE port at 1 s sampling, as the rate stage emits them: ECN
 * samples (hw_counters np_/rp_ congestion counters [K-mlx5cc]), PFC samples (ethtool -S [K-ethdoc])
 * and PORT samples (sysfs, link_layer Ethernet, netdev MTU [K-sysfs]). Keys as the rate stage
 * builds them (RateSample), so the sources of one port land on different keys.
 */
public final class RoceRates implements RatesSample {

  public static final String CLUSTER = "c1";
  public static final long T0 = Instant.parse("2025-03-01T03:00:00Z").toEpochMilli();

  private final RateSource source;
  private final String node;
  private final String netdev;
  private String device;
  private final long time;
  private final long seq;
  private String bootId = "boot-1";
  private Long intervalMs = 1000L;
  private Integer mtu;
  private final List<CounterRate> rates = new ArrayList<>();

  private RoceRates(RateSource source, String node, String netdev, String device, long time) {
    this.source = source;
    this.node = node;
    this.netdev = netdev;
    this.device = device;
    this.time = time;
    this.seq = (time - T0) / 1000;
  }

  /** An ECN sample of {@code node}/{@code netdev} taken {@code second} s after T0. */
  public static RoceRates ecn(String node, String netdev, int second) {
    return new RoceRates(RateSource.ECN, node, netdev, deviceOf(netdev), T0 + second * 1000L);
  }

  /** An ethtool -S (PFC) sample. */
  public static RoceRates pfc(String node, String netdev, int second) {
    return new RoceRates(RateSource.PFC, node, netdev, deviceOf(netdev), T0 + second * 1000L);
  }

  /** A sysfs port sample of the RoCE port behind {@code netdev}, at MTU 9000 unless set. */
  public static RoceRates port(String node, String netdev, int second) {
    RoceRates r =
        new RoceRates(RateSource.PORT, node, netdev, deviceOf(netdev), T0 + second * 1000L);
    r.mtu = 9000;
    return r;
  }

  /**
   * A perfquery sample of a switch port, as the fabric host's sweep reports it (source PERFQUERY):
   * {@code sw} names the switch, {@code port} its port.
   */
  public static RoceRates switchPort(String sw, int port, int second) {
    return new RoceRates(
        RateSource.PERFQUERY, sw, "port" + port, "0x0002000000000001", T0 + second * 1000L);
  }

  /** ens3np0 -> mlx5_2, the usual naming of the n-th RoCE netdev. */
  static String deviceOf(String netdev) {
    if (netdev != null && netdev.matches("ens\\d+np0")) {
      return "mlx5_" + (Integer.parseInt(netdev.substring(3, netdev.length() - 3)) - 1);
    }
    return "mlx5_0";
  }

  @Override
  public long time() {
    return time;
  }

  @Override
  public String key() {
    return switch (source) {
      case PORT -> CLUSTER + "/" + node + "/" + device + "/1";
      case PFC -> CLUSTER + "/" + node + "/" + netdev;
      default -> CLUSTER + "/" + node + "/" + netdev + "/" + device + "/1";
    };
  }

  /** Sampled every {@code seconds} (the rate stage's interval_ms); set before any counter. */
  public RoceRates every(int seconds) {
    this.intervalMs = seconds * 1000L;
    return this;
  }

  /** The RDMA device behind the netdev, e.g. irdma0 on an Intel E810 (default from the name). */
  public RoceRates device(String name) {
    this.device = name;
    return this;
  }

  public RoceRates mtu(int value) {
    this.mtu = value;
    return this;
  }

  public RoceRates firstSample() {
    this.intervalMs = null;
    return tagged(RateTag.first);
  }

  /** rx pause on {@code prio} for {@code ratio} of the 1 s interval. */
  public RoceRates rxPaused(int prio, double ratio) {
    return counter(
        "rx_prio" + prio + "_pause_duration", Math.round(ratio * 1_000_000), "microseconds");
  }

  /** Healthy DCQCN: marks received, as many CNPs sent, CNPs handled, none ignored. */
  public RoceRates ecnHealthy(long marks) {
    counter("np_ecn_marked_roce_packets", marks, "packets");
    counter("np_cnp_sent", marks, "packets");
    counter("rp_cnp_handled", marks / 2, "packets");
    return counter("rp_cnp_ignored", 0, "packets");
  }

  /** A counter that increased by {@code delta} over the interval (tag normal). */
  public RoceRates counter(String name, long delta, String unit) {
    rates.add(
        PfcRates.withMeaning(
                CounterRate.newBuilder()
                    .setName(name)
                    .setValue(1_000_000_000L + delta)
                    .setDelta(delta)
                    .setPerSecond(intervalMs == null ? null : delta * 1000.0 / intervalMs)
                    .setUnit(unit)
                    .setTag(RateTag.normal))
            .build());
    return this;
  }

  /** Re-tags every counter: clear/reboot keep delta = current value, the others have none. */
  public RoceRates tagged(RateTag tag) {
    List<CounterRate> retagged = new ArrayList<>();
    for (CounterRate r : rates) {
      boolean valueAsDelta = tag == RateTag.clear || tag == RateTag.reboot;
      retagged.add(
          CounterRate.newBuilder(r)
              .setTag(tag)
              .setDelta(valueAsDelta ? r.getValue() : null)
              .setPerSecond(valueAsDelta ? r.getValue() * 1.0 : null)
              .build());
    }
    rates.clear();
    rates.addAll(retagged);
    if (tag == RateTag.reboot) {
      bootId = "boot-2";
    }
    return this;
  }

  @Override
  public CounterRates build() {
    return CounterRates.newBuilder()
        .setCluster(CLUSTER)
        .setNode(node)
        .setBootId(bootId)
        .setSeq(seq)
        .setTime(Instant.ofEpochMilli(time))
        .setIntervalMs(intervalMs)
        .setSource(source)
        .setDevice(device)
        .setPort(source == RateSource.PFC ? null : 1)
        .setNetdev(netdev)
        .setLinkLayer(source == RateSource.PORT ? "Ethernet" : null)
        .setState(source == RateSource.PORT ? "ACTIVE" : null)
        .setNetdevMtu(source == RateSource.PORT ? mtu : null)
        .setRates(new ArrayList<>(rates))
        .build();
  }
}
