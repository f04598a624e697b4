package io.fabricpulse.collectors.ibstatus;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.Lines;
import io.fabricpulse.collectors.fabric.LinkWidth;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code ibstatus} output: one {@link IbstatusPort} per {@code Infiniband device
 * 'mlx5_0' port 1 status:} block (docs/formats.md, "ibstat and ibstatus").
 *
 * <p>ibstatus is a shell script that prints sysfs ({@code /sys/class/infiniband/<dev>/ports/<n>/})
 * as {@code key: value} lines: {@code base lid: 0x33bf}, {@code state: 4: ACTIVE}, {@code rate: 200
 * Gb/sec (4X HDR)}, {@code link_layer: InfiniBand}; {@code default gid: unknown} when the port has
 * no GID. Indentation is tabs or spaces depending on the copy.
 */
public final class IbstatusParser {
  private static final Pattern HEADER =
      Pattern.compile("^Infiniband device '(?<device>[^']+)' port (?<port>\\d{1,3}) status:$");
  private static final Pattern FIELD = Pattern.compile("^(?<key>[a-z_ ]+):\\s*(?<value>.*)$");
  private static final Pattern LID = Pattern.compile("^0x[0-9A-Fa-f]{1,4}$");
  private static final Pattern NUMBERED = Pattern.compile("^\\d+:\\s*(?<name>\\S+)$");
  private static final Pattern RATE =
      Pattern.compile(
          "^(?<gbps>\\d{1,5}(?:\\.\\d{1,6})?) Gb/sec(?: \\((?<width>\\d+X)(?: (?<speed>[A-Z0-9]+))?\\))?$");

  public ParseResult<IbstatusPort> parse(String source, String text) {
    ParseResult<IbstatusPort> result = new ParseResult<>();
    Matcher header = null;
    long headerLine = 0;
    Map<String, String> fields = new HashMap<>();
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher next = HEADER.matcher(line);
      if (next.matches()) {
        finish(header, headerLine, fields, source, result);
        header = next;
        headerLine = lineNumber;
        fields = new HashMap<>();
        continue;
      }
      Matcher field = FIELD.matcher(line);
      if (!field.matches() || header == null) {
        result.skip(
            source,
            lineNumber,
            header == null
                ? "line before any 'Infiniband device ... status:' header"
                : "not an ibstatus line: " + Lines.abbreviate(line));
        continue;
      }
      fields.put(field.group("key").strip(), field.group("value").strip());
    }
    finish(header, headerLine, fields, source, result);
    return result;
  }

  private static void finish(
      Matcher header,
      long line,
      Map<String, String> fields,
      String source,
      ParseResult<IbstatusPort> result) {
    if (header == null) {
      return;
    }
    Matcher rate = RATE.matcher(fields.getOrDefault("rate", ""));
    if (!rate.matches()) {
      result.skip(source, line, "port without a 'rate: N Gb/sec (..)' line");
      return;
    }
    String gid = fields.get("default gid");
    result.add(
        new IbstatusPort(
            header.group("device"),
            Integer.parseInt(header.group("port")),
            gid == null || gid.equals("unknown") ? null : gid,
            lid(fields.get("base lid")),
            lid(fields.get("sm lid")),
            name(fields.get("state")),
            name(fields.get("phys state")),
            Double.valueOf(rate.group("gbps")),
            rate.group("width") != null ? LinkWidth.lanes(rate.group("width")) : null,
            rate.group("speed") != null ? IbSpeed.fromName(rate.group("speed")) : null,
            fields.get("link_layer"),
            line));
  }

  private static Integer lid(String value) {
    return value != null && LID.matcher(value).matches()
        ? Integer.valueOf(value.substring(2), 16)
        : null;
  }

  private static String name(String value) {
    if (value == null) {
      return null;
    }
    Matcher numbered = NUMBERED.matcher(value);
    return numbered.matches() ? numbered.group("name") : value;
  }
}
