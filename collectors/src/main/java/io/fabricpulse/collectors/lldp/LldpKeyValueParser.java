package io.fabricpulse.collectors.lldp;

import io.fabricpulse.collectors.core.ParseResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Pure parser of lldpd's {@code lldpcli -f keyvalue} output: {@code show neighbors details} (keys
 * {@code lldp.<interface>.<section>...}) and {@code show chassis} (keys {@code
 * local-chassis.chassis...}).
 *
 * <p>The format is lldpd's own (src/client/kv_writer.c): one {@code key=value} per line, the key
 * the path of labels from the interface down; a value with a line break goes on over the next
 * lines, which carry no key. An interface name may itself contain dots ({@code bond0.100}), so the
 * interface ends where a known section begins ({@code via}, {@code chassis}, {@code port}, ...). A
 * second neighbour on one interface starts with its own {@code via} key. Keys this collector does
 * not use (VLANs, LLDP-MED, power, autonegotiation) are read past.
 *
 * <p>A line that is neither a key nor a continuation, and a neighbour without a chassis ID or a
 * port ID, are reported as malformed and skipped.
 */
public final class LldpKeyValueParser {

  /** The sections lldpcli prints under an interface, in lldpd 1.0. */
  private static final Set<String> SECTIONS =
      Set.of(
          "via",
          "rid",
          "age",
          "chassis",
          "port",
          "ttl",
          "vlan",
          "ppvid",
          "pi",
          "lldp-med",
          "unknown-tlvs");

  /** Chassis and port ID subtypes as lldpcli labels them. */
  private static final Set<String> ID_TYPES = Set.of("mac", "ip", "ifname", "ifalias", "local");

  private static final String NEIGHBOR_PREFIX = "lldp.";
  private static final String CHASSIS_PREFIX = "local-chassis.";

  /** The neighbours of {@code show neighbors details}, in the order lldpcli printed them. */
  public ParseResult<LldpNeighbor> neighbors(String source, String text) {
    ParseResult<LldpNeighbor> result = new ParseResult<>();
    List<Fields> found = new ArrayList<>();
    Map<String, Fields> current = new LinkedHashMap<>();
    Fields last = null;
    long number = 0;
    for (String line : text.split("\n", -1)) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0 || !line.startsWith(NEIGHBOR_PREFIX)) {
        if (last != null && eq < 0) {
          last.continueValue(line);
        } else {
          result.skip(source, number, "not an lldpcli keyvalue line: " + abbreviate(line));
        }
        continue;
      }
      String key = line.substring(NEIGHBOR_PREFIX.length(), eq);
      String value = line.substring(eq + 1);
      int split = sectionStart(key);
      if (split < 0) {
        last = null; // a key of a section this parser does not know: read past it
        continue;
      }
      String iface = key.substring(0, split);
      String path = key.substring(split + 1);
      Fields fields = current.get(iface);
      if (fields == null || (path.equals("via") && fields.hasData())) {
        fields = new Fields(iface, number);
        current.put(iface, fields);
        found.add(fields);
      }
      fields.put(path, value);
      last = fields;
    }
    for (Fields f : found) {
      f.toNeighbor(source, result);
    }
    return result;
  }

  /** The local chassis of {@code show chassis}; empty with a malformed entry when it has no ID. */
  public ParseResult<LldpChassis> chassis(String source, String text) {
    ParseResult<LldpChassis> result = new ParseResult<>();
    Fields fields = new Fields("local-chassis", 1);
    Fields last = null;
    long number = 0;
    for (String line : text.split("\n", -1)) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 0 && last != null) {
        last.continueValue(line);
      } else if (eq < 0 || !line.startsWith(CHASSIS_PREFIX)) {
        result.skip(source, number, "not an lldpcli show chassis line: " + abbreviate(line));
      } else {
        fields.put(line.substring(CHASSIS_PREFIX.length(), eq), line.substring(eq + 1));
        last = fields;
      }
    }
    if (fields.chassisId == null) {
      result.skip(source, 1, "no local chassis ID in lldpcli show chassis");
    } else {
      result.add(
          new LldpChassis(
              fields.chassisIdType, fields.chassisId, fields.systemName, fields.capabilities));
    }
    return result;
  }

  /** Where the section of {@code key} (after {@code lldp.}) begins, at the dot before it; -1. */
  private static int sectionStart(String key) {
    for (int dot = key.indexOf('.'); dot >= 0; dot = key.indexOf('.', dot + 1)) {
      int end = key.indexOf('.', dot + 1);
      String section = end < 0 ? key.substring(dot + 1) : key.substring(dot + 1, end);
      if (SECTIONS.contains(section)) {
        return dot;
      }
    }
    return -1;
  }

  private static String abbreviate(String line) {
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }

  /** The keys of one neighbour (or the local chassis) that the collector uses. */
  private static final class Fields {
    final String iface;
    final long line;
    String chassisIdType;
    String chassisId;
    String systemName;
    final Set<String> capabilities = new TreeSet<>();
    String portIdType;
    String portId;
    String portDescription;
    private String lastPath;

    Fields(String iface, long line) {
      this.iface = iface;
      this.line = line;
    }

    boolean hasData() {
      return chassisId != null || portId != null;
    }

    void put(String path, String value) {
      lastPath = path;
      String[] p = path.split("\\.");
      if (p[0].equals("chassis") && p.length == 2 && ID_TYPES.contains(p[1])) {
        chassisIdType = p[1];
        chassisId = value;
      } else if (p[0].equals("chassis") && p.length == 2 && p[1].equals("name")) {
        systemName = value;
      } else if (p[0].equals("chassis") && p.length == 3 && p[2].equals("enabled")) {
        if (value.equals("on")) {
          capabilities.add(p[1]);
        }
      } else if (p[0].equals("port") && p.length == 2 && ID_TYPES.contains(p[1])) {
        portIdType = p[1];
        portId = value;
      } else if (p[0].equals("port") && p.length == 2 && p[1].equals("descr")) {
        portDescription = value;
      }
    }

    /** A value that went on over another line: only descriptions do, and names are one line. */
    void continueValue(String line) {
      if ("port.descr".equals(lastPath) && portDescription != null) {
        portDescription = portDescription + "\n" + line;
      }
    }

    void toNeighbor(String source, ParseResult<LldpNeighbor> result) {
      if (chassisId == null || portId == null) {
        result.skip(
            source,
            line,
            "neighbour on "
                + iface
                + " without a "
                + (chassisId == null ? "chassis" : "port")
                + " ID");
        return;
      }
      result.add(
          new LldpNeighbor(
              iface,
              chassisIdType,
              chassisId,
              systemName,
              capabilities,
              portIdType,
              portId,
              portDescription,
              line));
    }
  }
}
