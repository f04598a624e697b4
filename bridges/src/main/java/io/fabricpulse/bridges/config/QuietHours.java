package io.fabricpulse.bridges.config;

import java.time.LocalTime;
import java.time.ZonedDateTime;

/**
 * A daily time-of-day span (in the bridge's zone) in which only CRITICAL alerts are posted; the
 * others are held and posted when it ends. {@code from} after {@code to} spans midnight.
 */
public record QuietHours(LocalTime from, LocalTime to) {

  public boolean isQuiet(ZonedDateTime at) {
    LocalTime t = at.toLocalTime();
    if (from.equals(to)) {
      return false;
    }
    return from.isBefore(to)
        ? !t.isBefore(from) && t.isBefore(to)
        : !t.isBefore(from) || t.isBefore(to);
  }
}
