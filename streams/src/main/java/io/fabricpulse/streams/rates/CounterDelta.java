package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.RateTag;

/**
 * The outcome for one counter between two samples.
 *
 * @param delta increase in {@code unit} (bytes already multiplied by 4 for octets/4 counters); null
 *     when unknown
 * @param perSecond delta per second of event time; null when unknown
 * @param unit bytes, packets, events, microseconds or ticks
 * @param tag how the delta was obtained
 */
public record CounterDelta(Long delta, Double perSecond, String unit, RateTag tag) {}
