package io.fabricpulse.collectors.fabric;

/**
 * One end of an IB link as a fabric tool printed it.
 *
 * @param type CA, switch or router; null when the tool does not say (iblinkinfo's remote end)
 * @param guid the GUID the tool prints for the port: a switch's node GUID (all its ports share it),
 *     a CA's port GUID; normalized to {@code 0x} and 16 lower-case hex digits; null when not
 *     printed
 * @param nodeDescription the NodeDescription, trimmed; null when not printed
 * @param lid the port's LID (a switch's base LID); null when not printed
 * @param port the physical port number
 */
public record LinkEnd(NodeType type, String guid, String nodeDescription, Integer lid, int port) {

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

  /** {@code leaf01 port 8} or {@code 0x...0200000 port 8}: how an operator names this end. */
  public String label() {
    String name = nodeDescription != null && !nodeDescription.isEmpty() ? nodeDescription : guid;
    return name + " port " + port;
  }
}
