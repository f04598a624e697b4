package io.fabricpulse.collectors.nccl;

import io.fabricpulse.collectors.core.YearlessTimestamp;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The timestamp a job-log line carries at its start, so a record's event time is when the line was
 * written, not when the collector read it (a replay of old logs must give the alerts of that time).
 *
 * <p>Understood, at the start of the line or after launcher labels ({@code [rank0]:}, {@code 0: },
 * {@code [default0]:}, {@code (RayWorkerWrapper pid=4009) }):
 *
 * <ul>
 *   <li>{@code [2026-02-25 16:41:56]}: NCCL's {@code NCCL_DEBUG_TIMESTAMP_FORMAT} default {@code
 *       "[%F %T] "} (local time), also with a fraction ({@code [2025-02-25 15:46:48,389]}) or text
 *       before the bracket closes ({@code [2026-02-25 16:41:56 TP3]}, sglang);
 *   <li>ISO-8601 with or without brackets: {@code 2024-05-01T12:00:00.123Z}, {@code
 *       2024-05-01T12:00:00+02:00} (absolute), {@code 2024-05-01 12:00:00} (local time);
 *   <li>{@code dmesg -T}: {@code [Tue Feb 25 16:33:59 2026]} (local time);
 *   <li>glog-style severity, month, day and time as PyTorch c10 (month not zero-padded) and
 *       torch.distributed print it: {@code [rank0]:[E321 02:07:08.408271257
 *       ProcessGroupNCCL.cpp:607]} (March 21), {@code W0516 10:49:23.951000 10143 torch/...}. These
 *       have no year: it is the latest year that does not put the line more than two days after the
 *       reference time (the file's time) [YearlessTimestamp].
 * </ul>
 *
 * Local times are read in the zone given at construction (the node's zone). A line without any of
 * these (NCCL's default prefix has no time) has no time of its own ({@link #of} returns null).
 * Times are cut to milliseconds.
 */
final class NcclLineTime {

  private static final String FRACTION = "(?:[.,](?<frac>\\d{1,9}))?";
  private static final String OFFSET = "(?<off>Z|[+-]\\d{2}:?\\d{2})?";
  private static final String DATE_TIME =
      "(?<y>\\d{4})-(?<mo>\\d{2})-(?<d>\\d{2})[ T](?<h>\\d{2}):(?<mi>\\d{2}):(?<s>\\d{2})";

  private static final Pattern BRACKETED_DATE =
      Pattern.compile("\\[" + DATE_TIME + FRACTION + OFFSET + "(?=[\\] ])");
  private static final Pattern ISO =
      Pattern.compile(DATE_TIME + FRACTION + OFFSET + "(?=$|[\\s,|])");
  private static final Pattern DMESG_T =
      Pattern.compile(
          "\\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?<mon>[A-Z][a-z]{2}) +(?<d>\\d{1,2})"
              + " (?<h>\\d{2}):(?<mi>\\d{2}):(?<s>\\d{2}) (?<y>\\d{4})\\]");
  private static final Pattern GLOG =
      Pattern.compile(
          "\\[?[IWEF](?<mo>\\d{1,2})(?<d>\\d{2}) (?<h>\\d{2}):(?<mi>\\d{2}):(?<s>\\d{2})"
              + FRACTION
              + "(?=[\\s\\]])");

  /** Launcher and logger labels that may stand in front of the timestamp. */
  private static final Pattern LABEL =
      Pattern.compile("(?:\\[[^\\]\\s]{1,40}\\]:?|\\d{1,6}:|\\([^)]{1,60}\\))\\s*");

  private static final int MAX_LABELS = 4;

  private final ZoneId zone;

  NcclLineTime(ZoneId zone) {
    this.zone = zone;
  }

  /**
   * The time the start of {@code text} carries, or null when it carries none.
   *
   * @param reference the time the text was read, for timestamps without a year
   */
  Instant of(String text, Instant reference) {
    int at = 0;
    for (int labels = 0; labels <= MAX_LABELS && at < text.length(); labels++) {
      Instant time = at(text, at, reference);
      if (time != null) {
        return time.truncatedTo(ChronoUnit.MILLIS);
      }
      Matcher label = LABEL.matcher(text).region(at, text.length());
      if (!label.lookingAt()) {
        return null;
      }
      at = label.end();
    }
    return null;
  }

  private Instant at(String text, int from, Instant reference) {
    for (Pattern p : List.of(BRACKETED_DATE, ISO, DMESG_T, GLOG)) {
      Matcher m = p.matcher(text).region(from, text.length());
      if (!m.lookingAt()) {
        continue;
      }
      try {
        return p == DMESG_T ? dmesg(m) : p == GLOG ? glog(m, reference) : dateTime(m);
      } catch (DateTimeException | IllegalArgumentException notADate) {
        return null; // digits in the right places that are no date (month 13): no timestamp
      }
    }
    return null;
  }

  private Instant dateTime(Matcher m) {
    LocalDateTime local =
        LocalDateTime.of(
            Integer.parseInt(m.group("y")),
            Integer.parseInt(m.group("mo")),
            Integer.parseInt(m.group("d")),
            Integer.parseInt(m.group("h")),
            Integer.parseInt(m.group("mi")),
            Integer.parseInt(m.group("s")),
            nanos(m.group("frac")));
    String offset = m.group("off");
    if (offset == null) {
      return local.atZone(zone).toInstant();
    }
    ZoneOffset zoneOffset =
        offset.equals("Z")
            ? ZoneOffset.UTC
            : ZoneOffset.of(
                offset.length() == 5 ? offset.substring(0, 3) + ":" + offset.substring(3) : offset);
    return OffsetDateTime.of(local, zoneOffset).toInstant();
  }

  private Instant dmesg(Matcher m) {
    Month month = month(m.group("mon"));
    return LocalDateTime.of(
            Integer.parseInt(m.group("y")),
            month,
            Integer.parseInt(m.group("d")),
            Integer.parseInt(m.group("h")),
            Integer.parseInt(m.group("mi")),
            Integer.parseInt(m.group("s")))
        .atZone(zone)
        .toInstant();
  }

  private Instant glog(Matcher m, Instant reference) {
    return YearlessTimestamp.resolve(
        Month.of(Integer.parseInt(m.group("mo"))),
        Integer.parseInt(m.group("d")),
        Integer.parseInt(m.group("h")),
        Integer.parseInt(m.group("mi")),
        Integer.parseInt(m.group("s")),
        nanos(m.group("frac")),
        zone,
        reference);
  }

  private static Month month(String abbreviation) {
    for (Month month : Month.values()) {
      if (month.name().substring(0, 3).equalsIgnoreCase(abbreviation)) {
        return month;
      }
    }
    throw new DateTimeException("unknown month " + abbreviation);
  }

  private static int nanos(String fraction) {
    return fraction == null ? 0 : Integer.parseInt((fraction + "000000000").substring(0, 9));
  }
}
