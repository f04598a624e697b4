package io.fabricpulse.streams.alerts;

import java.time.Duration;

/**
 * When a holding condition becomes an alert: after {@code samples} holding observations in a row
 * that also span at least {@code minDuration} of event time (first to last).
 */
public record FiringPolicy(int samples, Duration minDuration) {

  public static final FiringPolicy IMMEDIATE = new FiringPolicy(1, Duration.ZERO);

  public FiringPolicy {
    if (samples < 1) {
      throw new IllegalArgumentException("samples must be >= 1");
    }
  }

  public static FiringPolicy consecutive(long samples) {
    return new FiringPolicy(Math.toIntExact(samples), Duration.ZERO);
  }

  boolean satisfied(int hits, long firstHitAt, long now) {
    return hits >= samples && now - firstHitAt >= minDuration.toMillis();
  }
}
