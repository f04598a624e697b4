package io.fabricpulse.sinks.influx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import org.apache.kafka.common.TopicPartition;

/**
 * Folds fields into 10 s event-time buckets per series, aligned to multiples of 10 s since the
 * epoch. A bucket closes when a later record of its series has a time at or past the bucket's end
 * (event time, never the wall clock), or when the stream time of its partition is {@code idleClose}
 * past that end (a port that went silent must not hold its partition's offsets forever), or on
 * {@link #closeAll()}.
 *
 * <p>A closed bucket becomes one point of {@code <measurement>_10s} at the bucket start: {@code
 * <field>_mean} and {@code <field>_max} (arithmetic mean and maximum of the samples' values) for
 * rates and gauges, {@code <field>_sum} for {@code *_delta} fields (the only lossless aggregate of
 * an increase), and {@code samples}, the number of records folded in.
 *
 * <p>Every bucket remembers the lowest Kafka offset it holds, so the sink never commits past a
 * record whose aggregate has not been written yet. A series lives in one partition (the record key
 * is its subject), so a bucket has one partition.
 */
final class TenSecondAggregator {

  static final long BUCKET_MS = 10_000;
  static final String SAMPLES = "samples";
  static final String MEAN_SUFFIX = "_mean";
  static final String MAX_SUFFIX = "_max";
  static final String SUM_SUFFIX = "_sum";

  private final long idleCloseMs;
  private final Map<String, Bucket> open = new HashMap<>();
  private final Map<TopicPartition, Long> streamTime = new HashMap<>();
  private final Map<String, ClosedBucket> lastClosed = new HashMap<>();
  private long lateSamples;

  TenSecondAggregator(Duration idleClose) {
    this.idleCloseMs = idleClose.toMillis();
  }

  /**
   * Adds one record's aggregated fields; returns the points of buckets this record closed. A record
   * older than an already closed bucket of its series is counted in {@link #lateSamples()} and not
   * folded in (writing a second point for that bucket would overwrite the first in InfluxDB); the
   * rate stage drops out-of-order samples, so this needs a clock jump.
   */
  List<SinkPoint> add(
      String measurement,
      SortedMap<String, String> tags,
      Map<String, Object> fields,
      long timeMs,
      TopicPartition partition,
      long offset) {
    List<SinkPoint> closed = new ArrayList<>();
    streamTime.merge(partition, timeMs, Math::max);
    String series = measurement + tags;
    long start = Math.floorDiv(timeMs, BUCKET_MS) * BUCKET_MS;
    ClosedBucket previous = lastClosed.get(series);
    if (previous != null && start < previous.end()) {
      lateSamples++;
      return closed;
    }
    Bucket bucket = open.get(series);
    if (bucket != null && start >= bucket.start + BUCKET_MS) {
      closed.add(close(series, bucket));
      bucket = null;
    }
    if (bucket == null) {
      bucket = new Bucket(measurement, tags, start, partition, offset);
      open.put(series, bucket);
    }
    bucket.add(fields);
    return closed;
  }

  /** Closes the buckets whose partition's stream time is {@code idleClose} past their end. */
  List<SinkPoint> closeIdle() {
    List<SinkPoint> closed = new ArrayList<>();
    Iterator<Map.Entry<String, Bucket>> it = open.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Bucket> entry = it.next();
      Bucket bucket = entry.getValue();
      long partitionTime = streamTime.getOrDefault(bucket.partition, Long.MIN_VALUE);
      if (partitionTime >= bucket.start + BUCKET_MS + idleCloseMs) {
        it.remove();
        closed.add(markClosed(entry.getKey(), bucket));
      }
    }
    return closed;
  }

  /** Closes every open bucket (shutdown). */
  List<SinkPoint> closeAll() {
    List<SinkPoint> closed = new ArrayList<>();
    open.forEach((series, bucket) -> closed.add(markClosed(series, bucket)));
    open.clear();
    return closed;
  }

  /**
   * Forgets the buckets of partitions this consumer no longer owns; their new owner rebuilds them.
   */
  void forget(Collection<TopicPartition> partitions) {
    open.values().removeIf(bucket -> partitions.contains(bucket.partition));
    lastClosed.values().removeIf(bucket -> partitions.contains(bucket.partition()));
    partitions.forEach(streamTime::remove);
  }

  /** Lowest offset of {@code partition} still held in an open bucket. */
  OptionalLong minHeldOffset(TopicPartition partition) {
    long min = Long.MAX_VALUE;
    for (Bucket bucket : open.values()) {
      if (bucket.partition.equals(partition)) {
        min = Math.min(min, bucket.minOffset);
      }
    }
    return min == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(min);
  }

  int openBuckets() {
    return open.size();
  }

  long lateSamples() {
    return lateSamples;
  }

  private SinkPoint close(String series, Bucket bucket) {
    open.remove(series);
    return markClosed(series, bucket);
  }

  private SinkPoint markClosed(String series, Bucket bucket) {
    lastClosed.put(series, new ClosedBucket(bucket.start + BUCKET_MS, bucket.partition));
    return bucket.toPoint();
  }

  private record ClosedBucket(long end, TopicPartition partition) {}

  private static final class Bucket {
    final String measurement;
    final SortedMap<String, String> tags;
    final long start;
    final TopicPartition partition;
    final long minOffset;
    final Map<String, FieldStats> fields = new LinkedHashMap<>();
    long samples;

    Bucket(
        String measurement,
        SortedMap<String, String> tags,
        long start,
        TopicPartition partition,
        long minOffset) {
      this.measurement = measurement;
      this.tags = tags;
      this.start = start;
      this.partition = partition;
      this.minOffset = minOffset;
    }

    void add(Map<String, Object> values) {
      samples++;
      values.forEach(
          (name, value) -> {
            if (value instanceof Number number) {
              fields.computeIfAbsent(name, n -> new FieldStats()).add(number);
            }
          });
    }

    SinkPoint toPoint() {
      Map<String, Object> out = new LinkedHashMap<>();
      fields.forEach(
          (name, stats) -> {
            if (name.endsWith(InfluxSchema.DELTA_SUFFIX)) {
              out.put(name + SUM_SUFFIX, stats.longSum);
            } else {
              out.put(name + MEAN_SUFFIX, stats.sum / stats.count);
              out.put(name + MAX_SUFFIX, stats.max);
            }
          });
      out.put(SAMPLES, samples);
      return new SinkPoint(InfluxSchema.aggregateMeasurement(measurement), tags, out, start);
    }
  }

  private static final class FieldStats {
    long count;
    double sum;
    long longSum;
    double max = Double.NEGATIVE_INFINITY;

    void add(Number value) {
      count++;
      sum += value.doubleValue();
      longSum += value.longValue();
      max = Math.max(max, value.doubleValue());
    }
  }
}
