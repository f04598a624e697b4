package io.fabricpulse.streams.rules;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The threshold keys one detector accepts, in documentation order. Built with {@link #builder}. */
public final class ThresholdSchema {

  private final Map<String, ThresholdSpec> specs;

  private ThresholdSchema(Map<String, ThresholdSpec> specs) {
    this.specs = Collections.unmodifiableMap(new LinkedHashMap<>(specs));
  }

  public static Builder builder() {
    return new Builder();
  }

  public static ThresholdSchema empty() {
    return new ThresholdSchema(Map.of());
  }

  public Optional<ThresholdSpec> spec(String key) {
    return Optional.ofNullable(specs.get(key));
  }

  public Map<String, ThresholdSpec> specs() {
    return specs;
  }

  /** The values every rule of this detector starts from. */
  public Map<String, Object> defaults() {
    Map<String, Object> values = new LinkedHashMap<>();
    specs.forEach((k, s) -> values.put(k, s.defaultValue()));
    return values;
  }

  /** Declarative construction: one line per key. */
  public static final class Builder {
    private final Map<String, ThresholdSpec> specs = new LinkedHashMap<>();

    /** A ratio in [0, 1]. */
    public Builder ratio(String key, double def, String doc) {
      return add(new ThresholdSpec(key, ThresholdSpec.Type.NUMBER, def, 0.0, 1.0, doc));
    }

    public Builder number(String key, double def, Double min, Double max, String doc) {
      return add(new ThresholdSpec(key, ThresholdSpec.Type.NUMBER, def, min, max, doc));
    }

    public Builder integer(String key, long def, long min, long max, String doc) {
      return add(
          new ThresholdSpec(key, ThresholdSpec.Type.INTEGER, def, (double) min, (double) max, doc));
    }

    /** A duration with a lower bound (inclusive). */
    public Builder duration(String key, String def, Duration min, String doc) {
      Duration d =
          Durations.parse(def).orElseThrow(() -> new IllegalArgumentException("bad " + def));
      return add(
          new ThresholdSpec(
              key, ThresholdSpec.Type.DURATION, d, min.toMillis() / 1000.0, null, doc));
    }

    public Builder priorities(String key, List<Integer> def, String doc) {
      return add(
          new ThresholdSpec(
              key, ThresholdSpec.Type.PRIORITY_LIST, List.copyOf(def), 0.0, 7.0, doc));
    }

    public Builder flag(String key, boolean def, String doc) {
      return add(new ThresholdSpec(key, ThresholdSpec.Type.BOOLEAN, def, null, null, doc));
    }

    /** One of {@code choices} (case-sensitive words). */
    public Builder choice(String key, String def, List<String> choices, String doc) {
      return add(new ThresholdSpec(key, ThresholdSpec.Type.CHOICE, def, null, null, doc, choices));
    }

    private Builder add(ThresholdSpec spec) {
      if (specs.putIfAbsent(spec.key(), spec) != null) {
        throw new IllegalArgumentException("duplicate threshold key " + spec.key());
      }
      return this;
    }

    public ThresholdSchema build() {
      return new ThresholdSchema(specs);
    }
  }
}
