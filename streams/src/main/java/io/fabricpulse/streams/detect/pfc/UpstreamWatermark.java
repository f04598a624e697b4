package io.fabricpulse.streams.detect.pfc;

import java.time.Duration;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * How far, in event time, every port-stage task feeding one propagation task has got: the low
 * watermark over the latest time each task (source) reported, by a storm record or a {@link
 * StormPage#TICK}. Each source sends its records in time order, so no record older than the
 * watermark can still arrive from a source seen so far. The propagation stage merges several
 * sources whose progress differs by seconds of wall clock (minutes of event time at a replay's
 * pace); judging storms only up to the watermark makes the result independent of that arrival
 * order.
 *
 * <p>A source that has stopped reporting (every node of its partition gone) must not stall the
 * stage for ever: one that lags the most advanced source by more than {@link #IDLE_AFTER} of event
 * time no longer holds the watermark back (its later records, if any, are judged on arrival). State
 * in a changelogged store, key source, value its latest time.
 */
final class UpstreamWatermark {

  /** Far beyond the skew of live sources (seconds of wall clock, 20 s of event time each). */
  static final Duration IDLE_AFTER = Duration.ofMinutes(10);

  /** No source has reported yet. */
  static final long NONE = Long.MIN_VALUE;

  private final KeyValueStore<String, Long> progress;

  UpstreamWatermark(KeyValueStore<String, Long> progress) {
    this.progress = progress;
  }

  /** Source {@code source} has sent a record of time {@code time}. */
  void advance(String source, long time) {
    Long was = progress.get(source);
    if (was == null || time > was) {
      progress.put(source, time);
    }
  }

  /** The time every live source has reached, or {@link #NONE}. */
  long value() {
    long max = NONE;
    try (KeyValueIterator<String, Long> it = progress.all()) {
      while (it.hasNext()) {
        max = Math.max(max, it.next().value);
      }
    }
    if (max == NONE) {
      return NONE;
    }
    long idleBefore = max - IDLE_AFTER.toMillis();
    long min = max;
    try (KeyValueIterator<String, Long> it = progress.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> e = it.next();
        if (e.value >= idleBefore) {
          min = Math.min(min, e.value);
        }
      }
    }
    return min;
  }
}
