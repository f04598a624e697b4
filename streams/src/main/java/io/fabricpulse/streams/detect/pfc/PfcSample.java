package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Read access to the PFC counters of one fabric.rates record (source PFC, one netdev). Only deltas
 * the rate stage tagged {@code normal} or {@code wrap} are usable: {@code clear} and {@code reboot}
 * deltas are whole counter values, {@code first}, {@code saturated} and {@code unavailable} have no
 * delta, so none of them may ever fire an alert.
 */
final class PfcSample {

  static final String STORM_WARNING = "tx_pause_storm_warning_events";
  static final String STORM_ERROR = "tx_pause_storm_error_events";
  private static final Pattern PRIO = Pattern.compile("(rx|tx)_prio([0-7])_pause(_duration)?");
  private static final double MICROS_PER_SECOND = 1e6;

  /** Direction of pause frames as seen by this port. */
  enum Direction {
    /** Pause frames received: this port was told to stop sending (it is paused). */
    RX,
    /** Pause frames sent: this port told its peer to stop (it is pausing). */
    TX;

    String prefix() {
      return this == RX ? "rx" : "tx";
    }
  }

  private final CounterRates record;
  private final Map<String, CounterRate> byName = new HashMap<>();
  private final SortedSet<Integer> priorities = new TreeSet<>();

  PfcSample(CounterRates record) {
    this.record = record;
    for (CounterRate r : record.getRates()) {
      byName.put(r.getName(), r);
      Matcher m = PRIO.matcher(r.getName());
      if (m.matches()) {
        priorities.add(Integer.parseInt(m.group(2)));
      }
    }
  }

  CounterRates record() {
    return record;
  }

  /** Priorities with per-priority pause counters (mlx5 creates them only where PFC is enabled). */
  SortedSet<Integer> priorities() {
    return priorities;
  }

  /**
   * Fraction of the interval this port was paused (RX) or pausing (TX) on {@code prio}: per-second
   * {@code <dir>_prio<N>_pause_duration} in microseconds / 1e6 [K-ethdoc].
   */
  OptionalDouble pauseRatio(Direction dir, int prio) {
    CounterRate r = usable(dir.prefix() + "_prio" + prio + "_pause_duration");
    if (r == null || r.getPerSecond() == null) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(r.getPerSecond() / MICROS_PER_SECOND);
  }

  /** Pause frames in the interval on {@code prio}. */
  OptionalLong pauseFrames(Direction dir, int prio) {
    return delta(dir.prefix() + "_prio" + prio + "_pause");
  }

  /** The increase of a counter in the interval, if the rate stage could tell it. */
  OptionalLong delta(String counter) {
    CounterRate r = usable(counter);
    return r == null || r.getDelta() == null ? OptionalLong.empty() : OptionalLong.of(r.getDelta());
  }

  OptionalDouble perSecond(String counter) {
    CounterRate r = usable(counter);
    return r == null || r.getPerSecond() == null
        ? OptionalDouble.empty()
        : OptionalDouble.of(r.getPerSecond());
  }

  /** Whether the sample has the counter at all (whatever its tag). */
  boolean has(String counter) {
    return byName.containsKey(counter);
  }

  private CounterRate usable(String counter) {
    CounterRate r = byName.get(counter);
    if (r == null) {
      return null;
    }
    return r.getTag() == RateTag.normal || r.getTag() == RateTag.wrap ? r : null;
  }
}
