package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.RateSource;
import java.util.EnumSet;
import java.util.Set;

/**
 * Options of the rate stage.
 *
 * @param sources which raw topics to read (PERFQUERY: fabric.raw.switch-counters)
 * @param wrapPlausibleFraction a decrease of a wrapping 32-bit counter is a wrap only if the
 *     corrected delta is below this share of 2^32; otherwise it is a clear (see {@link
 *     CounterSemantics})
 */
public record RateConfig(Set<RateSource> sources, double wrapPlausibleFraction) {

  public RateConfig {
    if (sources == null || sources.isEmpty()) {
      throw new IllegalArgumentException("rates: at least one source is needed");
    }
    sources = Set.copyOf(sources);
    new CounterSemantics(wrapPlausibleFraction); // validates the fraction
  }

  /** Port counters, PFC, ECN and switch ports; wraps believed below half the 32-bit range. */
  public static RateConfig defaults() {
    return new RateConfig(
        EnumSet.of(RateSource.PORT, RateSource.PFC, RateSource.ECN, RateSource.PERFQUERY),
        CounterSemantics.DEFAULT_WRAP_PLAUSIBLE_FRACTION);
  }
}
