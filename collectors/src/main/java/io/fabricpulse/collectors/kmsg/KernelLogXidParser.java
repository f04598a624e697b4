package io.fabricpulse.collectors.kmsg;

import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.XidKind;
import io.fabricpulse.collectors.core.Numbers;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.core.YearlessTimestamp;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds NVIDIA Xid events and "GPU has fallen off the bus" messages in kernel log text and turns
 * each into a {@link GpuXid} event (an event, not a gauge: repeats are separate records
 * [DCGMX-190]).
 *
 * <p>Accepted line shapes, each optional: {@code /dev/kmsg} records ({@code "6,1234,5678901,-;NVRM:
 * ..."}, the third field is microseconds since boot), {@code dmesg} ({@code "[12345.678901] NVRM:
 * ..."}, seconds since boot), {@code dmesg -T} ({@code "[Tue Jan 2 03:04:05 2024] NVRM: ..."},
 * local time), {@code journalctl -k} short ({@code "Jan 02 03:04:05 host kernel: NVRM: ..."}) and
 * short-iso. Monotonic stamps become wall time only when the boot time is known; otherwise, and for
 * lines without a stamp, the record gets the context time (read time).
 *
 * <p>Xid regex after [GPUD-xid] {@code NVRM: Xid \(((?:PCI:)?[0-9a-fA-F:]+)\).*?: (\d+),}, widened
 * to accept a function suffix in the address ("0000:b3:00.0") and a code at end of line. The PCI
 * address is kept as printed, with its "PCI:" tag. "Fallen off the bus" without an Xid comes as
 * {@code "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."} or as the three-line {@code "NVRM:
 * The NVIDIA GPU 0000:b3:00.0 / (PCI ID: 10de:26b5) installed in this system has / fallen off the
 * bus and is not responding to commands."} (NVSentinel gpufallen handler tests); the address of the
 * latter comes from its first line. A line that has both an Xid and the phrase is an Xid.
 */
public final class KernelLogXidParser {
  private static final Pattern KMSG = Pattern.compile("^(\\d+),(\\d+),(\\d+),[^;]*;(.*)$");
  private static final Pattern DMESG = Pattern.compile("^\\[\\s*(\\d+)\\.(\\d{1,9})\\]\\s?(.*)$");
  private static final Pattern DMESG_T =
      Pattern.compile(
          "^\\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) +(\\d{1,2})"
              + " (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})\\]\\s?(.*)$");
  private static final Pattern JOURNAL_SHORT =
      Pattern.compile(
          "^([A-Z][a-z]{2}) +(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) \\S+ kernel: (?:\\[[^\\]]*\\] )?(.*)$");
  private static final Pattern JOURNAL_ISO =
      Pattern.compile("^(\\d{4}-\\d{2}-\\d{2}T\\S+) \\S+ kernel: (?:\\[[^\\]]*\\] )?(.*)$");

  private static final Pattern XID =
      Pattern.compile("NVRM: Xid \\(((?:PCI:)?[0-9a-fA-F:.]+)\\).*?: (\\d+)(?:,\\s*(.*)|\\s*)$");
  private static final Pattern PID = Pattern.compile("(?:^|,\\s*)pid=(\\d+)");
  private static final Pattern NAME = Pattern.compile("(?:^|,\\s*)name=([^,]*)");
  private static final Pattern FALLEN = Pattern.compile("fallen off the bus");
  private static final Pattern GPU_ADDRESS =
      Pattern.compile(
          "GPU (?:at )?(?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\\.[0-9a-fA-F])?)");
  private static final Pattern THE_NVIDIA_GPU =
      Pattern.compile(
          "NVRM: The NVIDIA GPU ([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\\.[0-9a-fA-F])?)");
  private static final DateTimeFormatter ISO_OFFSET =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss[.SSSSSS][.SSS]XX", Locale.ROOT);

  private final ZoneId zone;
  private final Instant bootTime;

  /**
   * @param zone zone of the node's local time (dmesg -T, journal short format)
   * @param bootTime wall time at boot (now minus /proc/uptime), or null when unknown
   */
  public KernelLogXidParser(ZoneId zone, Instant bootTime) {
    this.zone = zone;
    this.bootTime = bootTime;
  }

  /**
   * Whether {@code line} has the shape of a kernel log line: one of the stamps above, a journal
   * {@code kernel:} tag, or an NVRM message. Unstamped {@code dmesg -t} lines are kernel log too,
   * but nothing tells them apart from any other text; {@code parse} uses this to tell a capture of
   * another tool (the wrong {@code --format}) from a kernel log without Xid events.
   */
  public static boolean isKernelLogLine(String line) {
    return KMSG.matcher(line).matches()
        || DMESG.matcher(line).matches()
        || DMESG_T.matcher(line).matches()
        || JOURNAL_SHORT.matcher(line).matches()
        || JOURNAL_ISO.matcher(line).matches()
        || line.contains(" kernel: ")
        || line.contains("NVRM");
  }

  public ParseResult<GpuXid> parse(String text, SampleContext context, String source) {
    return parseLines(text.lines().toList(), 1, context, source);
  }

  public ParseResult<GpuXid> parseLines(
      List<String> lines, long firstLineNumber, SampleContext context, String source) {
    ParseResult<GpuXid> result = new ParseResult<>();
    String pendingFallenAddress = null;
    long lineNumber = firstLineNumber;
    for (String line : lines) {
      long number = lineNumber++;
      if (!line.contains("NVRM")) {
        continue;
      }
      Stamped stamped;
      try {
        stamped = stamp(line, context.time());
      } catch (DateTimeException | NumberFormatException | ArithmeticException e) {
        // A torn or corrupt prefix: a field beyond its range, a date that does not exist.
        result.skip(source, number, "unreadable kernel log timestamp");
        continue;
      }
      String message = stamped.message();
      Matcher xid = XID.matcher(message);
      if (xid.find()) {
        pendingFallenAddress = null;
        Integer code = Numbers.intIn(xid.group(2), 0, Integer.MAX_VALUE);
        if (code == null) {
          result.skip(source, number, "Xid number out of range: " + xid.group(2));
        } else {
          result.add(xidRecord(xid, code, line, stamped.time(), context));
        }
        continue;
      }
      Matcher theGpu = THE_NVIDIA_GPU.matcher(message);
      if (theGpu.find()) {
        pendingFallenAddress = theGpu.group(1);
      }
      if (FALLEN.matcher(message).find()) {
        Matcher address = GPU_ADDRESS.matcher(message);
        String pci = address.find() ? address.group(1) : pendingFallenAddress;
        pendingFallenAddress = null;
        result.add(fallenRecord(pci, nvrmText(message), line, stamped.time(), context));
      }
    }
    return result;
  }

  private static GpuXid xidRecord(
      Matcher xid, int code, String line, Instant time, SampleContext context) {
    String rest = xid.group(3) != null ? xid.group(3).strip() : "";
    Matcher pid = PID.matcher(rest);
    Matcher name = NAME.matcher(rest);
    String processName = name.find() ? name.group(1).strip() : null;
    if (processName != null && (processName.isEmpty() || processName.equals("<unknown>"))) {
      processName = null;
    }
    return base(context, time)
        .setKind(XidKind.XID)
        .setPciBusId(xid.group(1))
        .setXid(code)
        // A pid beyond an int is corrupt text; the Xid itself still counts.
        .setPid(pid.find() ? Numbers.intIn(pid.group(1), 0, Integer.MAX_VALUE) : null)
        .setProcessName(processName)
        .setMessage(rest)
        .setRawLine(line)
        .build();
  }

  private static GpuXid fallenRecord(
      String pci, String message, String line, Instant time, SampleContext context) {
    return base(context, time)
        .setKind(XidKind.FALLEN_OFF_BUS)
        .setPciBusId(pci)
        .setMessage(message)
        .setRawLine(line)
        .build();
  }

  private static GpuXid.Builder base(SampleContext context, Instant time) {
    return GpuXid.newBuilder()
        .setCluster(context.cluster())
        .setNode(context.node())
        .setBootId(context.bootId())
        .setSeq(context.nextSeq())
        .setTime(time);
  }

  private static String nvrmText(String message) {
    int at = message.indexOf("NVRM: ");
    return (at < 0 ? message : message.substring(at + "NVRM: ".length())).strip();
  }

  private record Stamped(Instant time, String message) {}

  private Stamped stamp(String line, Instant readTime) {
    Matcher m = KMSG.matcher(line);
    if (m.matches()) {
      long micros = Long.parseLong(m.group(3));
      return new Stamped(sinceBoot(Duration.of(micros, ChronoUnit.MICROS), readTime), m.group(4));
    }
    m = DMESG.matcher(line);
    if (m.matches()) {
      String fraction = (m.group(2) + "000000000").substring(0, 9);
      Duration uptime =
          Duration.ofSeconds(Long.parseLong(m.group(1))).plusNanos(Long.parseLong(fraction));
      return new Stamped(sinceBoot(uptime, readTime), m.group(3));
    }
    m = DMESG_T.matcher(line);
    if (m.matches()) {
      LocalDateTime local =
          LocalDateTime.of(
              Integer.parseInt(m.group(6)),
              month(m.group(1)),
              Integer.parseInt(m.group(2)),
              Integer.parseInt(m.group(3)),
              Integer.parseInt(m.group(4)),
              Integer.parseInt(m.group(5)));
      return new Stamped(local.atZone(zone).toInstant(), m.group(7));
    }
    m = JOURNAL_SHORT.matcher(line);
    if (m.matches()) {
      Instant time =
          YearlessTimestamp.resolve(
              month(m.group(1)),
              Integer.parseInt(m.group(2)),
              Integer.parseInt(m.group(3)),
              Integer.parseInt(m.group(4)),
              Integer.parseInt(m.group(5)),
              0,
              zone,
              readTime);
      return new Stamped(time, m.group(6));
    }
    m = JOURNAL_ISO.matcher(line);
    if (m.matches()) {
      return new Stamped(OffsetDateTime.parse(m.group(1), ISO_OFFSET).toInstant(), m.group(2));
    }
    return new Stamped(readTime, line);
  }

  private Instant sinceBoot(Duration uptime, Instant readTime) {
    if (bootTime == null) {
      return readTime;
    }
    return bootTime.plus(uptime).truncatedTo(ChronoUnit.MILLIS);
  }

  private static Month month(String abbreviation) {
    for (Month month : Month.values()) {
      if (month.name().substring(0, 3).equalsIgnoreCase(abbreviation)) {
        return month;
      }
    }
    throw new DateTimeException("unknown month " + abbreviation);
  }
}
