package io.fabricpulse.collectors.ethtool;

import io.fabricpulse.collectors.core.ParseResult;
import java.util.HashSet;
import java.util.Set;

/**
 * Pure parser of {@code ethtool -S <netdev>} text [K-ethdoc][TG-eth].
 *
 * <p>Accepts the tool's own shape ({@code NIC statistics:} then indented {@code name: value} lines)
 * and the shapes found in captures: no header, no indentation, a {@code grep} excerpt. The name is
 * everything before the first ':' (trimmed: one mlx5 release printed {@code
 * "tx_pause_storm_warning_events "} with a trailing space [K-enstats]); the value is an unsigned
 * 64-bit decimal. Anything else is counted and skipped, never fatal.
 */
public final class EthtoolStatsParser {
  /** The first line ethtool prints before the counters. */
  public static final String HEADER = "NIC statistics:";

  /**
   * @param source file path or {@code ethtool -S <netdev>}, used in skip reports
   * @param text the complete output
   */
  public ParseResult<EthtoolStat> parse(String source, String text) {
    ParseResult<EthtoolStat> result = new ParseResult<>();
    Set<String> seen = new HashSet<>();
    String[] lines = text.split("\\R", -1);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty() || line.equals(HEADER)) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        result.skip(source, lineNumber, "no 'name: value' in: " + abbreviate(line));
        continue;
      }
      String name = line.substring(0, colon).strip();
      String digits = line.substring(colon + 1).strip();
      Long value = parseUnsigned64(digits);
      if (name.isEmpty() || value == null) {
        result.skip(source, lineNumber, "not an unsigned 64-bit counter: " + abbreviate(line));
        continue;
      }
      if (!seen.add(name)) {
        result.skip(source, lineNumber, "duplicate counter " + name + ", first value kept");
        continue;
      }
      result.add(new EthtoolStat(name, value, lineNumber));
    }
    return result;
  }

  private static Long parseUnsigned64(String digits) {
    if (digits.isEmpty() || digits.length() > 20) {
      return null;
    }
    for (int i = 0; i < digits.length(); i++) {
      char c = digits.charAt(i);
      if (c < '0' || c > '9') {
        return null;
      }
    }
    try {
      return Long.parseUnsignedLong(digits);
    } catch (NumberFormatException tooLarge) {
      return null;
    }
  }

  private static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }
}
