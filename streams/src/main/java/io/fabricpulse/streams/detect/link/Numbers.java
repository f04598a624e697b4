package io.fabricpulse.streams.detect.link;

import java.util.Locale;

/** Number text for summaries and evidence: whole numbers without decimals. */
final class Numbers {

  private Numbers() {}

  static String format(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
