package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.streams.alerts.Lineage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Storm records the propagation stage has received but not judged yet, in event-time order: key
 * {@code <time, 13 digits>|<source>|<topic>|<partition>|<offset, 19 digits>|<page>}. Records of one
 * time sort by sending task and, within it, in the order it sent them, so the order never depends
 * on how the tasks' records interleaved on arrival. A record received twice (a replay) has the same
 * key. Changelogged: a restart judges what was pending before it.
 */
final class PendingStorms {

  /** One received storm record. */
  record Pending(String key, long time, StormPage page, Alert alert, Lineage lineage) {}

  private final KeyValueStore<String, Alert> store;

  PendingStorms(KeyValueStore<String, Alert> store) {
    this.store = store;
  }

  void add(long time, String source, Lineage lineage, StormPage page, Alert alert) {
    String key =
        String.format(
            Locale.ROOT,
            "%013d|%s|%s|%d|%019d|%s",
            time,
            source,
            lineage.topic(),
            lineage.partition() == null ? -1 : lineage.partition(),
            lineage.offset() == null ? -1 : lineage.offset(),
            page.name());
    store.put(key, alert);
  }

  /** The records of time {@code <= watermark}, oldest first; they stay until {@link #done}. */
  List<Pending> upTo(long watermark) {
    List<Pending> out = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it = store.all()) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        String[] f = e.key.split("\\|", -1);
        long time = Long.parseLong(f[0]);
        if (time > watermark) {
          break; // keys sort by time
        }
        int partition = Integer.parseInt(f[3]);
        long offset = Long.parseLong(f[4]);
        Lineage lineage =
            "null".equals(f[2])
                ? Lineage.NONE
                : new Lineage(f[2], partition < 0 ? null : partition, offset < 0 ? null : offset);
        out.add(new Pending(e.key, time, StormPage.valueOf(f[5]), e.value, lineage));
      }
    }
    return out;
  }

  void done(Pending p) {
    store.delete(p.key());
  }
}
