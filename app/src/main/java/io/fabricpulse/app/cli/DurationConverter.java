package io.fabricpulse.app.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Reads durations the way operators write them: {@code 500ms}, {@code 60s}, {@code 10m}, {@code
 * 2h}, or ISO-8601.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    String text = value.trim().toLowerCase(java.util.Locale.ROOT);
    Matcher m = SIMPLE.matcher(text);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(value.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (java.time.format.DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration (examples: 500ms, 60s, 10m, 2h)");
    }
  }
}
