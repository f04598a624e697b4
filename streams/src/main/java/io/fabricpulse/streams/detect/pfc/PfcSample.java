package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Read access to the PFC counters of one fabric.rates record (source PFC, one netdev) by their
 * typed meaning (kind, direction, priority) that the rate stage attached, never by vendor name: an
 * mlx5 {@code rx_prio3_pause}, a legacy mlx5 {@code prio3_rx_pause} and an ice {@code
 * rx_priority_3_xoff.nic} are all (PFC_PAUSE, RX, 3). Only deltas the rate stage tagged {@code
 * normal} or {@code wrap} are usable: {@code clear} and {@code reboot} deltas are whole counter
 * values, {@code first}, {@code saturated} and {@code unavailable} have no delta, so none of them
 * may ever fire an alert.
 */
final class PfcSample {

  private static final double MICROS_PER_SECOND = 1e6;

  /** One counter's meaning; priority null for a port-wide counter. */
  record Meaning(CounterKind kind, CounterDirection direction, Integer priority) {}

  static final Meaning STORM_WARNING =
      new Meaning(CounterKind.PAUSE_STORM_WARNING, CounterDirection.TX, null);
  static final Meaning STORM_ERROR =
      new Meaning(CounterKind.PAUSE_STORM_ERROR, CounterDirection.TX, null);

  private final CounterRates record;
  private final Map<Meaning, CounterRate> byMeaning = new HashMap<>();
  private final SortedSet<Integer> priorities = new TreeSet<>();

  PfcSample(CounterRates record) {
    this.record = record;
    for (CounterRate r : record.getRates()) {
      if (r.getKind() == null) {
        continue;
      }
      byMeaning.putIfAbsent(new Meaning(r.getKind(), r.getDirection(), r.getPriority()), r);
      boolean pause =
          r.getKind() == CounterKind.PFC_PAUSE || r.getKind() == CounterKind.PFC_PAUSE_DURATION;
      if (pause && r.getPriority() != null) {
        priorities.add(r.getPriority());
      }
    }
  }

  CounterRates record() {
    return record;
  }

  /**
   * Priorities with per-priority pause counters (drivers create them only where PFC is enabled).
   */
  SortedSet<Integer> priorities() {
    return priorities;
  }

  /**
   * Fraction of the interval this port was paused (RX) or pausing (TX) on {@code prio}: per-second
   * pause duration in microseconds / 1e6 [K-ethdoc]. Empty on a NIC without a duration counter
   * (Intel ice counts XOFF/XON frames only).
   */
  OptionalDouble pauseRatio(CounterDirection dir, int prio) {
    CounterRate r = usable(pauseDuration(dir, prio));
    if (r == null || r.getPerSecond() == null) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(r.getPerSecond() / MICROS_PER_SECOND);
  }

  /** Pause (XOFF) frames in the interval on {@code prio}. */
  OptionalLong pauseFrames(CounterDirection dir, int prio) {
    return delta(pauseFrameMeaning(dir, prio));
  }

  static Meaning pauseFrameMeaning(CounterDirection dir, int prio) {
    return new Meaning(CounterKind.PFC_PAUSE, dir, prio);
  }

  static Meaning pauseDuration(CounterDirection dir, int prio) {
    return new Meaning(CounterKind.PFC_PAUSE_DURATION, dir, prio);
  }

  static Meaning priorityBytes(CounterDirection dir, int prio) {
    return new Meaning(CounterKind.PRIO_BYTES, dir, prio);
  }

  /**
   * The increase of the counter with this meaning in the interval, if the rate stage could tell.
   */
  OptionalLong delta(Meaning meaning) {
    CounterRate r = usable(meaning);
    return r == null || r.getDelta() == null ? OptionalLong.empty() : OptionalLong.of(r.getDelta());
  }

  OptionalDouble perSecond(Meaning meaning) {
    CounterRate r = usable(meaning);
    return r == null || r.getPerSecond() == null
        ? OptionalDouble.empty()
        : OptionalDouble.of(r.getPerSecond());
  }

  /** The driver's own name of the counter with this meaning, for evidence operators can grep. */
  Optional<String> rawName(Meaning meaning) {
    CounterRate r = byMeaning.get(meaning);
    return r == null ? Optional.empty() : Optional.of(r.getName());
  }

  private CounterRate usable(Meaning meaning) {
    CounterRate r = byMeaning.get(meaning);
    if (r == null) {
      return null;
    }
    return r.getTag() == RateTag.normal || r.getTag() == RateTag.wrap ? r : null;
  }
}
