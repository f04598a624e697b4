package io.fabricpulse.streams.detect.link;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;

/**
 * One fabric.rates record as the link detectors read it: the port's subject, whether it is ACTIVE,
 * its speed and width, and counter increases that may count as evidence.
 */
record LinkSample(CounterRates rates) {

  static final String ACTIVE = "ACTIVE";
  static final String LINK_DOWNED = "link_downed";
  static final String LINK_DOWN_EVENTS_PHY = "link_down_events_phy";

  long time() {
    return rates.getTime().toEpochMilli();
  }

  /** {@code cluster/node/device/port}, the key of the port's state and alerts. */
  String portKey() {
    return portKey(rates.getCluster(), rates.getNode(), rates.getDevice(), rates.getPort());
  }

  static String portKey(String cluster, String node, String device, Integer port) {
    return cluster + "/" + node + "/" + device + "/" + port;
  }

  /** {@code cluster/node/netdev}, how a PFC (ethtool) sample names its port. */
  String netdevKey() {
    return rates.getCluster() + "/" + rates.getNode() + "/" + rates.getNetdev();
  }

  boolean active() {
    return ACTIVE.equals(rates.getState());
  }

  /** Width in lanes (4 for "4X"), or 0 when unknown. */
  int lanes() {
    return lanes(rates.getLinkWidth());
  }

  static int lanes(String width) {
    if (width == null || !width.matches("\\d+[xX]")) {
      return 0;
    }
    return Integer.parseInt(width.substring(0, width.length() - 1));
  }

  /**
   * The increase of {@code name} in this sample, 0 when none. Only deltas the rate stage tagged
   * normal or wrap count: clear, reboot, first, saturated and unavailable never do.
   */
  long increase(String name) {
    CounterRate r = counter(name);
    if (r == null || r.getDelta() == null || !counts(r.getTag())) {
      return 0;
    }
    return Math.max(0, r.getDelta());
  }

  /** Increase per second of {@code name}, 0 when it does not count (see {@link #increase}). */
  double perSecond(String name) {
    CounterRate r = counter(name);
    if (r == null || r.getPerSecond() == null || r.getDelta() == null || !counts(r.getTag())) {
      return 0;
    }
    return Math.max(0, r.getPerSecond());
  }

  static boolean counts(RateTag tag) {
    return tag == RateTag.normal || tag == RateTag.wrap;
  }

  CounterRate counter(String name) {
    for (CounterRate r : rates.getRates()) {
      if (r.getName().equals(name)) {
        return r;
      }
    }
    return null;
  }
}
