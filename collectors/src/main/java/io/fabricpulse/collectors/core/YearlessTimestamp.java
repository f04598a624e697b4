package io.fabricpulse.collectors.core;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.Year;
import java.time.ZoneId;

/**
 * Resolves a syslog-style timestamp that has no year ("Mar 10 06:06:02") against a reference time
 * given by the caller (the time the text was read). The OpenSM log prints month and day only
 * [OSM-log], so a line from Dec 31 read on Jan 2 belongs to the previous year.
 */
public final class YearlessTimestamp {
  /** A line may be this far ahead of the reference (clock skew) before we call it last year's. */
  static final Duration FUTURE_TOLERANCE = Duration.ofDays(2);

  private YearlessTimestamp() {}

  /**
   * The latest instant with this month, day and time of day that is not after {@code reference}
   * plus {@link #FUTURE_TOLERANCE}; Feb 29 goes back to the last leap year.
   */
  public static Instant resolve(
      Month month,
      int day,
      int hour,
      int minute,
      int second,
      int nanos,
      ZoneId zone,
      Instant reference) {
    Instant latestAllowed = reference.plus(FUTURE_TOLERANCE);
    int referenceYear = reference.atZone(zone).getYear();
    for (int year = referenceYear + 1; year > referenceYear - 8; year--) {
      if (month == Month.FEBRUARY && day == 29 && !Year.isLeap(year)) {
        continue;
      }
      Instant candidate =
          LocalDateTime.of(year, month, day, hour, minute, second, nanos).atZone(zone).toInstant();
      if (!candidate.isAfter(latestAllowed)) {
        return candidate;
      }
    }
    throw new IllegalArgumentException("no year fits " + month + " " + day);
  }
}
