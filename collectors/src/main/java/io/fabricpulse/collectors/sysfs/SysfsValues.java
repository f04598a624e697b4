package io.fabricpulse.collectors.sysfs;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Pure parsers of the small text files under {@code /sys/class/infiniband/<dev>/ports/<n>/}. */
public final class SysfsValues {

  /** The text a device without a Performance Management Agent returns for counters [K-sysfs]. */
  public static final String NO_PMA = "N/A (no PMA)";

  // "400 Gb/sec (4X NDR)", "10 Gb/sec (4X)", "2.5 Gb/sec (1X SDR)" [procfs][K-sysfs]
  private static final Pattern RATE =
      Pattern.compile("^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*Gb/sec\\s*(?:\\((\\d+X)\\b[^)]*\\))?");

  private SysfsValues() {}

  /** Speed and width parsed from a {@code rate} file; either may be null. */
  public record LinkRate(Double gbps, String width) {}

  /** {@code "400 Gb/sec (4X NDR)"} gives 400.0 and "4X"; text that is not a rate gives nulls. */
  public static LinkRate parseRate(String text) {
    if (text == null) {
      return new LinkRate(null, null);
    }
    Matcher m = RATE.matcher(text);
    if (!m.find()) {
      return new LinkRate(null, null);
    }
    return new LinkRate(Double.parseDouble(m.group(1)), m.group(2));
  }

  /**
   * The name part of a {@code state} or {@code phys_state} file: {@code "4: ACTIVE"} gives ACTIVE,
   * {@code "5: LinkUp"} gives LinkUp; text without the numeric prefix is returned trimmed.
   */
  public static String stateName(String text) {
    if (text == null) {
      return null;
    }
    String trimmed = text.strip();
    int colon = trimmed.indexOf(':');
    if (colon > 0 && isDigits(trimmed.substring(0, colon).strip())) {
      trimmed = trimmed.substring(colon + 1).strip();
    }
    return trimmed.isEmpty() ? null : trimmed;
  }

  /**
   * True for one or more ASCII digits. A loop, not a regular expression: the agent checks every
   * counter file of every port each cycle.
   */
  static boolean isDigits(String text) {
    if (text.isEmpty()) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** A counter file's value: unsigned decimal (up to 2^64-1, stored two's-complement) or null. */
  public static Long parseUnsigned(String text) {
    String trimmed = text.strip();
    if (!isDigits(trimmed)) {
      return null;
    }
    try {
      return Long.parseUnsignedLong(trimmed);
    } catch (NumberFormatException e) {
      return null; // more than 64 bits
    }
  }

  /**
   * The first non-blank line, trimmed, or null (port 2 of the mlx4 sample ends in a blank line).
   */
  public static String firstLine(String text) {
    if (text == null) {
      return null;
    }
    for (String line : text.split("\n")) {
      if (!line.isBlank()) {
        return line.strip();
      }
    }
    return null;
  }
}
