package io.fabricpulse.collectors.perfquery;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.Numbers;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code perfquery} output, one {@link PortCounters} per port section [PQ][TREY-pq].
 *
 * <p>A section starts with the header perfquery prints, {@code # Port extended counters: Lid 1719
 * port 1 (CapMask: 0x5300 CapMask2: 0x0000002)} for {@code -x} or {@code # Port counters: Lid 12
 * port 1 (CapMask: 0x1600)} without it, followed by {@code Name:.....value} lines (rule {@code
 * ^(\w+):\.+(\S+)$} [TREY-pq]). Values stay raw: {@code PortXmitData} is octets/4 and the rate
 * stage multiplies it. The selectors {@code PortSelect}, {@code CounterSelect} and {@code
 * CounterSelect2} are not counters; PortSelect gives the port (255 for perfquery's {@code -a}
 * aggregate).
 */
public final class PerfqueryParser {
  private static final Pattern HEADER =
      Pattern.compile(
          "^# Port (?<ext>extended )?counters: (?<addr>.*) port (?<port>\\d+)"
              + " \\(CapMask: (?<cap>0x[0-9A-Fa-f]+)(?: CapMask2: (?<cap2>0x[0-9A-Fa-f]+))?\\)$");
  private static final Pattern FIELD = Pattern.compile("^(\\w+):\\.+(\\S+)$");
  private static final Pattern LID = Pattern.compile("^Lid (\\d+)$");
  private static final Set<String> SELECTORS =
      Set.of("PortSelect", "CounterSelect", "CounterSelect2");

  /** Parse with the device named {@code lid:<lid>} from each header. */
  public ParseResult<PortCounters> parse(SampleContext ctx, String source, String text) {
    return parse(ctx, source, text, null);
  }

  /**
   * @param guid the port GUID the query addressed ({@code perfquery -G}), used as the device name;
   *     null to name the device {@code lid:<lid>} from the header
   */
  public ParseResult<PortCounters> parse(
      SampleContext ctx, String source, String text, String guid) {
    ParseResult<PortCounters> result = new ParseResult<>();
    Section section = null;
    String[] lines = text.split("\\R", -1);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher header = HEADER.matcher(line);
      if (header.matches()) {
        finish(ctx, source, section, result);
        Integer port = Numbers.intIn(header.group("port"), 0, 255);
        if (port == null) {
          result.skip(
              source, lineNumber, "header port is not a port number (0-255): " + abbreviate(line));
          section = null;
        } else {
          section = new Section(lineNumber, header, port, guid);
        }
        continue;
      }
      Matcher field = FIELD.matcher(line);
      if (!field.matches()) {
        result.skip(source, lineNumber, "not a perfquery counter line: " + abbreviate(line));
        continue;
      }
      if (section == null) {
        result.skip(source, lineNumber, "counter before any '# Port ... counters:' header");
        continue;
      }
      section.add(field.group(1), field.group(2), lineNumber, source, result);
    }
    finish(ctx, source, section, result);
    return result;
  }

  private static void finish(
      SampleContext ctx, String source, Section section, ParseResult<PortCounters> result) {
    if (section == null) {
      return;
    }
    if (section.counters.isEmpty()) {
      result.skip(source, section.headerLine, "port section without counters");
      return;
    }
    result.add(
        PortCounters.newBuilder()
            .setCluster(ctx.cluster())
            .setNode(ctx.node())
            .setBootId(ctx.bootId())
            .setSeq(ctx.nextSeq())
            .setTime(ctx.time())
            .setDevice(section.device)
            .setPort(section.port)
            .setCounters(section.counters)
            .build());
  }

  private static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }

  /** The port section being read. */
  private static final class Section {
    final long headerLine;
    final boolean extended;
    final String device;
    int port;
    final List<Counter> counters = new ArrayList<>();

    Section(long headerLine, Matcher header, int port, String guid) {
      this.headerLine = headerLine;
      this.extended = header.group("ext") != null;
      this.port = port;
      String addr = header.group("addr").strip();
      Matcher lid = LID.matcher(addr);
      this.device = guid != null ? guid : lid.matches() ? "lid:" + lid.group(1) : addr;
    }

    void add(
        String name, String raw, long lineNumber, String source, ParseResult<PortCounters> out) {
      if (SELECTORS.contains(name)) {
        if (name.equals("PortSelect")) {
          Long portSelect = unsigned(raw);
          if (portSelect == null || portSelect > 255) {
            out.skip(source, lineNumber, "PortSelect is not a port number: " + raw);
          } else {
            port = portSelect.intValue();
          }
        }
        return;
      }
      Long value = unsigned(raw);
      if (value == null) {
        out.skip(source, lineNumber, name + " is not an unsigned counter: " + raw);
        return;
      }
      int width = extended ? PmaCounterWidths.EXTENDED_WIDTH : PmaCounterWidths.basic(name);
      counters.add(new Counter(name, CounterGroup.PERFQUERY, value, width, null));
    }

    private static Long unsigned(String raw) {
      if (raw.isEmpty() || raw.length() > 20 || !raw.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return null;
      }
      try {
        return Long.parseUnsignedLong(raw);
      } catch (NumberFormatException tooLarge) {
        return null;
      }
    }
  }
}
