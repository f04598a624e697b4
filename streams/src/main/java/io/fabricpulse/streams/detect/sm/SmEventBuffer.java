package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.streams.alerts.Lineage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The SM records of each cluster that the low watermark ({@link SmSourceClocks}) has not reached
 * yet, kept in a store ordered by event time.
 *
 * <p>Key {@code <cluster>|<event time, 19 digits>|<node>|<source>|<seq, 19 digits>|<line hash>}:
 * the store iterates keys in byte order, so one cluster's records come out by event time, ties
 * broken by node, source and the collector's sequence number - the same order whatever order they
 * arrived in. The hash of the raw line keeps two lines apart that share a sequence number (a
 * restarted collector numbers from 0 again); a record delivered twice has the same key and is kept
 * once.
 */
final class SmEventBuffer {

  private static final StringSerializer KEYS = new StringSerializer();

  private final KeyValueStore<String, BufferedSmEvent> store;

  SmEventBuffer(KeyValueStore<String, BufferedSmEvent> store) {
    this.store = store;
  }

  void add(SmSweep r, Lineage lineage) {
    store.put(key(r), new BufferedSmEvent(r, lineage));
  }

  /** Removes and returns the cluster's records of event time {@code <= watermark}, in order. */
  List<BufferedSmEvent> releaseUpTo(String cluster, long watermark) {
    List<KeyValue<String, BufferedSmEvent>> due = new ArrayList<>();
    try (KeyValueIterator<String, BufferedSmEvent> it = store.prefixScan(cluster + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, BufferedSmEvent> e = it.next();
        if (e.value.time() > watermark) {
          break;
        }
        due.add(e);
      }
    }
    List<BufferedSmEvent> released = new ArrayList<>(due.size());
    for (KeyValue<String, BufferedSmEvent> e : due) {
      store.delete(e.key);
      released.add(e.value);
    }
    return released;
  }

  static String key(SmSweep r) {
    return String.format(
        Locale.ROOT,
        "%s|%019d|%s|%s|%019d|%08x",
        r.getCluster(),
        r.getTime().toEpochMilli(),
        r.getNode(),
        r.getSource(),
        r.getSeq(),
        r.getRawLine().hashCode());
  }
}
