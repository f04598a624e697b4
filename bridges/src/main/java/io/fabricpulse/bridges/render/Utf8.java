package io.fabricpulse.bridges.render;

import java.nio.charset.StandardCharsets;

/**
 * Lengths in UTF-8 bytes, which is how both robots count their limits (a Chinese character is 3
 * bytes, most emoji 4), and truncation that never cuts a character in half.
 */
public final class Utf8 {
  /** What a truncated line ends with. */
  public static final String ELLIPSIS = "…";

  private Utf8() {}

  public static int length(String s) {
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /**
   * The longest prefix of {@code s} (whole code points) that, with {@link #ELLIPSIS} appended when
   * anything was cut, is at most {@code maxBytes} long; {@code s} itself when it fits.
   */
  public static String truncate(String s, int maxBytes) {
    if (length(s) <= maxBytes) {
      return s;
    }
    int budget = maxBytes - length(ELLIPSIS);
    StringBuilder out = new StringBuilder();
    int used = 0;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      if (used + n > budget) {
        break;
      }
      out.appendCodePoint(cp);
      used += n;
      i += Character.charCount(cp);
    }
    return budget < 0 ? "" : out + ELLIPSIS;
  }
}
