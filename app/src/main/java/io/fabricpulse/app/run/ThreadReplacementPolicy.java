package io.fabricpulse.app.run;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * How often a failed stream thread is replaced before the application gives up: at most {@code
 * maxReplacements} within any {@code window}. A thread that fails once (a broker that fenced its
 * producer, a bug hit by one record) gets a fresh thread, which resumes from the last commit; one
 * that keeps failing (the same record, again and again) stops the client instead of looping.
 */
public final class ThreadReplacementPolicy {

  /** The default: 3 replacements within 10 minutes. */
  public static final int DEFAULT_MAX_REPLACEMENTS = 3;

  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);

  private final int maxReplacements;
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private final ArrayDeque<Long> replacements = new ArrayDeque<>();

  public ThreadReplacementPolicy(int maxReplacements, Duration window, LongSupplier nanoTime) {
    if (maxReplacements < 0 || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("maxReplacements >= 0 and window > 0 required");
    }
    this.maxReplacements = maxReplacements;
    this.windowNanos = window.toNanos();
    this.nanoTime = nanoTime;
  }

  public static ThreadReplacementPolicy defaults() {
    return new ThreadReplacementPolicy(DEFAULT_MAX_REPLACEMENTS, DEFAULT_WINDOW, System::nanoTime);
  }

  /** True when another replacement is allowed now (and counts it), false to give up. */
  public synchronized boolean replaceAnother() {
    long now = nanoTime.getAsLong();
    while (!replacements.isEmpty() && now - replacements.peekFirst() >= windowNanos) {
      replacements.pollFirst();
    }
    if (replacements.size() >= maxReplacements) {
      return false;
    }
    replacements.addLast(now);
    return true;
  }

  /** Replacements counted in the current window. */
  public synchronized int recentReplacements() {
    return replacements.size();
  }

  public int maxReplacements() {
    return maxReplacements;
  }

  public Duration window() {
    return Duration.ofNanos(windowNanos);
  }
}
