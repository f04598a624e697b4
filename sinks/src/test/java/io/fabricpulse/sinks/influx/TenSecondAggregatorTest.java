package io.fabricpulse.sinks.influx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The 10 s aggregator on a fake ticker: every close is decided by event time or by the ticker. */
class TenSecondAggregatorTest {

  /** 2025-01-23T17:07:40Z, a multiple of 10 s. */
  private static final long T0 = 1_737_652_060_000L;

  private static final TopicPartition P0 = new TopicPartition("fabric.rates", 0);
  private static final Duration IDLE = Duration.ofSeconds(30);
  private static final Duration RETENTION = Duration.ofMinutes(10);
  private static final String MEASUREMENT = InfluxSchema.PORT_RATES;
  private static final String AGG = "fabric_port_rates_10s";

  private long nowNanos = 1_000_000_000L;
  private long nextOffset;
  private final TenSecondAggregator aggregator =
      new TenSecondAggregator(IDLE, RETENTION, () -> nowNanos);

  @Test
  void twoSeriesOfOnePartitionWithFiveMinutesOfEventTimeSkewLoseNothing() {
    List<SinkPoint> points = new ArrayList<>();
    // gpu001 runs 5 minutes ahead of gpu002 in event time, interleaved record by record.
    for (int i = 0; i < 60; i++) {
      points.addAll(add("gpu001", T0 + 300_000 + 1000L * i, i));
      points.addAll(add("gpu002", T0 + 1000L * i, 1000 + i));
      nowNanos += 10_000_000L;
    }
    points.addAll(aggregator.closeIdle());
    // Buckets 0..4 of each series closed on their own series' next bucket; bucket 5 is open.
    assertEquals(10, points.size());
    assertEquals(2, aggregator.openBuckets());
    points.addAll(aggregator.closeAll());

    assertEquals(0, aggregator.lateSamples());
    assertEquals(60, samplesOf(points, "gpu001"));
    assertEquals(60, samplesOf(points, "gpu002"));
    SinkPoint first = pointOf(points, "gpu002", T0);
    assertEquals(AGG, first.measurement());
    assertEquals(10L, first.fields().get("samples"));
    assertEquals(1004.5, first.fields().get("rx_bytes_per_s_mean"));
    assertEquals(1009.0, first.fields().get("rx_bytes_per_s_max"));
    assertEquals(10_045L, first.fields().get("port_rcv_data_delta_sum"));
    SinkPoint ahead = pointOf(points, "gpu001", T0 + 350_000);
    assertEquals(10L, ahead.fields().get("samples"));
    assertEquals(54.5, ahead.fields().get("rx_bytes_per_s_mean"));
  }

  @Test
  void bucketOfASilentSeriesClosesAfterTheIdleTimeOfTheTicker() {
    add("gpu003", T0, 1);
    add("gpu003", T0 + 1000, 2);
    add("gpu003", T0 + 2000, 3);
    nowNanos += IDLE.toNanos() - 1;
    assertTrue(aggregator.closeIdle().isEmpty());
    assertEquals(OptionalLong.of(0), aggregator.minHeldOffset(P0));

    nowNanos += 1;
    List<SinkPoint> closed = aggregator.closeIdle();
    assertEquals(1, closed.size());
    assertEquals(T0, closed.get(0).timeMs());
    assertEquals(3L, closed.get(0).fields().get("samples"));
    assertEquals(2.0, closed.get(0).fields().get("rx_bytes_per_s_mean"));
    assertEquals(0, aggregator.openBuckets());
    assertEquals(OptionalLong.empty(), aggregator.minHeldOffset(P0));
  }

  @Test
  void offsetsAreHeldAtTheFirstRecordOfTheOldestOpenBucketOfThePartition() {
    add("gpu001", T0, 1); // offset 0
    add("gpu002", T0 + 5000, 1); // offset 1
    add("gpu001", T0 + 1000, 1); // offset 2
    assertEquals(OptionalLong.of(0), aggregator.minHeldOffset(P0));

    // gpu001 reaches its next bucket: its first bucket closes, gpu002's still holds offset 1.
    assertEquals(1, add("gpu001", T0 + 10_000, 1).size()); // offset 3
    assertEquals(OptionalLong.of(1), aggregator.minHeldOffset(P0));
    assertEquals(1, add("gpu002", T0 + 12_000, 1).size()); // offset 4
    assertEquals(OptionalLong.of(3), aggregator.minHeldOffset(P0));
    assertEquals(OptionalLong.empty(), aggregator.minHeldOffset(new TopicPartition("x", 1)));
  }

  @Test
  void sampleAfterAnIdleCloseReopensTheBucketAndRewritesTheCompleteAggregate() {
    add("gpu004", T0, 2);
    add("gpu004", T0 + 1000, 4);
    nowNanos += IDLE.toNanos();
    List<SinkPoint> partial = aggregator.closeIdle();
    assertEquals(2L, partial.get(0).fields().get("samples"));
    assertEquals(OptionalLong.empty(), aggregator.minHeldOffset(P0));

    // The producer of gpu004 resumes within the same bucket.
    assertTrue(add("gpu004", T0 + 2000, 9).isEmpty()); // offset 2
    assertEquals(OptionalLong.of(0), aggregator.minHeldOffset(P0)); // its first record again
    List<SinkPoint> rewritten = add("gpu004", T0 + 10_000, 1);
    assertEquals(1, rewritten.size());
    SinkPoint complete = rewritten.get(0);
    assertEquals(T0, complete.timeMs());
    assertEquals(3L, complete.fields().get("samples"));
    assertEquals(5.0, complete.fields().get("rx_bytes_per_s_mean"));
    assertEquals(9.0, complete.fields().get("rx_bytes_per_s_max"));
    assertEquals(15L, complete.fields().get("port_rcv_data_delta_sum"));
    assertEquals(1, aggregator.rewrittenBuckets());
    assertEquals(0, aggregator.lateSamples());
  }

  @Test
  void sampleOlderThanTheKeptBucketIsCountedAndNotWrittenOverTheCompleteOne() {
    add("gpu005", T0, 1);
    assertEquals(1, add("gpu005", T0 + 10_000, 1).size());
    nowNanos += IDLE.toNanos();
    assertEquals(1, aggregator.closeIdle().size());

    // Bucket T0 is written and no longer kept (the kept one is T0+10s).
    assertTrue(add("gpu005", T0 + 3000, 7).isEmpty());
    assertEquals(1, aggregator.lateSamples());
    assertEquals(0, aggregator.openBuckets());
  }

  @Test
  void stateIsOneOpenAndOneClosedBucketPerSeriesAndForgottenAfterRetention() {
    for (int i = 0; i < 1000; i++) {
      add("gpu006", T0 + 1000L * i, i);
      add("gpu007", T0 + 1000L * i, i);
    }
    assertEquals(2, aggregator.trackedSeries());
    assertEquals(2, aggregator.openBuckets());

    nowNanos += RETENTION.toNanos() - 1;
    assertEquals(2, aggregator.closeIdle().size());
    assertEquals(2, aggregator.trackedSeries());
    nowNanos += 1;
    assertTrue(aggregator.closeIdle().isEmpty());
    assertEquals(0, aggregator.trackedSeries());
  }

  @Test
  void rebuildPointCoversEveryBucketStraddlingTheCommit() {
    add("gpu001", T0, 1); // offset 0, bucket T0 of gpu001
    add("gpu002", T0 - 300_000, 1); // offset 1, gpu002 five minutes behind
    add("gpu001", T0 + 1000, 1); // offset 2, still bucket T0
    assertEquals(1, add("gpu001", T0 + 10_000, 1).size()); // offset 3 closes [0, 2]
    // The commit stops at gpu002's open bucket (offset 1), inside gpu001's written bucket: a
    // restart must re-read from 0 to rebuild it, not from 1.
    assertEquals(OptionalLong.of(1), aggregator.minHeldOffset(P0));
    assertEquals(0, aggregator.rebuildFrom(P0, 1));
    // gpu002 still open from offset 1: any later commit point must re-read from 0 as well.
    assertEquals(0, aggregator.rebuildFrom(P0, 4));
  }

  @Test
  void bucketsOnlyReReadBelowTheCommitAreNotWrittenAgain() {
    TenSecondAggregator rebuilt = new TenSecondAggregator(IDLE, RETENTION, () -> nowNanos);
    SortedMap<String, String> a = tags("gpu001");
    SortedMap<String, String> b = tags("gpu002");
    // Re-read from 0 after a commit at 2: gpu001's bucket [0, 3] straddles it, gpu002's T0 bucket
    // [1] lies wholly below it and was written before.
    rebuilt.add(MEASUREMENT, a, fields(1), T0, P0, 0, true);
    rebuilt.add(MEASUREMENT, b, fields(5), T0, P0, 1, true);
    assertTrue(rebuilt.add(MEASUREMENT, b, fields(6), T0 + 10_000, P0, 2, false).isEmpty());
    rebuilt.add(MEASUREMENT, a, fields(3), T0 + 1000, P0, 3, false);
    List<SinkPoint> closed = rebuilt.add(MEASUREMENT, a, fields(1), T0 + 10_000, P0, 4, false);
    assertEquals(1, closed.size());
    assertEquals(2L, closed.get(0).fields().get("samples"));
    assertEquals(2.0, closed.get(0).fields().get("rx_bytes_per_s_mean"));
    assertEquals(0, rebuilt.lateSamples());
  }

  private List<SinkPoint> add(String node, long timeMs, long value) {
    return aggregator.add(MEASUREMENT, tags(node), fields(value), timeMs, P0, nextOffset++, false);
  }

  private static SortedMap<String, String> tags(String node) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(InfluxSchema.TAG_CLUSTER, "c1");
    tags.put(InfluxSchema.TAG_NODE, node);
    tags.put(InfluxSchema.TAG_DEVICE, "mlx5_0");
    tags.put(InfluxSchema.TAG_PORT, "1");
    return tags;
  }

  private static Map<String, Object> fields(long value) {
    return Map.of("rx_bytes_per_s", (double) value, "port_rcv_data_delta", value);
  }

  private static long samplesOf(List<SinkPoint> points, String node) {
    return points.stream()
        .filter(p -> p.tags().get(InfluxSchema.TAG_NODE).equals(node))
        .mapToLong(p -> (Long) p.fields().get("samples"))
        .sum();
  }

  private static SinkPoint pointOf(List<SinkPoint> points, String node, long timeMs) {
    return points.stream()
        .filter(p -> p.tags().get(InfluxSchema.TAG_NODE).equals(node) && p.timeMs() == timeMs)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no point of " + node + " at " + timeMs));
  }
}
