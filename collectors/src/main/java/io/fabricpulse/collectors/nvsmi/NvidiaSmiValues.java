package io.fabricpulse.collectors.nvsmi;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How nvidia-smi prints values. A value the driver does not report is printed as {@code [N/A]}
 * (CSV), {@code N/A} ({@code -q}) or another bracketed reason ({@code [Not Supported]}, {@code
 * [Unknown Error]}, {@code [Requested functionality has been deprecated]}); all of these are null,
 * never zero [TG-smi].
 */
final class NvidiaSmiValues {
  private static final Set<String> MISSING =
      Set.of("", "n/a", "not supported", "unknown error", "not available", "unknown");
  // A number optionally followed by a unit: "29 C", "81559 MiB", "639 bank(s)", "42".
  private static final Pattern NUMBER = Pattern.compile("^(-?\\d+)(?:\\s+\\S+)?$");

  private NvidiaSmiValues() {}

  static boolean isMissing(String value) {
    if (value == null) {
      return true;
    }
    String v = value.strip();
    return (v.startsWith("[") && v.endsWith("]")) || MISSING.contains(v.toLowerCase(Locale.ROOT));
  }

  /** The value as printed, or null when it is a "not reported" marker. */
  static String text(String value) {
    return isMissing(value) ? null : value.strip();
  }

  /** An integer count or temperature; null when missing or not a number. */
  static Long number(String value) {
    if (isMissing(value)) {
      return null;
    }
    Matcher m = NUMBER.matcher(value.strip());
    if (!m.matches()) {
      return null;
    }
    try {
      return Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static Integer integer(String value) {
    Long n = number(value);
    return n == null || n < Integer.MIN_VALUE || n > Integer.MAX_VALUE ? null : n.intValue();
  }

  /** Yes/No flags (remapped_rows.pending, retired_pages.pending); null when missing. */
  static Boolean flag(String value) {
    if (isMissing(value)) {
      return null;
    }
    switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "yes":
      case "true":
      case "1":
        return Boolean.TRUE;
      case "no":
      case "false":
      case "0":
        return Boolean.FALSE;
      default:
        return null;
    }
  }

  /** Sum of the parts that are reported; null when none is. */
  static Long sum(String... values) {
    Long total = null;
    for (String value : values) {
      Long n = number(value);
      if (n != null) {
        total = total == null ? n : total + n;
      }
    }
    return total;
  }
}
