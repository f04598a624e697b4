package io.fabricpulse.collectors.ethtool;

/**
 * The meaning of one raw ethtool counter name: its kind, direction and priority. The raw name stays
 * in the published record; this only decides where it goes and lets readers compare drivers.
 *
 * @param priority 802.1p priority 0..7 for per-priority counters, null otherwise
 */
public record EthtoolCounterClass(EthtoolCounterKind kind, Direction direction, Integer priority) {

  /** Which way the counted traffic flows, seen from this port. */
  public enum Direction {
    RX,
    TX,
    NONE
  }
}
