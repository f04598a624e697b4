package io.fabricpulse.streams.order;

import java.time.Duration;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * How far, in event time, every upstream task feeding one downstream task through a repartition
 * topic has got: the low watermark over the latest time each task (source) reported, by a record or
 * a progress tick. Each source sends its records in time order, so no record older than the
 * watermark can still arrive from a source seen so far. A stage that merges several sources whose
 * progress differs by seconds of wall clock (minutes of event time at a replay's pace) and judges
 * only up to the watermark gives a result independent of that arrival order. Used by the pause
 * propagation stage (sources: the PFC port-stage tasks) and the NCCL job stage (sources: the NCCL
 * host tasks).
 *
 * <p>The stage knows how many sources there are ({@link #expectedSources}, the upstream stage's
 * task count, see {@link io.fabricpulse.streams.StreamsSettings#tasksOf}): until every one has
 * reported there is no watermark at all, so a task that starts late (a start-up rebalance) cannot
 * have its records judged after another task's later ones.
 *
 * <p>A source that has stopped reporting (every node of its partition gone), or never reported (a
 * partition without nodes), must not stall the stage for ever: one that lags the most advanced
 * source by more than {@link #IDLE_AFTER} of event time no longer holds the watermark back (its
 * later records, if any, are judged on arrival); one never heard of counts as idle once the most
 * advanced source is {@link #IDLE_AFTER} past the first time any source reported. State in a
 * changelogged store, key source, value its latest time; the first time heard is kept under the key
 * {@link #FIRST_HEARD} (no source has an empty name).
 */
public final class UpstreamWatermark {

  /** Far beyond the skew of live sources (seconds of wall clock, 20 s of event time each). */
  public static final Duration IDLE_AFTER = Duration.ofMinutes(10);

  /** No source has reported yet, or not every expected one. */
  public static final long NONE = Long.MIN_VALUE;

  static final String FIRST_HEARD = "";

  private final KeyValueStore<String, Long> progress;
  private final int expectedSources;

  public UpstreamWatermark(KeyValueStore<String, Long> progress, int expectedSources) {
    this.progress = progress;
    this.expectedSources = expectedSources;
  }

  /** Source {@code source} has sent a record of time {@code time}. */
  public void advance(String source, long time) {
    Long was = progress.get(source);
    if (was == null || time > was) {
      progress.put(source, time);
    }
    Long first = progress.get(FIRST_HEARD);
    if (first == null || time < first) {
      progress.put(FIRST_HEARD, time);
    }
  }

  /** The time every live source has reached, or {@link #NONE}. */
  public long value() {
    long max = NONE;
    int heard = 0;
    Long first = null;
    try (KeyValueIterator<String, Long> it = progress.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> e = it.next();
        if (e.key.equals(FIRST_HEARD)) {
          first = e.value;
        } else {
          max = Math.max(max, e.value);
          heard++;
        }
      }
    }
    if (max == NONE) {
      return NONE;
    }
    long idleBefore = max - IDLE_AFTER.toMillis();
    if (heard < expectedSources && first != null && first >= idleBefore) {
      return NONE; // a source not heard of yet may still send records older than any seen
    }
    long min = max;
    try (KeyValueIterator<String, Long> it = progress.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> e = it.next();
        if (!e.key.equals(FIRST_HEARD) && e.value >= idleBefore) {
          min = Math.min(min, e.value);
        }
      }
    }
    return min;
  }
}
