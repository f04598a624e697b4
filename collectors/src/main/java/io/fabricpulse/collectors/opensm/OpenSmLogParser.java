package io.fabricpulse.collectors.opensm;

import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.core.YearlessTimestamp;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.Month;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses OpenSM log lines into {@link SmSweep} events (source OPENSM_LOG).
 *
 * <p>Line format {@code "%s %02d %02d:%02d:%02d %06d [%04X] 0x%02x -> %s"} [OSM-log]: month, day,
 * time, microseconds, thread id, log level, message. Messages logged through {@code OSM_LOG} carry
 * the C function name first ("vl15_send_mad: ERR 3E03: ..."); those logged with {@code osm_log_v2}
 * at OSM_LOG_SYS do not ("Entering MASTER state").
 *
 * <p>Lines without that header are a normal part of an OpenSM log, not garbage: continuation lines
 * of multi-line messages (tab-indented MAD dumps), the asterisk boxes of {@code OSM_LOG_MSG_BOX},
 * and, when OpenSM runs as a daemon, the stdout copy of every OSM_LOG_SYS message ({@code
 * printf("%s\n")} into the same file, hence "Entering STANDBY state" followed by a blank line)
 * [OSM-log]. They are ignored and counted ({@link #ignoredLines()}), never reported as malformed.
 * Only a line that starts like a header but does not parse (torn write, impossible date) is
 * malformed. Header lines whose message is not an event we track produce no record.
 *
 * <p>The header has no year: it is taken from the context time (the reference time when the text
 * was read), with Dec -> Jan rollover ({@link YearlessTimestamp}). The header time is local time of
 * the SM host ({@code localtime_r}), so the caller gives the zone.
 */
public final class OpenSmLogParser {
  private static final Pattern HEADER =
      Pattern.compile(
          "^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\\d{2}) (\\d{2}):(\\d{2}):(\\d{2})"
              + " (\\d{6}) \\[([0-9A-Fa-f]+)\\] 0x([0-9A-Fa-f]{2}) -> (.*)$");
  private static final Pattern HEADER_START =
      Pattern.compile("^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|\\?\\?\\?) \\d{2} \\d");

  // [OSM-sm] osm_report_sm_state: "Entering %s state"; state strings from [OSM-helper].
  private static final Pattern STATE =
      Pattern.compile("(?:^|: )Entering (NOTACTIVE|DISCOVERING|STANDBY|MASTER) state$");
  // [OSM-state]
  private static final Pattern SUBNET_UP = Pattern.compile("(?:^|: )SUBNET UP$");
  private static final Pattern SM_PORT_DOWN = Pattern.compile("(?:^|: )SM port is down$");
  // do_sweep: "Entering heavy sweep with flags: ..." [OSM-state]
  private static final Pattern HEAVY_SWEEP = Pattern.compile("(?:^|: )Entering heavy sweep\\b");
  // [OSM-trap] "Forcing heavy sweep. Received trap:%u"; [OSM-sm] "... Received signal %s"
  private static final Pattern FORCED_BY_TRAP =
      Pattern.compile("Forcing heavy sweep\\. Received trap:(\\d+)");
  private static final Pattern FORCED_BY_SIGNAL =
      Pattern.compile("Forcing heavy sweep\\. Received signal ");
  // [OSM-pm] "PerfMgr: Counter overflow: %s (0x%PRIx64) port %d; clearing counters", the
  // PortCountersExtended variant, and the older form without the node name.
  private static final Pattern COUNTER_CLEAR =
      Pattern.compile(
          "PerfMgr: (?:Counter|PortCountersExtended) overflow: (?:(.*) \\((0x[0-9A-Fa-f]+)\\)"
              + "|(0x[0-9A-Fa-f]+)) port (\\d+); clearing counters");
  private static final Pattern ERR = Pattern.compile("\\bERR ([0-9A-Fa-f]{4}): (.*)$");
  // [OSM-pm] perfmgr_log_errors: ERR 5431..543C and 543D; the "connected to" tail only when the
  // remote port is known.
  private static final Pattern COUNTER_ERROR =
      Pattern.compile(
          "^(\\w+) : (\\d+) : node \"(.*?)\" \\(NodeGUID: (0x[0-9A-Fa-f]+)\\) : port (\\d+)"
              + "(?: connected to \"(.*?)\" \\(NodeGUID: (0x[0-9A-Fa-f]+)\\) : port (\\d+))?$");
  // [OSM-pm] ERR 540A "Detected an out of band error clear on %s (0x%PRIx64) port %u" and
  // ERR 540B "Detected an out of band data counter clear on node %s (...) port %u".
  private static final Pattern OOB_CLEAR =
      Pattern.compile(
          "Detected an out of band (?:data counter |error )?clear on (?:node )?(.*) "
              + "\\((0x[0-9A-Fa-f]+)\\) port (\\d+)");
  // MAD transport failures (our reading of the OpenSM messages): vl15 "MAD send failed" (3E03),
  // vendor "Send p_madw ... failed" (5430), "DR SMP Send completed with error" (5411), SM MAD
  // controller "MAD completed in error" (3113) and "Timeout while getting attribute" (3120), and
  // PerfMgr "Failed to send ... MAD". Codes are reused across OpenSM modules, so match the text.
  private static final Pattern MAD_ERROR_TEXT =
      Pattern.compile(
          "MAD send failed|MAD completed in error|Send completed with error"
              + "|Send p_madw .* failed|Timeout while getting attribute|Failed to send .*MAD");

  private final ZoneId zone;
  private long ignoredLines;

  /**
   * @param zone time zone of the host that wrote the log (OpenSM prints local time)
   */
  public OpenSmLogParser(ZoneId zone) {
    this.zone = zone;
  }

  /**
   * Parses a block of log text. {@code context.time()} is the reference time for the missing year;
   * each record gets the time of its own line.
   *
   * @param sourceName file name for malformed-line reports
   */
  public ParseResult<SmSweep> parse(String text, SampleContext context, String sourceName) {
    return parseLines(text.lines().toList(), 1, context, sourceName);
  }

  /**
   * Parses lines (without line terminators), numbering them from {@code firstLineNumber} in
   * malformed-line reports.
   */
  public ParseResult<SmSweep> parseLines(
      List<String> lines, long firstLineNumber, SampleContext context, String sourceName) {
    ParseResult<SmSweep> result = new ParseResult<>();
    long lineNumber = firstLineNumber;
    for (String line : lines) {
      parseLine(line, lineNumber++, context, sourceName, result);
    }
    return result;
  }

  /**
   * Whether {@code line} starts like an OpenSM log header (month, day, time), parsable or not;
   * {@code parse} uses this to tell a capture of another tool (the wrong {@code --format}) from an
   * OpenSM log without the events we track.
   */
  public static boolean isHeaderLine(String line) {
    return HEADER_START.matcher(line).find();
  }

  /** Lines without an OpenSM header seen so far (continuations, message boxes, stdout echoes). */
  public long ignoredLines() {
    return ignoredLines;
  }

  private void parseLine(
      String line,
      long lineNumber,
      SampleContext context,
      String sourceName,
      ParseResult<SmSweep> result) {
    Matcher header = HEADER.matcher(line);
    if (!header.matches()) {
      if (HEADER_START.matcher(line).find()) {
        result.skip(sourceName, lineNumber, "broken OpenSM log header");
      } else {
        ignoredLines++;
      }
      return;
    }
    Instant time;
    try {
      time = headerTime(header, context.time());
    } catch (DateTimeException e) {
      result.skip(sourceName, lineNumber, "impossible date in OpenSM log header");
      return;
    }
    String message = header.group(9);
    SmSweep.Builder record = classify(message);
    if (record == null) {
      return;
    }
    result.add(
        record
            .setCluster(context.cluster())
            .setNode(context.node())
            .setBootId(context.bootId())
            .setSeq(context.nextSeq())
            .setTime(time)
            .setSource(SmSource.OPENSM_LOG)
            .setMessage(message)
            .setRawLine(line)
            .build());
  }

  private Instant headerTime(Matcher header, Instant reference) {
    Month month = Month.valueOf(monthName(header.group(1)));
    int micros = Integer.parseInt(header.group(6));
    Instant exact =
        YearlessTimestamp.resolve(
            month,
            Integer.parseInt(header.group(2)),
            Integer.parseInt(header.group(3)),
            Integer.parseInt(header.group(4)),
            Integer.parseInt(header.group(5)),
            micros * 1000,
            zone,
            reference);
    // Avro timestamp-millis: keep what the record can carry.
    return exact.truncatedTo(ChronoUnit.MILLIS);
  }

  private static String monthName(String abbreviation) {
    for (Month month : Month.values()) {
      if (month.name().substring(0, 3).equalsIgnoreCase(abbreviation)) {
        return month.name();
      }
    }
    throw new DateTimeException("unknown month " + abbreviation);
  }

  /** The event a message stands for, or null when it is not one we publish. */
  static SmSweep.Builder classify(String message) {
    Matcher m = STATE.matcher(message);
    if (m.find()) {
      return event(SmEventKind.STATE_CHANGE).setSmState(m.group(1));
    }
    if (SUBNET_UP.matcher(message).find()) {
      return event(SmEventKind.SUBNET_UP);
    }
    if (SM_PORT_DOWN.matcher(message).find()) {
      return event(SmEventKind.SM_PORT_DOWN);
    }
    if (HEAVY_SWEEP.matcher(message).find()) {
      return event(SmEventKind.HEAVY_SWEEP);
    }
    m = FORCED_BY_TRAP.matcher(message);
    if (m.find()) {
      return event(SmEventKind.FORCED_HEAVY_SWEEP).setTrap(Integer.parseInt(m.group(1)));
    }
    if (FORCED_BY_SIGNAL.matcher(message).find()) {
      return event(SmEventKind.FORCED_HEAVY_SWEEP);
    }
    m = COUNTER_CLEAR.matcher(message);
    if (m.find()) {
      String guid = m.group(2) != null ? m.group(2) : m.group(3);
      return event(SmEventKind.PERFMGR_COUNTER_CLEAR)
          .setPortNode(m.group(1))
          .setPortGuid(guid.toLowerCase(Locale.ROOT))
          .setPortNum(Integer.parseInt(m.group(4)));
    }
    m = ERR.matcher(message);
    if (m.find()) {
      return errorEvent(m.group(1).toUpperCase(Locale.ROOT), m.group(2));
    }
    return null;
  }

  private static SmSweep.Builder errorEvent(String code, String text) {
    Matcher m = COUNTER_ERROR.matcher(text);
    if (m.matches()) {
      SmSweep.Builder record =
          event(SmEventKind.PERFMGR_COUNTER_ERROR)
              .setErrorCode(code)
              .setCounterName(m.group(1))
              .setCounterDelta(parseDelta(m.group(2)))
              .setPortNode(m.group(3))
              .setPortGuid(m.group(4).toLowerCase(Locale.ROOT))
              .setPortNum(Integer.parseInt(m.group(5)));
      if (m.group(6) != null) {
        record
            .setRemoteNode(m.group(6))
            .setRemoteGuid(m.group(7).toLowerCase(Locale.ROOT))
            .setRemotePort(Integer.parseInt(m.group(8)));
      }
      return record;
    }
    m = OOB_CLEAR.matcher(text);
    if (m.find()) {
      return event(SmEventKind.PERFMGR_OOB_CLEAR)
          .setErrorCode(code)
          .setPortNode(m.group(1))
          .setPortGuid(m.group(2).toLowerCase(Locale.ROOT))
          .setPortNum(Integer.parseInt(m.group(3)));
    }
    SmEventKind kind =
        MAD_ERROR_TEXT.matcher(text).find() ? SmEventKind.MAD_ERROR : SmEventKind.ERROR;
    return event(kind).setErrorCode(code);
  }

  /** PerfMgr prints the delta as PRIu64; a value beyond a signed long is kept as unknown. */
  private static Long parseDelta(String digits) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static SmSweep.Builder event(SmEventKind kind) {
    return SmSweep.newBuilder().setEvent(kind);
  }
}
