package io.fabricpulse.streams.rates;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the rate stage remembers of one port (or netdev): its last accepted sample, as parallel
 * arrays of counter names and raw values. Counters that had no value are absent. Arrays rather than
 * a map because the next sample of a port nearly always lists the same counters in the same order,
 * so {@link #indexOf} finds a counter at its old position without hashing.
 */
public final class LastSample {

  private final long timeMs;
  private final String bootId;
  private final long seq;
  private final String[] names;
  private final long[] values;
  private Map<String, Integer> index;

  /**
   * @param timeMs event time (record timestamp) of the sample
   * @param names counter names, no duplicates
   * @param values raw value of each counter, unsigned (above 2^63-1 as its two's-complement long)
   */
  public LastSample(long timeMs, String bootId, long seq, String[] names, long[] values) {
    if (names.length != values.length) {
      throw new IllegalArgumentException(names.length + " names but " + values.length + " values");
    }
    this.timeMs = timeMs;
    this.bootId = bootId;
    this.seq = seq;
    this.names = names;
    this.values = values;
  }

  /** A sample from a name -> value map, in the map's iteration order. */
  public static LastSample of(long timeMs, String bootId, long seq, Map<String, Long> values) {
    String[] names = new String[values.size()];
    long[] raw = new long[values.size()];
    int i = 0;
    for (Map.Entry<String, Long> entry : values.entrySet()) {
      names[i] = entry.getKey();
      raw[i++] = entry.getValue();
    }
    return new LastSample(timeMs, bootId, seq, names, raw);
  }

  public long timeMs() {
    return timeMs;
  }

  public String bootId() {
    return bootId;
  }

  public long seq() {
    return seq;
  }

  public int size() {
    return names.length;
  }

  public String name(int i) {
    return names[i];
  }

  public long value(int i) {
    return values[i];
  }

  /** Position of {@code name}, trying {@code hint} first; -1 when the sample did not have it. */
  public int indexOf(String name, int hint) {
    if (hint >= 0 && hint < names.length && names[hint].equals(name)) {
      return hint;
    }
    if (index == null) {
      Map<String, Integer> built = new HashMap<>(names.length * 2);
      for (int i = 0; i < names.length; i++) {
        built.put(names[i], i);
      }
      index = built;
    }
    Integer at = index.get(name);
    return at == null ? -1 : at;
  }

  /** The previous reading of one counter, or null if the sample did not have it. */
  public CounterReading reading(String counter) {
    int i = indexOf(counter, -1);
    return i < 0 ? null : new CounterReading(values[i], timeMs, bootId);
  }

  /** Name -> value, in sample order. */
  public Map<String, Long> values() {
    Map<String, Long> map = new LinkedHashMap<>(names.length * 2);
    for (int i = 0; i < names.length; i++) {
      map.put(names[i], values[i]);
    }
    return map;
  }

  /** Equal when time, boot, seq and the same name -> value pairs (in any order) are equal. */
  @Override
  public boolean equals(Object o) {
    return o instanceof LastSample other
        && timeMs == other.timeMs
        && seq == other.seq
        && bootId.equals(other.bootId)
        && values().equals(other.values());
  }

  @Override
  public int hashCode() {
    return Long.hashCode(timeMs) * 31 + values().hashCode();
  }

  @Override
  public String toString() {
    return "LastSample[time="
        + timeMs
        + ", boot="
        + bootId
        + ", seq="
        + seq
        + ", counters="
        + Arrays.toString(names)
        + "]";
  }
}
