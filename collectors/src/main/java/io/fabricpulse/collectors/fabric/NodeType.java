package io.fabricpulse.collectors.fabric;

/** The kind of IB node at a link end, as ibnetdiscover and iblinkinfo name it. */
public enum NodeType {
  /** A channel adapter (HCA): {@code CA} in ibnetdiscover, {@code CA:} in iblinkinfo. */
  CA,
  /** A switch: {@code SW}, {@code Switch:}. */
  SWITCH,
  /** A router: {@code RT}. */
  ROUTER;

  /**
   * The type from ibnetdiscover's two-letter code ({@code CA}, {@code SW}, {@code RT}), or null.
   */
  public static NodeType fromCode(String code) {
    return switch (code) {
      case "CA" -> CA;
      case "SW" -> SWITCH;
      case "RT" -> ROUTER;
      default -> null;
    };
  }
}
