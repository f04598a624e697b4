package io.fabricpulse.collectors.ethtool;

/**
 * One {@code ethtool -S} line: the counter name exactly as the driver prints it and its value.
 *
 * @param value the driver's u64, stored as its two's-complement long (a value above 2^63-1 is
 *     negative here; read it with {@link Long#toUnsignedString(long)}), as the Avro {@code
 *     Counter.value} contract says
 * @param line 1-based line number in the text it was parsed from
 */
public record EthtoolStat(String name, long value, long line) {}
