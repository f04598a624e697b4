package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.CounterGroup;

/**
 * What the rate stage needs to know about a counter besides its value.
 *
 * @param width declared width in bits (4, 8, 16, 32 or 64)
 */
public record CounterId(String name, CounterGroup group, int width) {}
