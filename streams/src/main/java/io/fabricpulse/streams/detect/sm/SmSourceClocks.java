package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import java.util.HashMap;
import java.util.Map;

/**
 * The low watermark of one cluster's SM records: how far, in event time, every SM source of the
 * cluster has reported, and how far the detectors have already been evaluated.
 *
 * <p>A source is one host's sminfo poller or one host's OpenSM log. Their records reach the
 * cluster's task through different partitions, so they arrive out of event-time order. Detection
 * waits until every active source has reported up to a time (the minimum of their latest event
 * times), then evaluates the buffered records up to it in event-time order.
 *
 * <p>A source that has fallen {@code source_timeout} behind the most advanced one is dropped: an
 * OpenSM log is silent while the fabric is healthy, and a dead master stops logging altogether (the
 * very failover we detect), so a silent source must not hold detection back for ever. It rejoins
 * with its next record. The watermark never goes back; a record at or below it (from a source that
 * lagged more than source_timeout) is evaluated at once, in arrival order.
 *
 * @param latest per active source: the latest event time it reported
 * @param releasedTo the watermark up to which records have been evaluated; {@link #NONE} at first
 */
record SmSourceClocks(Map<String, Long> latest, long releasedTo) {

  static final long NONE = Long.MIN_VALUE;

  static final SmSourceClocks EMPTY = new SmSourceClocks(Map.of(), NONE);

  SmSourceClocks {
    latest = Map.copyOf(latest);
  }

  /** The source that reported {@code r}, e.g. {@code gpu001/sminfo} or {@code sm01/opensm}. */
  static String sourceOf(SmSweep r) {
    return r.getNode() + (r.getSource() == SmSource.SMINFO ? "/sminfo" : "/opensm");
  }

  /** Whether a record of event time {@code t} comes after detection has passed it (late). */
  boolean released(long t) {
    return releasedTo != NONE && t <= releasedTo;
  }

  /**
   * Notes that {@code source} reported event time {@code t}, and drops every source that is now
   * {@code sourceTimeoutMs} or more behind the most advanced one.
   */
  SmSourceClocks observe(String source, long t, long sourceTimeoutMs) {
    Map<String, Long> next = new HashMap<>(latest);
    next.merge(source, t, Math::max);
    long lead = next.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    next.values().removeIf(time -> lead - time >= sourceTimeoutMs);
    return new SmSourceClocks(next, releasedTo);
  }

  /** Every active source has reported up to here (never below what was already released). */
  long lowWatermark() {
    long low = latest.values().stream().mapToLong(Long::longValue).min().orElse(NONE);
    return Math.max(low, releasedTo);
  }

  SmSourceClocks releasedUpTo(long watermark) {
    return new SmSourceClocks(latest, Math.max(releasedTo, watermark));
  }
}
