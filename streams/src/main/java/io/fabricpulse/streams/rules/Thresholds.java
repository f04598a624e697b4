package io.fabricpulse.streams.rules;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Validated threshold values of one rule: the schema's defaults overridden by the file. */
public final class Thresholds {

  private final Map<String, Object> values;

  public Thresholds(Map<String, Object> values) {
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** The defaults of {@code detector}, as used by a rule without a thresholds map. */
  public static Thresholds defaultsOf(Detector detector) {
    return new Thresholds(detector.thresholdSchema().defaults());
  }

  public double number(String key) {
    return ((Number) require(key)).doubleValue();
  }

  public long integer(String key) {
    return ((Number) require(key)).longValue();
  }

  public Duration duration(String key) {
    return (Duration) require(key);
  }

  @SuppressWarnings("unchecked")
  public List<Integer> priorities(String key) {
    return (List<Integer>) require(key);
  }

  public boolean flag(String key) {
    return (Boolean) require(key);
  }

  public String choice(String key) {
    return (String) require(key);
  }

  public Map<String, Object> asMap() {
    return values;
  }

  private Object require(String key) {
    Object v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("no threshold " + key);
    }
    return v;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Thresholds t && t.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
