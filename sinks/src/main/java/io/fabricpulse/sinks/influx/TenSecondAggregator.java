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
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds fields into 10 s event-time buckets per series (measurement + tags), aligned to multiples
 * of 10 s since the epoch. A series has at most one open bucket, which closes when:
 *
 * <ul>
 *   <li>a later sample of <b>that series</b> falls in a later bucket (event time); or
 *   <li>no sample of that series arrived for {@code idleClose} of the injected ticker (processing
 *       time), so a port that went silent (port gone, node dead) does not hold its partition's
 *       offsets forever; or
 *   <li>{@link #closeAll()} (shutdown).
 * </ul>
 *
 * <p>Why not partition event time (the earlier rule): a fabric.rates partition interleaves many
 * series produced by Kafka Streams tasks that progress at different speeds (rebalance, backlog
 * catch-up, replay, a fast simulated clock), so minutes of event-time skew between series of one
 * partition are normal; closing one series' bucket because another series ran ahead dropped
 * samples. Using the wall clock for idleness is safe here: the sink is an output, not detection, so
 * when a bucket is flushed does not change any alert (detectors run on event time in the streams
 * module) and aggregates keep their event-time bucket boundaries.
 *
 * <p>A sample for a bucket that was already closed and written (only after an idle close, or when a
 * rebuild after restart meets a bucket it cannot complete) is <b>not dropped</b>: the last closed
 * bucket of every series is kept, so the bucket is re-opened, the sample folded in, and the
 * complete aggregate written again at the same series and time when it closes again. InfluxDB
 * overwrites a point with the same measurement, tags and time; the embedded QuestDB creates the
 * {@code _10s} tables with DEDUP UPSERT KEYS (see {@code EmbeddedQuestDb}) for the same effect. We
 * chose rewriting over counting because the idle close also fires in normal operation (a producer
 * task stalled for more than {@code idleClose}), and the data is right there. Only a sample older
 * than the kept state (the rate stage emits a series in time order, so this needs a series silent
 * for {@code closedRetention}, a clock jump, or a bucket only partly re-read after a restart) is
 * counted in {@link #lateSamples()} and logged at most once a minute, never silently lost and never
 * written as a partial aggregate over a complete one.
 *
 * <p>Memory per series: one open bucket plus one closed bucket; a series with no sample for {@code
 * closedRetention} is forgotten entirely.
 *
 * <p>Offsets: every open bucket holds the offset of its first record (a re-opened bucket its
 * original first record), so the sink never commits past a record whose aggregate is not written. A
 * closed bucket can still straddle the committed offset (its first records before it, later ones
 * after it, because another series' open bucket held the commit back); a restart from the commit
 * alone would rebuild it partially and overwrite the complete point. {@link #rebuildFrom} gives the
 * offset to re-read from so that every such bucket is rebuilt completely; records re-read below the
 * committed offset are added with {@code replay = true}, and a bucket made only of replayed records
 * was written before and is not written again.
 *
 * <p>A series lives in one partition (the record key is its subject), so a bucket has one
 * partition. Not thread-safe: driven by the sink's thread.
 */
final class TenSecondAggregator {

  static final long BUCKET_MS = 10_000;
  static final String SAMPLES = "samples";
  static final String MEAN_SUFFIX = "_mean";
  static final String MAX_SUFFIX = "_max";
  static final String SUM_SUFFIX = "_sum";

  private static final Logger log = LoggerFactory.getLogger(TenSecondAggregator.class);
  private static final long LATE_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final long idleCloseNanos;
  private final long closedRetentionNanos;
  private final LongSupplier ticker;

  /** Access order: the least recently sampled series first, so idle scans stop early. */
  private final LinkedHashMap<String, Series> series = new LinkedHashMap<>(1024, 0.75f, true);

  /** Per partition, first offsets of the open buckets (a multiset: offset -> count). */
  private final Map<TopicPartition, TreeMap<Long, Integer>> held = new HashMap<>();

  /**
   * Per partition, re-opened buckets that may still straddle the committed offset: they were not
   * open when that record was consumed, so no floor covers them. Rare (idle close, then more).
   */
  private final Map<TopicPartition, List<Bucket>> reopened = new HashMap<>();

  private int openBuckets;
  private long lateSamples;
  private long rewrittenBuckets;
  private long lateSinceLog;
  private long lastLateLogNanos;
  private boolean lateLogged;

  /**
   * @param idleClose processing time without a sample of a series after which its open bucket
   *     closes
   * @param closedRetention processing time without a sample after which a series' state (its last
   *     closed bucket) is forgotten; at least {@code idleClose}
   * @param ticker monotonic nanoseconds (System::nanoTime in production, a fake in tests)
   */
  TenSecondAggregator(Duration idleClose, Duration closedRetention, LongSupplier ticker) {
    if (closedRetention.compareTo(idleClose) < 0) {
      throw new IllegalArgumentException("closedRetention must be at least idleClose");
    }
    this.idleCloseNanos = idleClose.toNanos();
    this.closedRetentionNanos = closedRetention.toNanos();
    this.ticker = ticker;
  }

  /**
   * Adds one record's aggregated fields; returns the points of buckets this record closed (or the
   * rewritten bucket it completed).
   *
   * @param replay the record is re-read below the committed offset only to rebuild a bucket that
   *     straddles it (see {@link #rebuildFrom})
   */
  List<SinkPoint> add(
      String measurement,
      SortedMap<String, String> tags,
      Map<String, Object> fields,
      long timeMs,
      TopicPartition partition,
      long offset,
      boolean replay) {
    List<SinkPoint> out = new ArrayList<>();
    long now = ticker.getAsLong();
    String key = measurement + tags;
    Series s = series.get(key);
    if (s == null) {
      s = new Series(measurement, tags, partition);
      series.put(key, s);
    }
    s.lastSampleNanos = now;
    long start = Math.floorDiv(timeMs, BUCKET_MS) * BUCKET_MS;

    if (s.open != null && start < s.open.start) {
      // Older than the open bucket: the rate stage emits a series in time order, so this is rare.
      Bucket closed = s.lastClosed;
      if (closed != null && closed.start == start && closed.complete) {
        closed.add(fields, offset, replay);
        rewrittenBuckets++;
        emit(s, closed, out);
      } else {
        late(key, start, partition, offset);
      }
      return out;
    }
    if (s.open != null && start > s.open.start) {
      close(s, out);
    }
    if (s.open == null) {
      Bucket closed = s.lastClosed;
      if (closed != null && start <= closed.start) {
        if (start < closed.start || !closed.complete) {
          late(key, start, partition, offset);
          return out;
        }
        // Closed by idleness and written, now more samples: re-open; written again at close.
        s.lastClosed = null;
        s.open = closed;
        rewrittenBuckets++;
        reopened.computeIfAbsent(partition, p -> new ArrayList<>()).add(closed);
      } else {
        s.open = new Bucket(start, offset, floor(partition));
      }
      hold(partition, s.open.minOffset);
      openBuckets++;
    }
    s.open.add(fields, offset, replay);
    return out;
  }

  /**
   * Closes the open buckets of series without a sample for {@code idleClose} and forgets series
   * without one for {@code closedRetention}.
   */
  List<SinkPoint> closeIdle() {
    List<SinkPoint> out = new ArrayList<>();
    long now = ticker.getAsLong();
    Iterator<Series> it = series.values().iterator();
    while (it.hasNext()) {
      Series s = it.next();
      long silent = now - s.lastSampleNanos;
      if (silent < idleCloseNanos) {
        break; // access order: every later series was sampled more recently
      }
      if (s.open != null) {
        close(s, out);
      }
      if (silent >= closedRetentionNanos) {
        it.remove();
      }
    }
    return out;
  }

  /** Closes every open bucket (shutdown). */
  List<SinkPoint> closeAll() {
    List<SinkPoint> out = new ArrayList<>();
    for (Series s : series.values()) {
      if (s.open != null) {
        close(s, out);
      }
    }
    return out;
  }

  /**
   * Forgets the series of partitions this consumer no longer owns; their new owner rebuilds them.
   */
  void forget(Collection<TopicPartition> partitions) {
    Iterator<Series> it = series.values().iterator();
    while (it.hasNext()) {
      Series s = it.next();
      if (partitions.contains(s.partition)) {
        if (s.open != null) {
          openBuckets--;
        }
        it.remove();
      }
    }
    partitions.forEach(held::remove);
    partitions.forEach(reopened::remove);
  }

  /** The sink committed {@code offset}: re-opened buckets wholly below it no longer matter. */
  void committed(TopicPartition partition, long offset) {
    List<Bucket> buckets = reopened.get(partition);
    if (buckets != null) {
      buckets.removeIf(b -> b.maxOffset < offset);
    }
  }

  /** Lowest offset of {@code partition} still held in an open bucket. */
  OptionalLong minHeldOffset(TopicPartition partition) {
    TreeMap<Long, Integer> offsets = held.get(partition);
    return offsets == null || offsets.isEmpty()
        ? OptionalLong.empty()
        : OptionalLong.of(offsets.firstKey());
  }

  /**
   * The offset to re-read {@code partition} from after a restart that resumes at {@code commit}, so
   * that every bucket with records on both sides of {@code commit} is rebuilt completely: the
   * lowest first offset of the buckets that were open when the record at the commit point was
   * consumed (each bucket remembers that bound as its floor) or that are open now. Never above
   * {@code commit}.
   */
  long rebuildFrom(TopicPartition partition, long commit) {
    long from = commit;
    for (Series s : series.values()) {
      if (!s.partition.equals(partition)) {
        continue;
      }
      if (s.open != null) {
        from = Math.min(from, Math.min(s.open.minOffset, s.open.floor));
      }
      Bucket closed = s.lastClosed;
      if (closed != null && closed.maxOffset >= commit && closed.minOffset <= commit) {
        from = Math.min(from, Math.min(closed.minOffset, closed.floor));
      }
    }
    for (Bucket b : reopened.getOrDefault(partition, List.of())) {
      if (b.maxOffset >= commit) {
        from = Math.min(from, Math.min(b.minOffset, b.floor));
      }
    }
    return from;
  }

  int openBuckets() {
    return openBuckets;
  }

  /** Series with state (an open or a kept closed bucket). */
  int trackedSeries() {
    return series.size();
  }

  /** Samples older than the kept state of their series: counted and logged, not aggregated. */
  long lateSamples() {
    return lateSamples;
  }

  /** Buckets written again because samples arrived after they had been closed. */
  long rewrittenBuckets() {
    return rewrittenBuckets;
  }

  /** Lowest first offset among the partition's open buckets, the bound a new bucket remembers. */
  private long floor(TopicPartition partition) {
    OptionalLong min = minHeldOffset(partition);
    return min.isPresent() ? min.getAsLong() : Long.MAX_VALUE;
  }

  private void close(Series s, List<SinkPoint> out) {
    Bucket bucket = s.open;
    s.open = null;
    openBuckets--;
    release(s.partition, bucket.minOffset);
    s.lastClosed = bucket;
    emit(s, bucket, out);
  }

  private static void emit(Series s, Bucket bucket, List<SinkPoint> out) {
    // A bucket rebuilt only from replayed records was written before the restart, maybe from more
    // records than were re-read: writing it again could replace a complete point by a partial one.
    if (bucket.hasNewRecords) {
      out.add(bucket.toPoint(s.measurement, s.tags));
    } else {
      bucket.complete = false;
    }
  }

  private void hold(TopicPartition partition, long offset) {
    held.computeIfAbsent(partition, p -> new TreeMap<>()).merge(offset, 1, Integer::sum);
  }

  private void release(TopicPartition partition, long offset) {
    TreeMap<Long, Integer> offsets = held.get(partition);
    if (offsets != null) {
      offsets.computeIfPresent(offset, (o, count) -> count == 1 ? null : count - 1);
    }
  }

  private void late(String key, long bucketStart, TopicPartition partition, long offset) {
    lateSamples++;
    lateSinceLog++;
    long now = ticker.getAsLong();
    if (!lateLogged || now - lastLateLogNanos >= LATE_LOG_INTERVAL_NANOS) {
      log.warn(
          "{} sample(s) arrived for 10 s buckets already written and no longer kept; not added to"
              + " the aggregates (full-resolution fields are written). Latest: series {} bucket {}"
              + " at {}-{}@{}",
          lateSinceLog,
          key,
          bucketStart,
          partition.topic(),
          partition.partition(),
          offset);
      lateSinceLog = 0;
      lastLateLogNanos = now;
      lateLogged = true;
    }
  }

  private static final class Series {
    final String measurement;
    final SortedMap<String, String> tags;
    final TopicPartition partition;
    Bucket open;
    Bucket lastClosed;
    long lastSampleNanos;

    Series(String measurement, SortedMap<String, String> tags, TopicPartition partition) {
      this.measurement = measurement;
      this.tags = tags;
      this.partition = partition;
    }
  }

  private static final class Bucket {
    final long start;
    final long minOffset;
    final long floor;
    final Map<String, FieldStats> fields = new LinkedHashMap<>();
    long maxOffset;
    long samples;
    boolean hasNewRecords;
    boolean complete = true;

    Bucket(long start, long minOffset, long floor) {
      this.start = start;
      this.minOffset = minOffset;
      this.floor = floor;
    }

    void add(Map<String, Object> values, long offset, boolean replay) {
      samples++;
      maxOffset = Math.max(maxOffset, offset);
      hasNewRecords |= !replay;
      values.forEach(
          (name, value) -> {
            if (value instanceof Number number) {
              fields.computeIfAbsent(name, n -> new FieldStats()).add(number);
            }
          });
    }

    SinkPoint toPoint(String measurement, SortedMap<String, String> tags) {
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
