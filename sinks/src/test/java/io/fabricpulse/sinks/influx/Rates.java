package io.fabricpulse.sinks.influx;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.schemas.counters.CounterMeanings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Synthetic CounterRates records as the rate stage emits them (test fixtures). */
final class Rates {

  private final CounterRates.Builder builder;
  private final List<CounterRate> rates = new ArrayList<>();

  private Rates(RateSource source, String cluster, String node, long timeMs) {
    builder =
        CounterRates.newBuilder()
            .setCluster(cluster)
            .setNode(node)
            .setBootId("6f1c2d3e-0000-4000-8000-000000000001")
            .setSeq(timeMs / 1000)
            .setTime(Instant.ofEpochMilli(timeMs))
            .setIntervalMs(1000L)
            .setSource(source);
  }

  /** An IB port sample of mlx5_0 port 1 with link attributes. */
  static Rates port(String cluster, String node, long timeMs) {
    Rates r = new Rates(RateSource.PORT, cluster, node, timeMs);
    r.builder
        .setDevice("mlx5_0")
        .setPort(1)
        .setLinkLayer("InfiniBand")
        .setState("ACTIVE")
        .setPhysState("LinkUp")
        .setRateGbps(400.0)
        .setLinkWidth("4X");
    return r;
  }

  /** An ethtool PFC sample of netdev ens5f0np0. */
  static Rates pfc(String cluster, String node, long timeMs) {
    Rates r = new Rates(RateSource.PFC, cluster, node, timeMs);
    r.builder.setNetdev("ens5f0np0").setNetdevMtu(4200);
    return r;
  }

  Rates device(String device, int port) {
    builder.setDevice(device).setPort(port);
    return this;
  }

  Rates state(String state) {
    builder.setState(state);
    return this;
  }

  /** A counter with a known increase over a 1 s interval. */
  Rates normal(String name, long value, long delta, String unit) {
    return counter(name, value, delta, (double) delta, unit, RateTag.normal);
  }

  Rates counter(String name, Long value, Long delta, Double perSecond, String unit, RateTag tag) {
    CounterRate.Builder rate =
        CounterRate.newBuilder()
            .setName(name)
            .setValue(value)
            .setDelta(delta)
            .setPerSecond(perSecond)
            .setUnit(unit)
            .setTag(tag);
    // the meaning the rate stage attaches, from the same classifier
    CounterMeanings.of(name)
        .ifPresent(
            m -> rate.setKind(m.kind()).setDirection(m.direction()).setPriority(m.priority()));
    rates.add(rate.build());
    return this;
  }

  CounterRates build() {
    return builder.setRates(new ArrayList<>(rates)).build();
  }
}
