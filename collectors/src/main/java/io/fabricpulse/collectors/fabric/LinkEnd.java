package io.fabricpulse.collectors.fabric;

/**
 * One end of a link as a fabric tool printed it: an IB port, or an Ethernet port that LLDP named.
 *
 * @param type CA, switch or router; null when the tool does not say (iblinkinfo's remote end)
 * @param guid the GUID the tool prints for the port: a switch's node GUID (all its ports share it),
 *     a CA's port GUID; normalized to {@code 0x} and 16 lower-case hex digits; null when not
 *     printed
 * @param nodeDescription the NodeDescription, trimmed; null when not printed
 * @param lid the port's LID (a switch's base LID); null when not printed
 * @param port the physical port number (an Ethernet switch port: the last number of its name)
 * @param portName an Ethernet port's interface name ({@code swp12}, {@code ens9f0np0}); null on
 *     InfiniBand
 */
public record LinkEnd(
    NodeType type, String guid, String nodeDescription, Integer lid, int port, String portName) {

  /** An InfiniBand end: numbered ports, no names. */
  public LinkEnd(NodeType type, String guid, String nodeDescription, Integer lid, int port) {
    this(type, guid, nodeDescription, lid, port, null);
  }

  /**
   * {@code 0x7cfe9003009ce5b0} from {@code 0x7cfe9003009ce5b0}, {@code 7CFE...} or {@code
   * 0x200001}.
   */
  public static String normalizeGuid(String text) {
    String hex = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
    if (hex.isEmpty() || hex.length() > 16 || !hex.chars().allMatch(LinkEnd::isHex)) {
      throw new IllegalArgumentException("not a GUID: " + text);
    }
    return "0x" + "0".repeat(16 - hex.length()) + hex.toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether {@code text} is a GUID {@link #normalizeGuid} accepts. */
  public static boolean isGuid(String text) {
    String hex = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
    return !hex.isEmpty() && hex.length() <= 16 && hex.chars().allMatch(LinkEnd::isHex);
  }

  private static boolean isHex(int c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  /**
   * {@code 0x00001c34da710c0c} from the MAC {@code 1c:34:da:71:0c:0c} (or {@code
   * 1C-34-DA-71-0C-0C}): an Ethernet end's identifier in the GUID field.
   */
  public static String guidOfMac(String mac) {
    String hex = mac.trim().replace(":", "").replace("-", "");
    if (hex.length() != 12 || !hex.chars().allMatch(LinkEnd::isHex)) {
      throw new IllegalArgumentException("not a MAC address: " + mac);
    }
    return normalizeGuid(hex);
  }

  /**
   * {@code leaf01 port 8}, {@code leaf-r01 swp12} or {@code 0x...0200000 port 8}: how an operator
   * names this end.
   */
  public String label() {
    String name = nodeDescription != null && !nodeDescription.isEmpty() ? nodeDescription : guid;
    return portName != null ? name + " " + portName : name + " port " + port;
  }
}
