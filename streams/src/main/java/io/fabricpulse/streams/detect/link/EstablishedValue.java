package io.fabricpulse.streams.detect.link;

/**
 * The established value of a port's speed or width: the first value seen while ACTIVE, raised to a
 * higher value once that has been held (while ACTIVE) for the settle time. A lower value never
 * lowers it: that is exactly the degradation to report.
 */
final class EstablishedValue {

  static final double NONE = 0;

  double value = NONE;
  double candidate = NONE;
  long candidateSince;

  boolean known() {
    return value > NONE;
  }

  boolean below(double current) {
    return known() && current > NONE && current < value;
  }

  /** Learns from one ACTIVE sample's value (0 = unknown). */
  void observe(double current, long time, long settleMs) {
    if (current <= NONE) {
      return;
    }
    if (!known()) {
      value = current;
      return;
    }
    if (current <= value) {
      candidate = NONE;
      return;
    }
    if (candidate != current) {
      candidate = current;
      candidateSince = time;
    }
    if (time - candidateSince >= settleMs) {
      value = current;
      candidate = NONE;
    }
  }
}
