package io.fabricpulse.streams.order;

import java.util.Map;
import java.util.TreeMap;

/**
 * How far, in event time, every source of one node has reported to fabric.rates, and how far the
 * node's records have been released in event-time order.
 *
 * <p>A source is one raw record type of the node ({@code PORT} from sysfs, {@code PFC} and {@code
 * ECN} from ethtool, {@code PERFQUERY}): each is one collector task, so its records arrive in time
 * order, but the rate task interleaves its three input topics as their fetches arrive, and a
 * collector's tasks drift apart under load. The node's records are therefore released only up to
 * the low watermark: the earliest of its sources' latest times.
 *
 * <p>A source that falls {@link #timeoutMs} behind the node's most advanced source is dropped
 * (ethtool failing on a node must not hold its sysfs records back for ever); it rejoins with its
 * next record. The timeout is {@link #MIN_TIMEOUT_MS} or three of the source's sampling intervals,
 * whichever is longer. The watermark never goes back; a record at or below it is late and is
 * released on arrival.
 *
 * <p>Why five minutes: how far one source trails another in fabric.rates depends on the machine's
 * load (fetches, task scheduling), not on the data, so a timeout that load can exceed makes the
 * alerts depend on the load. At 30 s, a loaded 2-core machine running the demo at 20x (30 s of
 * event time is 1.5 s of wall time) dropped gpu012's ethtool source during a LOSSLESS_DROP; its
 * drop samples then came late, after clean sysfs samples had resolved the alert, and paged again.
 * Five minutes of event time is 15 s of wall time at 20x and far beyond any fetch skew at 1x; the
 * cost is that a node whose ethtool (or sysfs) collection dies has its other sources' records held
 * for five minutes once, before they flow without it.
 *
 * @param sources per active source: its latest time and sampling interval
 * @param releasedTo the watermark up to which records have been released; {@link #NONE} at first
 */
record NodeSourceClocks(Map<String, Source> sources, long releasedTo) {

  static final long NONE = Long.MIN_VALUE;

  /** The shortest time a source may trail the node's lead before it is dropped. */
  static final long MIN_TIMEOUT_MS = 5 * 60_000;

  static final NodeSourceClocks EMPTY = new NodeSourceClocks(Map.of(), NONE);

  /**
   * @param latest the latest event time the source reported
   * @param intervalMs its sampling interval, 0 while unknown
   */
  record Source(long latest, long intervalMs) {}

  NodeSourceClocks {
    sources = Map.copyOf(sources);
  }

  static long timeoutMs(long intervalMs) {
    return Math.max(MIN_TIMEOUT_MS, 3 * intervalMs);
  }

  /** Whether a record of event time {@code t} comes after its node's release passed it (late). */
  boolean released(long t) {
    return releasedTo != NONE && t <= releasedTo;
  }

  /**
   * Notes that {@code source} reported event time {@code t} (sampling every {@code intervalMs}, 0
   * if unknown), and drops every source that now trails the most advanced one by its timeout.
   */
  NodeSourceClocks observe(String source, long t, long intervalMs) {
    Map<String, Source> next = new TreeMap<>(sources);
    Source was = next.get(source);
    long latest = was == null ? t : Math.max(was.latest(), t);
    long interval = intervalMs > 0 ? intervalMs : was == null ? 0 : was.intervalMs();
    next.put(source, new Source(latest, interval));
    long lead = next.values().stream().mapToLong(Source::latest).max().orElseThrow();
    next.values().removeIf(s -> lead - s.latest() >= timeoutMs(s.intervalMs()));
    return new NodeSourceClocks(next, releasedTo);
  }

  /** Every active source has reported up to here (never below what was already released). */
  long lowWatermark() {
    long low = sources.values().stream().mapToLong(Source::latest).min().orElse(NONE);
    return Math.max(low, releasedTo);
  }

  NodeSourceClocks releasedUpTo(long watermark) {
    return new NodeSourceClocks(sources, Math.max(releasedTo, watermark));
  }
}
