package io.fabricpulse.collectors.ibnetdiscover;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.IbSpeed;
import io.fabricpulse.collectors.fabric.Lines;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.LinkWidth;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parser of plain {@code ibnetdiscover} output (the topology file): one {@link PortLink} per
 * connected port line (docs/formats.md, "ibnetdiscover").
 *
 * <p>A node record is a header such as {@code Switch 8 "S-0000000000200001" # "leaf02" base port 0
 * lid 3 lmc 0} or {@code Ca 1 "H-0000000000100004" # "gpu003 mlx5_0"}, then one line per linked
 * port: {@code [7] "S-0000000000200002"[3] # "spine01" lid 4 4xSDR} on a switch, {@code [1](100005)
 * "S-0000000000200001"[1] # lid 6 lmc 0 "leaf02" lid 3 4xSDR} on a CA (its port GUID in
 * parentheses, its own LID first in the comment). Node names are {@code S-}, {@code H-} or {@code
 * R-} and the node GUID unless a node-name map renamed them; then the GUID of a switch end is
 * unknown (null). As in {@code ibnetdiscover -p}, a CA end carries its port GUID and a switch end
 * its node GUID. {@code vendid=}, {@code devid=}, {@code sysimgguid=}, {@code switchguid=}, {@code
 * caguid=}, {@code rtguid=} lines and {@code #} comments carry nothing a link needs. ibdiagnet
 * writes the same format as {@code ibdiagnet2.ibnetdiscover}, with a switch port's label in the
 * parentheses after its number ({@code [1](1/1/1) "S-fc6a1c030091cf00"[63]}) and {@code enhanced
 * port 0} switches.
 */
public final class IbnetdiscoverTopologyParser {
  private static final Pattern NODE =
      Pattern.compile(
          "^(?<kind>Switch|Ca|Rt)\\s+(?<ports>\\d{1,3})\\s+\"(?<id>[^\"]*)\"\\s*#\\s*\"(?<desc>.*?)\"(?<rest>.*)$");
  private static final Pattern PORT =
      Pattern.compile(
          "^\\[(?<port>\\d{1,3})\\](?:\\((?<paren>[^)]*)\\))?\\s+\"(?<rid>[^\"]*)\""
              + "\\[(?<rport>\\d{1,3})\\](?:\\((?<rpguid>[0-9A-Fa-f]{1,16})\\))?\\s*#\\s*(?<comment>.*)$");
  private static final Pattern COMMENT =
      Pattern.compile(
          "^(?:lid (?<llid>\\d{1,5}) lmc \\d+ )?\"(?<rdesc>.*)\" lid (?<rlid>\\d{1,5})"
              + " (?<width>\\d+x)(?<speed>[A-Za-z0-9]+)$");
  private static final Pattern BASE_LID = Pattern.compile("\\blid (\\d{1,5})\\b");
  private static final Pattern NODE_ID =
      Pattern.compile("^(?<t>[SHR])-(?<guid>[0-9A-Fa-f]{1,16})$");
  private static final Pattern ATTRIBUTE =
      Pattern.compile("^(?:vendid|devid|sysimgguid|switchguid|caguid|rtguid)=\\S*$");

  public ParseResult<PortLink> parse(String source, String text) {
    ParseResult<PortLink> result = new ParseResult<>();
    Node node = null;
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#") || ATTRIBUTE.matcher(line).matches()) {
        continue;
      }
      Matcher header = NODE.matcher(line);
      if (header.matches()) {
        node = Node.of(header);
        continue;
      }
      Matcher port = PORT.matcher(line);
      if (!port.matches()) {
        result.skip(source, lineNumber, "not an ibnetdiscover line: " + Lines.abbreviate(line));
        continue;
      }
      if (node == null) {
        result.skip(source, lineNumber, "port line before any Switch/Ca node line");
        continue;
      }
      Matcher comment = COMMENT.matcher(port.group("comment").strip());
      if (!comment.matches()) {
        result.skip(
            source,
            lineNumber,
            "port comment is not '\"desc\" lid N <width><speed>': "
                + Lines.abbreviate(port.group("comment")));
        continue;
      }
      Integer width = LinkWidth.lanes(comment.group("width"));
      if (width == null) {
        result.skip(source, lineNumber, "not a link width: " + comment.group("width"));
        continue;
      }
      result.add(
          new PortLink(
              node.end(port, comment),
              remote(port, comment),
              width,
              IbSpeed.fromName(comment.group("speed")),
              null,
              null,
              null,
              null,
              lineNumber));
    }
    return result;
  }

  private static LinkEnd remote(Matcher port, Matcher comment) {
    Matcher id = NODE_ID.matcher(port.group("rid"));
    NodeType type = null;
    String guid = null;
    if (id.matches()) {
      type =
          switch (id.group("t")) {
            case "S" -> NodeType.SWITCH;
            case "H" -> NodeType.CA;
            default -> NodeType.ROUTER;
          };
      guid = LinkEnd.normalizeGuid(id.group("guid"));
    }
    if (port.group("rpguid") != null) {
      guid = LinkEnd.normalizeGuid(port.group("rpguid"));
    } else if (type == NodeType.CA) {
      guid = null; // a CA's node GUID is not its port GUID
    }
    return new LinkEnd(
        type,
        guid,
        comment.group("rdesc").strip(),
        Integer.parseInt(comment.group("rlid")),
        Integer.parseInt(port.group("rport")));
  }

  /** The node record the port lines belong to. */
  private record Node(NodeType type, String nodeGuid, String description, Integer baseLid) {
    static Node of(Matcher header) {
      NodeType type =
          switch (header.group("kind")) {
            case "Switch" -> NodeType.SWITCH;
            case "Ca" -> NodeType.CA;
            default -> NodeType.ROUTER;
          };
      Matcher id = NODE_ID.matcher(header.group("id"));
      String guid = id.matches() ? LinkEnd.normalizeGuid(id.group("guid")) : null;
      Matcher lid = BASE_LID.matcher(header.group("rest"));
      Integer baseLid = lid.find() ? Integer.valueOf(lid.group(1)) : null;
      return new Node(type, guid, header.group("desc").strip(), baseLid);
    }

    LinkEnd end(Matcher port, Matcher comment) {
      String guid = type == NodeType.SWITCH ? nodeGuid : null;
      // A CA port's parentheses hold its port GUID; a switch port's hold ibdiagnet's port label
      // ([1](1/1/1) on a Quantum-2: cage 1, port 1, split 1).
      String paren = port.group("paren");
      if (type != NodeType.SWITCH && paren != null && LinkEnd.isGuid(paren)) {
        guid = LinkEnd.normalizeGuid(paren);
      }
      Integer lid =
          comment.group("llid") != null ? Integer.valueOf(comment.group("llid")) : baseLid;
      return new LinkEnd(type, guid, description, lid, Integer.parseInt(port.group("port")));
    }
  }
}
