package io.fabricpulse.streams.rates;

/**
 * One counter value as the rate stage remembers or receives it.
 *
 * @param value raw value as read (unsigned; above 2^63-1 as its two's-complement long); null when
 *     the device reported no value
 * @param timeMs sample time (event time), ms since the epoch
 * @param bootId kernel boot id of the node at sample time
 */
public record CounterReading(Long value, long timeMs, String bootId) {}
