package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.schemas.counters.CounterMeaning;
import io.fabricpulse.schemas.counters.CounterMeanings;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Every counter rule of the rate stage in one place (docs/counters.md): widths, wraps, saturation,
 * clears, reboots and units. Pure: the same readings always give the same answer.
 *
 * <p>Decision order for one counter:
 *
 * <ol>
 *   <li>{@code unavailable}: the current value is null (e.g. "N/A (no PMA)" [K-sysfs]).
 *   <li>{@code saturated}: a PMA counter narrower than 64 bits reads all ones. Optional IB PM
 *       counters "stop at a count of all ones" rather than wrap [IBbook], so the real rate is
 *       unknown (null), not zero. This also covers a counter that was already saturated before.
 *   <li>{@code first}: there is no previous value for the counter.
 *   <li>{@code reboot}: the boot id changed, every counter restarted from zero: delta = current.
 *   <li>{@code normal}: current >= previous (unsigned).
 *   <li>{@code wrap}: current < previous for an mlx5 32-bit q counter (group HW_COUNTERS, width 32,
 *       read with be32_to_cpu [K-mlx5cnt]); delta = current + 2^32 - previous, accepted only when
 *       plausible (below {@code wrapPlausibleFraction} of the range, half by default: a counter
 *       that moved more than 2^31 in one interval is far likelier to have been reset).
 *   <li>{@code clear}: any other decrease without reboot (perfquery -R, OpenSM PerfMgr clears, a
 *       driver reset): delta = current value, as NVSentinel does [NVS-046]. PMA counters saturate
 *       and never wrap [IBbook], and 64-bit counters do not wrap in practice.
 * </ol>
 */
public final class CounterSemantics {

  public static final String BYTES = "bytes";
  public static final String PACKETS = "packets";
  public static final String EVENTS = "events";
  public static final String MICROSECONDS = "microseconds";
  public static final String TICKS = "ticks";

  /** Default share of the 2^32 range below which a corrected wrap delta is believed. */
  public static final double DEFAULT_WRAP_PLAUSIBLE_FRACTION = 0.5;

  /** Counters that count octets divided by 4 [PQ][procfs], in every source that reports them. */
  private static final Set<String> OCTETS_DIV_4 =
      Set.of(
          "port_xmit_data",
          "port_rcv_data",
          "port_xmit_data_64",
          "port_rcv_data_64",
          "PortXmitData",
          "PortRcvData");

  private static final long TWO_POW_32 = 1L << 32;

  private final double wrapPlausibleFraction;

  public CounterSemantics(double wrapPlausibleFraction) {
    if (!(wrapPlausibleFraction > 0 && wrapPlausibleFraction <= 1)) {
      throw new IllegalArgumentException(
          "wrapPlausibleFraction must be in (0, 1], got " + wrapPlausibleFraction);
    }
    this.wrapPlausibleFraction = wrapPlausibleFraction;
  }

  public static CounterSemantics defaults() {
    return new CounterSemantics(DEFAULT_WRAP_PLAUSIBLE_FRACTION);
  }

  /**
   * Delta and rate of one counter.
   *
   * @param previous the last accepted reading of this counter, or null if there is none
   * @param current the reading of this sample
   */
  public CounterDelta derive(CounterId counter, CounterReading previous, CounterReading current) {
    return derive(profileOf(counter), previous, current);
  }

  /**
   * What the rules below need to know of one counter identity, worked out once: the rate stage
   * caches a profile per identity instead of classifying the name on every sample.
   *
   * @param meaning typed meaning from {@link #meaningOf}, or null
   */
  public record Profile(
      CounterId id,
      String unit,
      long scale,
      boolean saturates,
      boolean wraps,
      CounterMeaning meaning) {}

  public static Profile profileOf(CounterId counter) {
    return new Profile(
        counter,
        unitOf(counter),
        scaleOf(counter.name()),
        saturates(counter),
        wraps(counter),
        meaningOf(counter).orElse(null));
  }

  /** {@link #derive(CounterId, CounterReading, CounterReading)} with a cached profile. */
  public CounterDelta derive(Profile counter, CounterReading previous, CounterReading current) {
    String unit = counter.unit();
    Long value = current.value();
    if (value == null) {
      return new CounterDelta(null, null, unit, RateTag.unavailable);
    }
    if (counter.saturates() && value == allOnes(counter.id().width())) {
      return new CounterDelta(null, null, unit, RateTag.saturated);
    }
    if (previous == null || previous.value() == null) {
      return new CounterDelta(null, null, unit, RateTag.first);
    }
    long intervalMs = current.timeMs() - previous.timeMs();
    if (!current.bootId().equals(previous.bootId())) {
      return scaled(counter, value, intervalMs, RateTag.reboot);
    }
    long prev = previous.value();
    if (Long.compareUnsigned(value, prev) >= 0) {
      return scaled(counter, value - prev, intervalMs, RateTag.normal);
    }
    if (counter.wraps()) {
      long corrected = value + TWO_POW_32 - prev;
      if (corrected > 0 && corrected < wrapPlausibleFraction * TWO_POW_32) {
        return scaled(counter, corrected, intervalMs, RateTag.wrap);
      }
    }
    return scaled(counter, value, intervalMs, RateTag.clear);
  }

  /** mlx5 q counters: 32-bit, read with be32_to_cpu, so they wrap [K-mlx5cnt]. */
  public static boolean wraps(CounterId counter) {
    return counter.group() == CounterGroup.HW_COUNTERS && counter.width() == 32;
  }

  /**
   * IB PMA counters (sysfs counters/ and perfquery) narrower than 64 bits stop at all ones
   * [IBbook][K-sysfs].
   */
  public static boolean saturates(CounterId counter) {
    boolean pma =
        counter.group() == CounterGroup.COUNTERS || counter.group() == CounterGroup.PERFQUERY;
    return pma && counter.width() > 0 && counter.width() < 64;
  }

  /** Multiplier from the raw unit to {@link #unitOf}: 4 for octets/4 counters [PQ], else 1. */
  public static long scaleOf(String name) {
    return OCTETS_DIV_4.contains(name) ? 4 : 1;
  }

  /**
   * The meaning of an ethtool or hw_counters counter ({@link CounterMeanings}, the one classifier
   * of vendor names); empty for the IB PMA counters and for names no table knows.
   */
  public static Optional<CounterMeaning> meaningOf(CounterId counter) {
    if (counter.group() == CounterGroup.ETHTOOL || counter.group() == CounterGroup.HW_COUNTERS) {
      return CounterMeanings.of(counter.name());
    }
    return Optional.empty();
  }

  /**
   * Unit of a counter's delta: from its kind when {@link #meaningOf} knows it (pause durations are
   * microseconds whatever the driver calls them), otherwise from the name ({@link
   * #unitOf(String)}).
   */
  public static String unitOf(CounterId counter) {
    return meaningOf(counter).map(CounterMeaning::unit).orElseGet(() -> unitOf(counter.name()));
  }

  /**
   * Unit of a counter's delta by name, for the counters without a classified meaning (IB PMA and
   * the rest of hw_counters). Data counters are bytes (octets/4 x 4 [PQ]); *_pause_duration is
   * microseconds [K-ethdoc]; port_xmit_wait counts ticks [K-sysfs]; packet counters and pause
   * frames are packets; everything else counts events.
   */
  public static String unitOf(String name) {
    if (OCTETS_DIV_4.contains(name)) {
      return BYTES;
    }
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.endsWith("_pause_duration")) {
      return MICROSECONDS;
    }
    if (lower.equals("port_xmit_wait") || lower.equals("portxmitwait")) {
      return TICKS;
    }
    // ethtool byte counters (rx_bytes, rx_prio0_bytes, rx_bytes_phy) are plain octets [K-ethdoc].
    if (lower.contains("bytes")) {
      return BYTES;
    }
    if (lower.contains("packets")
        || lower.endsWith("pkts")
        || lower.endsWith("_pause")
        || lower.contains("_pause_ctrl")) {
      return PACKETS;
    }
    return EVENTS;
  }

  private static long allOnes(int width) {
    return width >= 64 ? -1L : (1L << width) - 1;
  }

  private static CounterDelta scaled(Profile counter, long rawDelta, long intervalMs, RateTag tag) {
    if (rawDelta < 0) {
      // An unsigned delta of 2^63 or more in one interval is not a counter moving; refuse loudly.
      throw new ArithmeticException(
          counter.id().name() + ": delta " + Long.toUnsignedString(rawDelta) + " exceeds 2^63-1");
    }
    long delta = Math.multiplyExact(rawDelta, counter.scale());
    Double perSecond = intervalMs > 0 ? delta * 1000.0 / intervalMs : null;
    return new CounterDelta(delta, perSecond, counter.unit(), tag);
  }
}
