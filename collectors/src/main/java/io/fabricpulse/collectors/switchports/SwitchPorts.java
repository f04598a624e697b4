package io.fabricpulse.collectors.switchports;

import io.fabricpulse.collectors.fabric.PortLink;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One switch of a topology sweep and the ports whose counters the sweep reads.
 *
 * @param guid the switch's node GUID (every port of a switch prints it)
 * @param description its NodeDescription, trimmed; null when the tool printed none
 * @param lid its base LID, where perfquery sends the PerfMgt GMPs
 * @param ports the sweep's line of each port with a link, or without one for a port that had a link
 *     in an earlier sweep (its counters still tell how it went down)
 */
public record SwitchPorts(
    String guid, String description, int lid, SortedMap<Integer, PortLink> ports) {

  public SwitchPorts {
    ports = new TreeMap<>(ports);
  }
}
