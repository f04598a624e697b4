package io.fabricpulse.streams.detect.link;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A sum over a sliding event-time window, kept as sparse buckets (only buckets with a non-zero sum
 * are stored), so an hour of per-second samples costs at most {@code window / bucket} entries.
 * Buckets older than the window are dropped when something is added or summed.
 */
final class RollingSum {

  private final long bucketMs;
  private final long windowMs;
  private final Deque<long[]> buckets = new ArrayDeque<>(); // {bucket start, sum}, oldest first

  RollingSum(long bucketMs, long windowMs) {
    this.bucketMs = bucketMs;
    this.windowMs = windowMs;
  }

  void add(long time, long amount) {
    if (amount <= 0) {
      return;
    }
    long start = Math.floorDiv(time, bucketMs) * bucketMs;
    long[] last = buckets.peekLast();
    if (last != null && last[0] == start) {
      last[1] += amount;
    } else if (last == null || last[0] < start) {
      buckets.addLast(new long[] {start, amount});
    } else {
      // an older sample of the port (the rate stage drops those): count it in the newest bucket
      last[1] += amount;
    }
  }

  /** The sum of the buckets that overlap (now - window, now]. */
  long sum(long now) {
    prune(now);
    long sum = 0;
    for (long[] b : buckets) {
      sum += b[1];
    }
    return sum;
  }

  void prune(long now) {
    while (!buckets.isEmpty() && buckets.peekFirst()[0] + bucketMs <= now - windowMs) {
      buckets.removeFirst();
    }
  }

  Deque<long[]> buckets() {
    return buckets;
  }
}
