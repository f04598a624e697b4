package io.fabricpulse.collectors.perfquery;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.Numbers;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code ibqueryerrors} output: one {@link PortCounters} per {@code GUID <guid> port
 * <n>: [Name == value] ...} line, device = the port GUID as printed.
 *
 * <p>ibqueryerrors lists only the counters above its thresholds, so a record carries those, not the
 * full set. They come from the PortCounters attribute, hence PMA widths (the sample shows {@code
 * SymbolErrorCounter == 65535} and {@code PortXmitWait == 4294967295}: saturated 16- and 32-bit
 * counters [IBbook]). {@code port ALL} is the node's aggregate, given port 255 as perfquery does
 * for its AllPortSelect emulation [PQ]. {@code Errors for ...} lines, {@code #} comments and the
 * {@code ##} summary carry no counters and are ignored.
 */
public final class IbqueryerrorsParser {
  /** Port number standing for perfquery's and ibqueryerrors' "all ports" aggregate. */
  public static final int ALL_PORTS = 255;

  private static final Pattern PORT_LINE =
      Pattern.compile("^GUID (?<guid>0x[0-9A-Fa-f]+) port (?<port>\\d+|ALL):(?<rest>.*)$");
  private static final Pattern ITEM = Pattern.compile("\\[(\\w+) == (\\d+)\\]");

  public ParseResult<PortCounters> parse(SampleContext ctx, String source, String text) {
    ParseResult<PortCounters> result = new ParseResult<>();
    String[] lines = text.split("\\R", -1);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("Errors for ")) {
        continue;
      }
      Matcher port = PORT_LINE.matcher(line);
      if (!port.matches()) {
        result.skip(source, lineNumber, "not an ibqueryerrors port line: " + abbreviate(line));
        continue;
      }
      List<Counter> counters = counters(port.group("rest"), source, lineNumber, result);
      if (counters.isEmpty()) {
        result.skip(source, lineNumber, "port line without '[Counter == value]' items");
        continue;
      }
      String portText = port.group("port");
      Integer portNumber =
          portText.equals("ALL") ? Integer.valueOf(ALL_PORTS) : Numbers.intIn(portText, 0, 255);
      if (portNumber == null) {
        result.skip(
            source, lineNumber, "port is not a port number (0-255): " + abbreviate(portText));
        continue;
      }
      result.add(
          PortCounters.newBuilder()
              .setCluster(ctx.cluster())
              .setNode(ctx.node())
              .setBootId(ctx.bootId())
              .setSeq(ctx.nextSeq())
              .setTime(ctx.time())
              .setDevice(port.group("guid"))
              .setPort(portNumber)
              .setCounters(counters)
              .build());
    }
    return result;
  }

  private static List<Counter> counters(
      String items, String source, long lineNumber, ParseResult<PortCounters> result) {
    List<Counter> counters = new ArrayList<>();
    Matcher item = ITEM.matcher(items);
    while (item.find()) {
      String name = item.group(1);
      try {
        long value = Long.parseUnsignedLong(item.group(2));
        counters.add(
            new Counter(name, CounterGroup.PERFQUERY, value, PmaCounterWidths.basic(name), null));
      } catch (NumberFormatException tooLarge) {
        result.skip(source, lineNumber, name + " does not fit 64 bits: " + item.group(2));
      }
    }
    return counters;
  }

  private static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }
}
