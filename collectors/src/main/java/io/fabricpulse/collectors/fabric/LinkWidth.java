package io.fabricpulse.collectors.fabric;

import java.util.Locale;
import java.util.Set;

/** Link widths (lanes) as the tools print them: {@code 1x}, {@code 4X}, {@code 12x} ... */
public final class LinkWidth {
  private static final Set<Integer> LANES = Set.of(1, 2, 4, 8, 12);

  private LinkWidth() {}

  /** The lane count of {@code 4x} or {@code 4X}; null when the text is no IB width. */
  public static Integer lanes(String text) {
    String lower = text.toLowerCase(Locale.ROOT);
    if (!lower.endsWith("x") || lower.length() < 2) {
      return null;
    }
    String digits = lower.substring(0, lower.length() - 1);
    if (digits.length() > 2 || !digits.chars().allMatch(Character::isDigit)) {
      return null;
    }
    int lanes = Integer.parseInt(digits);
    return LANES.contains(lanes) ? lanes : null;
  }
}
