package io.fabricpulse.collectors.fabric;

/**
 * What a topology tool printed for one port: the port, and the port at the other end of its cable
 * if it has a link. ibnetdiscover -p and iblinkinfo print every link once from each end.
 *
 * @param local the port the line is about
 * @param remote the port at the other end; null for a port without a link
 * @param width active width in lanes (4 for {@code 4x}); null when not printed
 * @param speed active speed; null when unknown ({@code ???}) or not printed
 * @param state logical port state ({@code Active}, {@code Down}, ...); null when not printed
 * @param physicalState physical state ({@code LinkUp}, {@code Polling}, ...); null when not printed
 * @param possibleWidth iblinkinfo's {@code Could be 4X}: the width both ends support, above the
 *     active one; null when it printed none
 * @param possibleSpeed iblinkinfo's {@code Could be 10.0 Gbps}; null when it printed none
 * @param line the 1-based line of the input
 */
public record PortLink(
    LinkEnd local,
    LinkEnd remote,
    Integer width,
    IbSpeed speed,
    String state,
    String physicalState,
    Integer possibleWidth,
    IbSpeed possibleSpeed,
    long line) {

  public boolean connected() {
    return remote != null;
  }
}
