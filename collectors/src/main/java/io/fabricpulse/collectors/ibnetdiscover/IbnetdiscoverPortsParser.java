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
 * Pure parser of {@code ibnetdiscover -p} (ports report): one {@link PortLink} per line
 * (docs/formats.md, "ibnetdiscover").
 *
 * <p>A linked port prints {@code SW 1719 10 0x7cfe9003009ce5b0 4x EDR - CA 134 1 0x7cfe9003003b4bde
 * ( 'ib-i1l1s01' - 'o0001 HCA-1' )}: type, LID, port, GUID, width and speed of the local end, then
 * the remote end and both NodeDescriptions. A port without a link stops after the speed and the
 * local description: {@code SW 2052 37 0x506b4b03005c2740 4x ??? 'ib-i4l1s01'} (the speed of a port
 * that is down is {@code ???} on real switches; ibsim prints the enabled speed instead). Old
 * versions print the description unquoted. Descriptions are trimmed: NodeDescription is a padded
 * 64-byte field and real switches carry leading and trailing blanks.
 */
public final class IbnetdiscoverPortsParser {
  private static final String END =
      "(?<%1$stype>CA|SW|RT)\\s+(?<%1$slid>\\d{1,5})\\s+(?<%1$sport>\\d{1,3})\\s+(?<%1$sguid>0x[0-9A-Fa-f]{1,16})";
  private static final Pattern LINKED =
      Pattern.compile(
          "^"
              + END.formatted("l")
              + "\\s+(?<width>\\d+[xX])\\s+(?<speed>\\S+)\\s+-\\s+"
              + END.formatted("r")
              + "\\s+\\(\\s*'(?<ldesc>.*)'\\s+-\\s+'(?<rdesc>.*)'\\s*\\)$");
  private static final Pattern UNLINKED =
      Pattern.compile(
          "^" + END.formatted("l") + "\\s+(?<width>\\d+[xX])\\s+(?<speed>\\S+)\\s+(?<ldesc>.+)$");

  public ParseResult<PortLink> parse(String source, String text) {
    ParseResult<PortLink> result = new ParseResult<>();
    String[] lines = Lines.of(text);
    for (int i = 0; i < lines.length; i++) {
      long lineNumber = i + 1L;
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      Matcher linked = LINKED.matcher(line);
      Matcher unlinked = UNLINKED.matcher(line);
      Matcher match = linked.matches() ? linked : unlinked.matches() ? unlinked : null;
      if (match == null) {
        result.skip(
            source, lineNumber, "not an ibnetdiscover -p port line: " + Lines.abbreviate(line));
        continue;
      }
      Integer width = LinkWidth.lanes(match.group("width"));
      if (width == null) {
        result.skip(source, lineNumber, "not a link width: " + match.group("width"));
        continue;
      }
      LinkEnd local = end(match, "l", description(match.group("ldesc")));
      LinkEnd remote = match == linked ? end(match, "r", description(match.group("rdesc"))) : null;
      result.add(
          new PortLink(
              local,
              remote,
              width,
              IbSpeed.fromName(match.group("speed")),
              null,
              null,
              null,
              null,
              lineNumber));
    }
    return result;
  }

  private static LinkEnd end(Matcher match, String prefix, String description) {
    return new LinkEnd(
        NodeType.fromCode(match.group(prefix + "type")),
        LinkEnd.normalizeGuid(match.group(prefix + "guid")),
        description,
        Integer.parseInt(match.group(prefix + "lid")),
        Integer.parseInt(match.group(prefix + "port")));
  }

  /** {@code 'leaf01 '} -> {@code leaf01}; an unquoted description (old versions) as is, trimmed. */
  private static String description(String raw) {
    String text = raw.strip();
    if (text.length() >= 2 && text.startsWith("'") && text.endsWith("'")) {
      text = text.substring(1, text.length() - 1);
    }
    return text.strip();
  }
}
