package io.fabricpulse.collectors.ibstat;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.Lines;
import io.fabricpulse.collectors.fabric.LinkEnd;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code ibstat} output: one {@link IbstatPort} per {@code Port N:} block
 * (docs/formats.md, "ibstat and ibstatus").
 *
 * <p>{@code CA 'mlx5_0'} opens a device (ibsim's simulated switch prints {@code Switch 'ibsim0'}),
 * tab-indented {@code Key: value} lines describe it, {@code Port 1:} opens a port whose doubly
 * indented lines follow. {@code Rate:} is the total port rate in Gb/s ({@code 400}, or {@code 40}
 * on a port that is down: the rate of a down port means nothing). Lines ibstat prints on errors
 * ({@code ibpanic: ... stat of IB device 'mlx5_8' failed}) are skipped as malformed.
 */
public final class IbstatParser {
  private static final Pattern DEVICE = Pattern.compile("^(?:CA|Switch) '(?<name>[^']+)'$");
  private static final Pattern PORT = Pattern.compile("^Port (?<port>\\d{1,3}):$");
  private static final Pattern FIELD =
      Pattern.compile("^(?<key>[A-Za-z][A-Za-z ]*):\\s*(?<value>.*)$");
  private static final Set<String> DEVICE_KEYS =
      Set.of(
          "CA type",
          "Switch type",
          "Number of ports",
          "Firmware version",
          "Hardware version",
          "Node GUID",
          "System image GUID");
  private static final Set<String> PORT_KEYS =
      Set.of(
          "State",
          "Physical state",
          "Rate",
          "Base lid",
          "LMC",
          "SM lid",
          "Capability mask",
          "Port GUID",
          "Link layer");

  public ParseResult<IbstatPort> parse(String source, String text) {
    ParseResult<IbstatPort> result = new ParseResult<>();
    String device = null;
    Map<String, String> deviceFields = new HashMap<>();
    Integer port = null;
    long portLine = 0;
    Map<String, String> portFields = new HashMap<>();
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher deviceHeader = DEVICE.matcher(line);
      Matcher portHeader = PORT.matcher(line);
      Matcher field = FIELD.matcher(line);
      if (deviceHeader.matches() || portHeader.matches()) {
        if (port != null) {
          result.add(port(device, deviceFields, port, portFields, portLine, source, result));
        }
        port = null;
        portFields = new HashMap<>();
        if (deviceHeader.matches()) {
          device = deviceHeader.group("name");
          deviceFields = new HashMap<>();
        } else if (device == null) {
          result.skip(source, lineNumber, "port before any CA '<name>' line");
        } else {
          port = Integer.valueOf(portHeader.group("port"));
          portLine = lineNumber;
        }
      } else if (field.matches()
          && device != null
          && (port != null ? PORT_KEYS : DEVICE_KEYS).contains(field.group("key"))) {
        (port != null ? portFields : deviceFields)
            .put(field.group("key"), field.group("value").strip());
      } else {
        result.skip(source, lineNumber, "not an ibstat line: " + Lines.abbreviate(line));
      }
    }
    if (port != null) {
      result.add(port(device, deviceFields, port, portFields, portLine, source, result));
    }
    return result;
  }

  private static IbstatPort port(
      String device,
      Map<String, String> deviceFields,
      int port,
      Map<String, String> fields,
      long line,
      String source,
      ParseResult<IbstatPort> result) {
    return new IbstatPort(
        device,
        deviceFields.getOrDefault("CA type", deviceFields.get("Switch type")),
        deviceFields.get("Firmware version"),
        guid(deviceFields.get("Node GUID"), "Node GUID", line, source, result),
        port,
        fields.get("State"),
        fields.get("Physical state"),
        number(fields.get("Rate"), "Rate", line, source, result),
        integer(fields.get("Base lid"), "Base lid", line, source, result),
        integer(fields.get("SM lid"), "SM lid", line, source, result),
        guid(fields.get("Port GUID"), "Port GUID", line, source, result),
        fields.get("Link layer"),
        line);
  }

  private static String guid(
      String value, String key, long line, String source, ParseResult<IbstatPort> result) {
    if (value == null) {
      return null;
    }
    if (!LinkEnd.isGuid(value)) {
      result.skip(source, line, key + " is not a GUID: " + value);
      return null;
    }
    return LinkEnd.normalizeGuid(value);
  }

  private static Integer integer(
      String value, String key, long line, String source, ParseResult<IbstatPort> result) {
    if (value == null) {
      return null;
    }
    if (value.isEmpty() || value.length() > 9 || !value.chars().allMatch(Character::isDigit)) {
      result.skip(source, line, key + " is not a number: " + value);
      return null;
    }
    return Integer.valueOf(value);
  }

  private static Double number(
      String value, String key, long line, String source, ParseResult<IbstatPort> result) {
    if (value == null) {
      return null;
    }
    if (!value.matches("\\d{1,5}(?:\\.\\d{1,6})?")) {
      result.skip(source, line, key + " is not a number: " + value);
      return null;
    }
    return Double.valueOf(value);
  }
}
