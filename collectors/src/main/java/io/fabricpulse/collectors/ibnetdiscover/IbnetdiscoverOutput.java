package io.fabricpulse.collectors.ibnetdiscover;

import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.PortLink;
import java.util.regex.Pattern;

/** ibnetdiscover output of either layout: the topology file, or the ports report of {@code -p}. */
public final class IbnetdiscoverOutput {
  private static final Pattern NODE_RECORD =
      Pattern.compile("(?m)^(?:Switch|Ca|Rt)\\s+\\d{1,3}\\s+\"");

  private IbnetdiscoverOutput() {}

  /** Whether {@code text} is the topology file (node records) rather than {@code -p} lines. */
  public static boolean isTopologyFile(String text) {
    return NODE_RECORD.matcher(text).find();
  }

  /** The port links of {@code text}, parsed by the parser of its layout. */
  public static ParseResult<PortLink> parse(String source, String text) {
    return isTopologyFile(text)
        ? new IbnetdiscoverTopologyParser().parse(source, text)
        : new IbnetdiscoverPortsParser().parse(source, text);
  }
}
