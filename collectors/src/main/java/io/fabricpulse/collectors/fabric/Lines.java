package io.fabricpulse.collectors.fabric;

/** Small helpers the fabric tools' parsers share. */
public final class Lines {
  private Lines() {}

  /** The lines of {@code text} (any line break), the last one kept even if empty. */
  public static String[] of(String text) {
    return text.split("\\R", -1);
  }

  /** {@code line} cut to 80 characters for a malformed-line reason. */
  public static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }
}
