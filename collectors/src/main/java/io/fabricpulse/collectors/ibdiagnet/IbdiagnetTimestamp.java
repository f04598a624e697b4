package io.fabricpulse.collectors.ibdiagnet;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ibdiagnet's run time, {@code 2025-03-31 23:43:18 UTC +0000}: local date and time, a zone name
 * (ignored) and the UTC offset, which is what makes it an instant.
 */
final class IbdiagnetTimestamp {
  private static final Pattern TIME =
      Pattern.compile(
          "^(?<date>\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d)\\s+\\S+\\s+(?<offset>[+-]\\d{4})$");
  private static final DateTimeFormatter LOCAL_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ssxx");

  private IbdiagnetTimestamp() {}

  /** The instant of {@code text}, or null when it is not such a timestamp. */
  static Instant parse(String text) {
    Matcher time = TIME.matcher(text.strip());
    if (!time.matches()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time.group("date") + time.group("offset"), LOCAL_TIME)
          .toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
