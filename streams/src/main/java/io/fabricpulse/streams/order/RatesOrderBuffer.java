package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.RateSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The fabric.rates records of each node that its low watermark ({@link NodeSourceClocks}) has not
 * reached yet, kept in a store ordered by event time.
 *
 * <p>Key {@code <cluster/node>|<event time, 19 digits>|<source>|<device>|<port>|<netdev>|<seq, 19
 * digits>}: the store iterates keys in byte order, so one node's records come out by event time,
 * ties broken by source, port and the collector's sequence number - the same order whatever order
 * they arrived in. A record delivered twice has the same key and is kept once. A {@link NodeRates}
 * (all ports of one node cycle of one source) is one entry, its device, port and netdev empty; a
 * 0.1 {@link CounterRates} (one port) names its port.
 */
final class RatesOrderBuffer {

  private static final StringSerializer KEYS = new StringSerializer();

  private final KeyValueStore<String, BufferedRates> store;

  RatesOrderBuffer(KeyValueStore<String, BufferedRates> store) {
    this.store = store;
  }

  void add(String node, BufferedRates rates) {
    store.put(key(node, rates.record()), rates);
  }

  /**
   * Removes and returns the node's records of event time {@code <= watermark} with {@code arriving}
   * (a record of that node at or below the watermark, or null) in its place among them: the same
   * order as adding it first, without writing it to the store and reading it back. A node whose
   * sources are all in step (one source, or all at the same time) never puts a record in the store.
   * A buffered record with the same key (delivered twice) gives way to the arriving one.
   */
  List<BufferedRates> releaseUpTo(String node, long watermark, BufferedRates arriving) {
    String arrivingKey = arriving == null ? null : key(node, arriving.record());
    List<BufferedRates> released = new ArrayList<>();
    List<String> due = new ArrayList<>();
    try (KeyValueIterator<String, BufferedRates> it = store.prefixScan(node + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, BufferedRates> e = it.next();
        if (e.value.time() > watermark) {
          break;
        }
        due.add(e.key);
        if (arrivingKey != null) {
          int order = e.key.compareTo(arrivingKey);
          if (order >= 0) {
            released.add(arriving);
            arrivingKey = null;
            if (order == 0) {
              continue; // the same record again: the arriving copy only
            }
          }
        }
        released.add(e.value);
      }
    }
    if (arrivingKey != null) {
      released.add(arriving);
    }
    for (String key : due) {
      store.delete(key);
    }
    return released;
  }

  /**
   * {@code node|time|source|device|port|netdev|seq}, numbers zero-padded so that the store's byte
   * order is event-time order (what {@code %019d} and {@code %05d} would print; built by hand, as
   * this runs for every record).
   */
  static String key(String node, SpecificRecord record) {
    if (record instanceof NodeRates n) {
      return key(node, n.getTime(), n.getSource(), null, null, null, n.getSeq());
    }
    CounterRates r = (CounterRates) record;
    return key(
        node, r.getTime(), r.getSource(), r.getDevice(), r.getPort(), r.getNetdev(), r.getSeq());
  }

  private static String key(
      String node,
      Instant time,
      RateSource source,
      String device,
      Integer port,
      String netdev,
      long seq) {
    StringBuilder key = new StringBuilder(node.length() + 96);
    key.append(node).append('|');
    zeroPadded(key, time.toEpochMilli(), 19).append('|');
    key.append(source).append('|');
    key.append(Objects.toString(device, "")).append('|');
    if (port != null) {
      zeroPadded(key, port, 5);
    }
    key.append('|').append(Objects.toString(netdev, "")).append('|');
    return zeroPadded(key, seq, 19).toString();
  }

  /** Appends {@code value} as {@code String.format("%0<width>d")} does. */
  static StringBuilder zeroPadded(StringBuilder out, long value, int width) {
    String digits = Long.toString(value);
    int start = 0;
    if (value < 0) {
      out.append('-');
      start = 1;
      width--;
    }
    for (int i = digits.length() - start; i < width; i++) {
      out.append('0');
    }
    return out.append(digits, start, digits.length());
  }
}
