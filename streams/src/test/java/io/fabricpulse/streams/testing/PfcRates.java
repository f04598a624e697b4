package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.schemas.counters.CounterMeanings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Synthetic fabric.rates records of source PFC, as the rate stage would emit them for one {@code
 * ethtool -S} sample of one netdev at 1 s sampling (counter names from [K-ethdoc]).
 */
public final class PfcRates implements RatesSample {

  public static final String CLUSTER = "c1";
  public static final long T0 = Instant.parse("2025-03-01T03:00:00Z").toEpochMilli();

  private final String node;
  private final String netdev;
  private final long time;
  private final long seq;
  private String bootId = "boot-1";
  private Long intervalMs = 1000L;
  private final List<CounterRate> rates = new ArrayList<>();

  private PfcRates(String node, String netdev, long time, long seq) {
    this.node = node;
    this.netdev = netdev;
    this.time = time;
    this.seq = seq;
  }

  /** A sample of {@code node}/{@code netdev} taken {@code second} seconds after T0. */
  public static PfcRates at(String node, String netdev, int second) {
    return new PfcRates(node, netdev, T0 + second * 1000L, second);
  }

  @Override
  public long time() {
    return time;
  }

  @Override
  public String key() {
    return CLUSTER + "/" + node + "/" + netdev;
  }

  /** rx (paused) pause duration: {@code ratio} of the 1 s interval, and {@code frames} frames. */
  public PfcRates rxPaused(int prio, double ratio, long frames) {
    counter("rx_prio" + prio + "_pause_duration", Math.round(ratio * 1_000_000), "microseconds");
    return counter("rx_prio" + prio + "_pause", frames, "events");
  }

  /** tx (pausing the peer) pause duration and frames. */
  public PfcRates txPausing(int prio, double ratio, long frames) {
    counter("tx_prio" + prio + "_pause_duration", Math.round(ratio * 1_000_000), "microseconds");
    return counter("tx_prio" + prio + "_pause", frames, "events");
  }

  /** A counter that increased by {@code delta} over the 1 s interval (tag normal). */
  public PfcRates counter(String name, long delta, String unit) {
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

  /** Re-tags every counter: clear/reboot keep delta = current value, first/saturated have none. */
  public PfcRates tagged(RateTag tag) {
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

  /**
   * Kind, direction, priority and unit as the rate stage sets them: from the same classifier
   * ({@link CounterMeanings}); a name it does not know keeps no meaning and the given unit.
   */
  static CounterRate.Builder withMeaning(CounterRate.Builder rate) {
    CounterMeanings.of(rate.getName())
        .ifPresent(
            m ->
                rate.setKind(m.kind())
                    .setDirection(m.direction())
                    .setPriority(m.priority())
                    .setUnit(m.unit()));
    return rate;
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
        .setSource(RateSource.PFC)
        .setDevice("mlx5_0")
        .setNetdev(netdev)
        .setRates(new ArrayList<>(rates))
        .build();
  }
}
