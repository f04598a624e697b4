package io.fabricpulse.streams.rules;

import java.time.Duration;
import java.util.List;

/**
 * One threshold key a detector accepts: its type, default and allowed range. Values are checked by
 * {@link RuleFileParser}; the default applies when a rule omits the key.
 *
 * @param min inclusive lower bound for numbers (seconds of duration for DURATION), null = none
 * @param max inclusive upper bound, null = none
 * @param choices the allowed values of a CHOICE, null for other types
 */
public record ThresholdSpec(
    String key,
    Type type,
    Object defaultValue,
    Double min,
    Double max,
    String doc,
    List<String> choices) {

  /** Value types of thresholds. */
  public enum Type {
    /** A real number; stored as Double. */
    NUMBER,
    /** An integer; stored as Long. */
    INTEGER,
    /** A duration string ({@code 30s}); stored as {@link Duration}. */
    DURATION,
    /** A list of PFC priorities 0-7; stored as {@code List<Integer>}. */
    PRIORITY_LIST,
    /** true or false; stored as Boolean. */
    BOOLEAN,
    /** One word out of {@link #choices}; stored as String. */
    CHOICE
  }

  public ThresholdSpec(
      String key, Type type, Object defaultValue, Double min, Double max, String doc) {
    this(key, type, defaultValue, min, max, doc, null);
  }

  public ThresholdSpec {
    boolean ok =
        switch (type) {
          case NUMBER -> defaultValue instanceof Double;
          case INTEGER -> defaultValue instanceof Long;
          case DURATION -> defaultValue instanceof Duration;
          case PRIORITY_LIST -> defaultValue instanceof List<?>;
          case BOOLEAN -> defaultValue instanceof Boolean;
          case CHOICE -> choices != null && choices.contains(defaultValue);
        };
    if (!ok) {
      throw new IllegalArgumentException("default of " + key + " does not match type " + type);
    }
    choices = choices == null ? null : List.copyOf(choices);
  }

  /** The range as words for error messages, e.g. "between 0 and 1". */
  String rangeText() {
    if (min != null && max != null) {
      return "between " + plain(min) + " and " + plain(max);
    }
    if (min != null) {
      return ">= " + plain(min);
    }
    if (max != null) {
      return "<= " + plain(max);
    }
    return "any value";
  }

  static String plain(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }
}
