package io.fabricpulse.streams.rates;

import java.util.Map;

/**
 * What the rate stage remembers per subject: the last accepted sample.
 *
 * @param timeMs event time (record timestamp) of the sample
 * @param values raw value per counter name; counters that had no value are absent
 */
public record LastSample(long timeMs, String bootId, long seq, Map<String, Long> values) {

  public LastSample {
    values = Map.copyOf(values);
  }

  /** The previous reading of one counter, or null if the sample did not have it. */
  public CounterReading reading(String counter) {
    Long value = values.get(counter);
    return value == null ? null : new CounterReading(value, timeMs, bootId);
  }
}
