package io.fabricpulse.streams.detect.link;

/**
 * The established value of a port's speed or width, learnt from its ACTIVE samples:
 *
 * <ul>
 *   <li>the first ACTIVE value establishes it;
 *   <li>a higher value becomes established once it has been held for the settle time, or at once
 *       when the port had established that value (or a higher one) before: it is back at a speed it
 *       has proven;
 *   <li>a lower value is the degradation to report, until it has been held on every ACTIVE sample
 *       for the re-establish time: then the port runs slower on purpose and the lower value becomes
 *       established ({@link Change#LOWERED}).
 * </ul>
 *
 * A sample that is not ACTIVE interrupts the run of a candidate value ({@link #interrupt}).
 */
final class EstablishedValue {

  static final double NONE = 0;

  /** What one sample did to the established value. */
  enum Change {
    UNCHANGED,
    RAISED,
    LOWERED
  }

  double value = NONE;

  /** A value different from the established one, held on every ACTIVE sample since then. */
  double candidate = NONE;

  long candidateSince;

  /** The highest value ever established: returning to it (or below it) needs no settle time. */
  double highest = NONE;

  boolean known() {
    return value > NONE;
  }

  boolean below(double current) {
    return known() && current > NONE && current < value;
  }

  /** Learns from one ACTIVE sample's value (0 = unknown, which changes nothing). */
  Change observe(double current, long time, long settleMs, long reestablishMs) {
    if (current <= NONE) {
      return Change.UNCHANGED;
    }
    if (!known()) {
      value = current;
      highest = Math.max(highest, current);
      return Change.UNCHANGED;
    }
    if (current == value) {
      candidate = NONE;
      return Change.UNCHANGED;
    }
    boolean higher = current > value;
    if (higher && current <= highest) {
      return establish(current, Change.RAISED);
    }
    if (candidate != current) {
      candidate = current;
      candidateSince = time;
    }
    if (time - candidateSince >= (higher ? settleMs : reestablishMs)) {
      return establish(current, higher ? Change.RAISED : Change.LOWERED);
    }
    return Change.UNCHANGED;
  }

  /** A sample that is not ACTIVE: a candidate must be held again from its next ACTIVE sample. */
  void interrupt() {
    candidate = NONE;
  }

  private Change establish(double current, Change change) {
    value = current;
    highest = Math.max(highest, current);
    candidate = NONE;
    return change;
  }
}
