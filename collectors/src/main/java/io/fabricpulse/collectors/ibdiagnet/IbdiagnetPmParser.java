package io.fabricpulse.collectors.ibdiagnet;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.Lines;
import io.fabricpulse.collectors.fabric.LinkEnd;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code ibdiagnet2.pm}: one {@link IbdiagnetPortCounters} per port section
 * (docs/formats.md, "ibdiagnet").
 *
 * <p>A section is a dashed line, {@code Port=2 Lid=0x00b4 GUID=0xb0cf0e0300d33fc0 Device=54002 Port
 * Name=ib-switch-sequoia/U1/P1/1/2}, a dashed line, then {@code name=value} lines with hexadecimal
 * values ({@code symbol_error_counter=0x00000000}, {@code port_xmit_data_extended=0x...}) or {@code
 * NA}. {@code #} lines are the file's header and footer; {@code # Running timestamp : 2025-03-31
 * 23:43:18 UTC +0000} dates the run.
 */
public final class IbdiagnetPmParser {
  private static final Pattern HEADER =
      Pattern.compile(
          "^Port=(?<port>\\d{1,3}) Lid=(?<lid>0x[0-9A-Fa-f]{1,4}) GUID=(?<guid>0x[0-9A-Fa-f]{1,16})"
              + " Device=(?<device>\\d{1,6}) Port Name=(?<name>.*)$");
  private static final Pattern COUNTER =
      Pattern.compile("^(?<name>[a-z][a-z0-9_]*)=(?<value>0[xX][0-9A-Fa-f]{1,16}|NA)$");
  private static final Pattern SEPARATOR = Pattern.compile("^-{10,}$");
  private static final Pattern TIMESTAMP =
      Pattern.compile("^# Running timestamp\\s*:\\s*(?<time>.*)$");

  public ParseResult<IbdiagnetPortCounters> parse(String source, String text) {
    ParseResult<IbdiagnetPortCounters> result = new ParseResult<>();
    Instant runTime = null;
    Section section = null;
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty() || SEPARATOR.matcher(line).matches()) {
        continue;
      }
      if (line.startsWith("#")) {
        Matcher timestamp = TIMESTAMP.matcher(line);
        if (timestamp.matches()) {
          runTime = runTime(timestamp, source, lineNumber, result);
        }
        continue;
      }
      Matcher header = HEADER.matcher(line);
      if (header.matches()) {
        finish(section, runTime, source, result);
        section = new Section(lineNumber, header);
        continue;
      }
      Matcher counter = COUNTER.matcher(line);
      if (!counter.matches()) {
        result.skip(source, lineNumber, "not an ibdiagnet2.pm line: " + Lines.abbreviate(line));
        continue;
      }
      if (section == null) {
        result.skip(source, lineNumber, "counter before any 'Port=... Lid=... GUID=...' header");
        continue;
      }
      String value = counter.group("value");
      if (value.equals("NA")) {
        section.unavailable.add(counter.group("name"));
      } else {
        section.counters.put(counter.group("name"), Long.parseUnsignedLong(value.substring(2), 16));
      }
    }
    finish(section, runTime, source, result);
    return result;
  }

  private static void finish(
      Section section, Instant runTime, String source, ParseResult<IbdiagnetPortCounters> result) {
    if (section == null) {
      return;
    }
    if (section.counters.isEmpty() && section.unavailable.isEmpty()) {
      result.skip(source, section.line, "port section without counters");
      return;
    }
    result.add(
        new IbdiagnetPortCounters(
            runTime,
            section.guid,
            section.lid,
            section.port,
            section.deviceId,
            section.portName,
            section.counters,
            section.unavailable,
            section.line));
  }

  private static Instant runTime(
      Matcher timestamp,
      String source,
      long lineNumber,
      ParseResult<IbdiagnetPortCounters> result) {
    Instant time = IbdiagnetTimestamp.parse(timestamp.group("time"));
    if (time == null) {
      result.skip(
          source, lineNumber, "Running timestamp is not a date: " + timestamp.group("time"));
    }
    return time;
  }

  /** The port section being read: its header's values and the counters so far. */
  private static final class Section {
    final long line;
    final String guid;
    final int lid;
    final int port;
    final int deviceId;
    final String portName;
    final Map<String, Long> counters = new LinkedHashMap<>();
    final List<String> unavailable = new ArrayList<>();

    Section(long line, Matcher header) {
      this.line = line;
      this.guid = LinkEnd.normalizeGuid(header.group("guid"));
      this.lid = Integer.parseInt(header.group("lid").substring(2), 16);
      this.port = Integer.parseInt(header.group("port"));
      this.deviceId = Integer.parseInt(header.group("device"));
      this.portName = header.group("name").strip();
    }
  }
}
