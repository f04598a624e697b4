package io.fabricpulse.collectors.core;

/**
 * Decimal numbers read from tool output, bounded: the text may be torn or corrupt, and a number no
 * field can hold (a port beyond 255, an Xid beyond 2^31) makes its line malformed, never an
 * exception that stops the parse.
 */
public final class Numbers {
  private Numbers() {}

  /** {@code digits} (an optional '-', then ASCII digits) as an int within [min, max], else null. */
  public static Integer intIn(String digits, int min, int max) {
    Long value = longOrNull(digits);
    return value == null || value < min || value > max ? null : value.intValue();
  }

  /** {@code digits} (an optional '-', then ASCII digits) as a long, null when it does not fit. */
  public static Long longOrNull(String digits) {
    if (digits == null || digits.isEmpty() || digits.length() > 20) {
      return null;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
