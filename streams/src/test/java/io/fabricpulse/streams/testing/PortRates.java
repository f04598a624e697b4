package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Synthetic fabric.rates records of source PORT, as the rate stage would emit them for one sysfs
 * sample of one IB port (counter names from [K-sysfs]): link state, speed, width, and counters with
 * value, delta and tag.
 */
public final class PortRates implements RatesSample {

  public static final String CLUSTER = "c1";
  public static final long T0 = Instant.parse("2025-03-01T03:00:00Z").toEpochMilli();

  private final String node;
  private final String device;
  private final long time;
  private String bootId = "boot-1";
  private Long intervalMs;
  private String state = "ACTIVE";
  private String physState = "LinkUp";
  private double rateGbps = 400;
  private String width = "4X";
  private String netdev;
  private final List<CounterRate> rates = new ArrayList<>();

  private PortRates(String node, String device, long time) {
    this.node = node;
    this.device = device;
    this.time = time;
  }

  /** A sample of {@code node}/{@code device} port 1 taken {@code second} seconds after T0. */
  public static PortRates at(String node, String device, long second) {
    return new PortRates(node, device, T0 + second * 1000L);
  }

  @Override
  public long time() {
    return time;
  }

  @Override
  public String key() {
    return CLUSTER + "/" + node + "/" + device + "/1";
  }

  public PortRates interval(long ms) {
    this.intervalMs = ms;
    return this;
  }

  public PortRates boot(String id) {
    this.bootId = id;
    return this;
  }

  /** state DOWN, phys_state Polling (a port that lost its link and is training). */
  public PortRates down() {
    this.state = "DOWN";
    this.physState = "Polling";
    return this;
  }

  public PortRates rate(double gbps, String linkWidth) {
    this.rateGbps = gbps;
    this.width = linkWidth;
    return this;
  }

  public PortRates netdev(String name) {
    this.netdev = name;
    return this;
  }

  /**
   * A counter at {@code value} that rose by {@code delta} (tag normal, or first when no interval).
   */
  public PortRates counter(String name, long value, long delta) {
    RateTag tag = intervalMs == null ? RateTag.first : RateTag.normal;
    return counter(name, value, tag == RateTag.first ? null : delta, tag);
  }

  /**
   * A counter with an explicit tag; clear and reboot carry delta = value, as the rate stage does.
   */
  public PortRates counter(String name, long value, Long delta, RateTag tag) {
    rates.add(
        CounterRate.newBuilder()
            .setName(name)
            .setValue(value)
            .setDelta(delta)
            .setPerSecond(delta == null || intervalMs == null ? null : delta * 1000.0 / intervalMs)
            .setUnit("events")
            .setTag(tag)
            .build());
    return this;
  }

  @Override
  public CounterRates build() {
    return CounterRates.newBuilder()
        .setCluster(CLUSTER)
        .setNode(node)
        .setBootId(bootId)
        .setSeq((time - T0) / 1000)
        .setTime(Instant.ofEpochMilli(time))
        .setIntervalMs(intervalMs)
        .setSource(RateSource.PORT)
        .setDevice(device)
        .setPort(1)
        .setNetdev(netdev)
        .setLinkLayer(netdev == null ? "InfiniBand" : "Ethernet")
        .setState(state)
        .setPhysState(physState)
        .setRateGbps(rateGbps)
        .setLinkWidth(width)
        .setRates(new ArrayList<>(rates))
        .build();
  }
}
