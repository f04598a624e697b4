package io.fabricpulse.collectors.iblinkinfo;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.Lines;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.LinkWidth;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of {@code iblinkinfo} output, default and {@code -l} layout: one {@link PortLink} per
 * port line (docs/formats.md, "iblinkinfo").
 *
 * <p>The default layout prints a node header ({@code CA: gpu003 mlx5_0:} or {@code Switch:
 * 0x0000000000200001 leaf02:}), then its ports: {@code 3 7[ ] ==( 4X 2.5 Gbps Active/ LinkUp)==> 4
 * 3[ ] "spine01" (Could be 12X Could be 10.0 Gbps)} on a switch (LID, port), the same with the port
 * GUID first on a CA. {@code -l} puts everything on one line: {@code 0x0000000000200002 " spine01"
 * 4 2[ ] ==( 1X 2.5 Gbps Active/ LinkUp)==> 0x0000000000200000 1 8[ ] "leaf01" (...)}, both GUIDs
 * and the local description right-aligned in quotes. A port without a link prints {@code ==( Down/
 * Polling)==> [ ] "" ( )}. The speed is per lane ({@code 4X 53.125 Gbps} is HDR200, not a 53 Gb/s
 * link). The parentheses at the end hold iblinkinfo's verdict on the link: {@code Could be 4X} /
 * {@code Could be 25.78125 Gbps} when both ends support more than is active.
 */
public final class IblinkinfoParser {
  private static final String LINK =
      "\\[[^\\]]*\\]\\s+==\\(\\s*(?:(?<width>\\d+[xX])\\s+(?<gbps>[0-9.]+)\\s+Gbps\\s+)?"
          + "(?<state>[A-Za-z]+)(?:/\\s*(?<phys>[A-Za-z]+))?\\s*\\)==>\\s*(?<remote>.*)$";
  private static final Pattern CA_HEADER = Pattern.compile("^CA: (?<desc>.*):$");
  private static final Pattern SWITCH_HEADER =
      Pattern.compile("^(?:Switch|Router): (?<guid>0x[0-9A-Fa-f]{1,16}) (?<desc>.*):$");
  private static final Pattern SWITCH_PORT =
      Pattern.compile("^(?<lid>\\d{1,5})\\s+(?<port>\\d{1,3})" + LINK);
  private static final Pattern CA_PORT =
      Pattern.compile(
          "^(?<guid>0x[0-9A-Fa-f]{1,16})\\s+(?<lid>\\d{1,5})\\s+(?<port>\\d{1,3})" + LINK);
  private static final Pattern LINE_PORT =
      Pattern.compile(
          "^(?<guid>0x[0-9A-Fa-f]{1,16})\\s+\"(?<desc>[^\"]*)\"\\s+(?<lid>\\d{1,5})\\s+(?<port>\\d{1,3})"
              + LINK);
  private static final Pattern REMOTE =
      Pattern.compile(
          "^(?:(?<guid>0x[0-9A-Fa-f]{1,16})\\s+)?(?<lid>\\d{1,5})\\s+(?<port>\\d{1,3})\\[[^\\]]*\\]"
              + "\\s+\"(?<desc>.*)\"\\s*\\((?<verdict>.*)\\)$");
  private static final Pattern NO_REMOTE = Pattern.compile("^\\[[^\\]]*\\]\\s+\"\"\\s*\\(.*\\)$");
  private static final Pattern COULD_BE_WIDTH = Pattern.compile("Could be (\\d+[xX])\\b");
  private static final Pattern COULD_BE_GBPS = Pattern.compile("Could be ([0-9.]+) Gbps");

  public ParseResult<PortLink> parse(String source, String text) {
    ParseResult<PortLink> result = new ParseResult<>();
    List<PortLink> links = new ArrayList<>();
    Header header = null;
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher ca = CA_HEADER.matcher(line);
      Matcher sw = SWITCH_HEADER.matcher(line);
      if (sw.matches()) {
        header =
            new Header(
                NodeType.SWITCH, LinkEnd.normalizeGuid(sw.group("guid")), sw.group("desc").strip());
        continue;
      }
      if (ca.matches()) {
        header = new Header(NodeType.CA, null, ca.group("desc").strip());
        continue;
      }
      Matcher port;
      NodeType type;
      String guid;
      String description;
      if ((port = LINE_PORT.matcher(line)).matches()) {
        type = null;
        guid = LinkEnd.normalizeGuid(port.group("guid"));
        description = port.group("desc").strip();
      } else if ((port = CA_PORT.matcher(line)).matches() && header != null) {
        type = header.type();
        guid = LinkEnd.normalizeGuid(port.group("guid"));
        description = header.description();
      } else if ((port = SWITCH_PORT.matcher(line)).matches() && header != null) {
        type = header.type();
        guid = header.guid();
        description = header.description();
      } else {
        String reason =
            header == null
                    && (SWITCH_PORT.matcher(line).matches() || CA_PORT.matcher(line).matches())
                ? "port line before any 'CA:' or 'Switch:' header"
                : "not an iblinkinfo line: " + Lines.abbreviate(line);
        result.skip(source, lineNumber, reason);
        continue;
      }
      PortLink link = link(port, type, guid, description, lineNumber);
      if (link == null) {
        result.skip(
            source,
            lineNumber,
            "remote end is not 'LID PORT[..] \"desc\" (...)': " + Lines.abbreviate(line));
        continue;
      }
      links.add(link);
    }
    inferNodeTypes(links).forEach(result::add);
    return result;
  }

  /**
   * The {@code -l} layout prints no node type. A GUID on two or more port lines is a switch (a
   * switch prints every port under its node GUID); a GUID on one port line cabled to a switch is a
   * CA. Ends whose type the layout printed, or that neither rule settles, keep what they had.
   */
  private static List<PortLink> inferNodeTypes(List<PortLink> links) {
    Map<String, Integer> portsByGuid = new HashMap<>();
    for (PortLink link : links) {
      if (link.local().type() == null && link.local().guid() != null) {
        portsByGuid.merge(link.local().guid(), 1, Integer::sum);
      }
    }
    if (portsByGuid.isEmpty()) {
      return links;
    }
    Map<String, NodeType> types = new HashMap<>();
    portsByGuid.forEach(
        (guid, ports) -> {
          if (ports >= 2) {
            types.put(guid, NodeType.SWITCH);
          }
        });
    for (PortLink link : links) {
      String guid = link.local().guid();
      if (guid != null
          && portsByGuid.getOrDefault(guid, 0) == 1
          && link.remote() != null
          && link.remote().guid() != null
          && types.get(link.remote().guid()) == NodeType.SWITCH) {
        types.put(guid, NodeType.CA);
      }
    }
    List<PortLink> typed = new ArrayList<>(links.size());
    for (PortLink link : links) {
      typed.add(
          new PortLink(
              typed(link.local(), types),
              link.remote() == null ? null : typed(link.remote(), types),
              link.width(),
              link.speed(),
              link.state(),
              link.physicalState(),
              link.possibleWidth(),
              link.possibleSpeed(),
              link.line()));
    }
    return typed;
  }

  private static LinkEnd typed(LinkEnd end, Map<String, NodeType> types) {
    NodeType type = end.guid() == null ? null : types.get(end.guid());
    if (end.type() != null || type == null) {
      return end;
    }
    return new LinkEnd(type, end.guid(), end.nodeDescription(), end.lid(), end.port());
  }

  private static PortLink link(
      Matcher port, NodeType type, String guid, String description, long lineNumber) {
    LinkEnd local =
        new LinkEnd(
            type,
            guid,
            description,
            Integer.parseInt(port.group("lid")),
            Integer.parseInt(port.group("port")));
    String remoteText = port.group("remote").strip();
    Integer width = port.group("width") != null ? LinkWidth.lanes(port.group("width")) : null;
    IbSpeed speed = port.group("gbps") != null ? IbSpeed.fromLaneGbps(port.group("gbps")) : null;
    String state = port.group("state");
    String phys = port.group("phys");
    if (NO_REMOTE.matcher(remoteText).matches()) {
      return new PortLink(local, null, width, speed, state, phys, null, null, lineNumber);
    }
    Matcher remote = REMOTE.matcher(remoteText);
    if (!remote.matches()) {
      return null;
    }
    LinkEnd far =
        new LinkEnd(
            null,
            remote.group("guid") != null ? LinkEnd.normalizeGuid(remote.group("guid")) : null,
            remote.group("desc").strip(),
            Integer.parseInt(remote.group("lid")),
            Integer.parseInt(remote.group("port")));
    String verdict = remote.group("verdict");
    Matcher couldWidth = COULD_BE_WIDTH.matcher(verdict);
    Matcher couldGbps = COULD_BE_GBPS.matcher(verdict);
    return new PortLink(
        local,
        far,
        width,
        speed,
        state,
        phys,
        couldWidth.find() ? LinkWidth.lanes(couldWidth.group(1)) : null,
        couldGbps.find() ? IbSpeed.fromLaneGbps(couldGbps.group(1)) : null,
        lineNumber);
  }

  /** The node header the default layout's port lines belong to. */
  private record Header(NodeType type, String guid, String description) {}
}
