package io.fabricpulse.streams.rules;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations in rule files: an integer and a unit, {@code 200ms}, {@code 2s}, {@code 10m}, ... */
public final class Durations {

  private static final Pattern FORMAT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  private Durations() {}

  /** The parsed duration, or empty when {@code text} is not {@code <integer><ms|s|m|h|d>}. */
  public static Optional<Duration> parse(String text) {
    Matcher m = FORMAT.matcher(text.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    long amount = Long.parseLong(m.group(1));
    return Optional.of(
        switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          case "m" -> Duration.ofMinutes(amount);
          case "h" -> Duration.ofHours(amount);
          default -> Duration.ofDays(amount);
        });
  }

  /** The shortest rule-file spelling of {@code d}, e.g. {@code 30s}, {@code 10m}, {@code 250ms}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms != 0 && ms % 86_400_000L == 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms != 0 && ms % 3_600_000L == 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms != 0 && ms % 60_000L == 0) {
      return ms / 60_000L + "m";
    }
    if (ms % 1000L == 0) {
      return ms / 1000L + "s";
    }
    return ms + "ms";
  }
}
