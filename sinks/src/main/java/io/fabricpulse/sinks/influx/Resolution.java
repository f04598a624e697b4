package io.fabricpulse.sinks.influx;

/** How a field reaches the time-series store. */
public enum Resolution {
  /** Every sample is written at its own event time. */
  FULL,
  /**
   * Samples are folded into event-time buckets of 10 s, written to {@code <measurement>_10s} as
   * {@code <field>_mean} and {@code <field>_max} ({@code <field>_sum} for {@code *_delta} fields).
   */
  AGG_10S
}
