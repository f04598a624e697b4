package io.fabricpulse.schemas.counters;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;

/**
 * What one raw counter name means, whatever the driver calls it: the values the rate stage writes
 * into {@code CounterRate.kind}, {@code direction} and {@code priority}, and the unit of its delta.
 *
 * @param direction RX or TX seen from this port; null for a counter without one
 * @param priority 802.1p priority 0..7 for per-priority counters, null otherwise
 * @param unit unit of the counter's delta: packets, bytes, microseconds or events
 */
public record CounterMeaning(
    CounterKind kind, CounterDirection direction, Integer priority, String unit) {}
