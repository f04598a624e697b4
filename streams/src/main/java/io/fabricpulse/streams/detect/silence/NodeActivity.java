package io.fabricpulse.streams.detect.silence;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * When one node last reported, per rate source (PORT, PFC, ECN, ...), when that was heard (the
 * clock of that source in the partition at that moment), and the recent spacing of its samples,
 * from which its own sampling interval is learned.
 */
record NodeActivity(Map<String, SourceActivity> sources) {

  /**
   * One source of a node.
   *
   * @param lastSeen event time of its latest sample
   * @param heardAt the source's partition clock (its latest rates time there) when that sample
   *     arrived: at least lastSeen, more when the node trails the others of its partition
   * @param intervals the rate stage's interval_ms of its latest samples, oldest first
   */
  record SourceActivity(long lastSeen, long heardAt, List<Long> intervals) {

    SourceActivity {
      intervals = List.copyOf(intervals);
    }

    /** The median of the last {@code samples} intervals, or {@code fallback} before any. */
    long interval(int samples, long fallback) {
      if (intervals.isEmpty()) {
        return fallback;
      }
      List<Long> recent =
          new ArrayList<>(
              intervals.subList(Math.max(0, intervals.size() - samples), intervals.size()));
      recent.sort(null);
      int n = recent.size();
      return n % 2 == 1 ? recent.get(n / 2) : (recent.get(n / 2 - 1) + recent.get(n / 2)) / 2;
    }
  }

  static final NodeActivity NONE = new NodeActivity(Map.of());

  NodeActivity {
    sources = Map.copyOf(new TreeMap<>(sources));
  }

  /**
   * This activity after a sample of {@code source} at {@code time}, arriving when the partition's
   * clock is {@code heardAt}; {@code intervalMs} (null on a subject's first sample) joins the last
   * {@code keep} intervals. An older sample changes nothing.
   */
  NodeActivity seen(String source, long time, long heardAt, Long intervalMs, int keep) {
    SourceActivity before = sources.get(source);
    if (before != null && time <= before.lastSeen()) {
      return this;
    }
    List<Long> intervals = new ArrayList<>(before == null ? List.of() : before.intervals());
    if (intervalMs != null && intervalMs > 0) {
      intervals.add(intervalMs);
    }
    while (intervals.size() > keep) {
      intervals.remove(0);
    }
    Map<String, SourceActivity> next = new TreeMap<>(sources);
    next.put(source, new SourceActivity(time, Math.max(time, heardAt), intervals));
    return new NodeActivity(next);
  }

  /** Binary form for the store and its changelog. */
  static final class NodeActivitySerde implements Serde<NodeActivity> {
    private static final byte VERSION = 2;

    @Override
    public Serializer<NodeActivity> serializer() {
      return (topic, a) -> a == null ? null : write(a);
    }

    @Override
    public Deserializer<NodeActivity> deserializer() {
      return (topic, bytes) -> bytes == null ? null : read(bytes);
    }

    private static byte[] write(NodeActivity a) {
      try {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(VERSION);
        out.writeInt(a.sources().size());
        for (Map.Entry<String, SourceActivity> e : a.sources().entrySet()) {
          out.writeUTF(e.getKey());
          out.writeLong(e.getValue().lastSeen());
          out.writeLong(e.getValue().heardAt());
          out.writeInt(e.getValue().intervals().size());
          for (long interval : e.getValue().intervals()) {
            out.writeLong(interval);
          }
        }
        out.flush();
        return bytes.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static NodeActivity read(byte[] data) {
      try {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
        byte version = in.readByte();
        if (version != VERSION) {
          throw new IllegalStateException("unknown node activity version " + version);
        }
        int n = in.readInt();
        Map<String, SourceActivity> sources = new TreeMap<>();
        for (int i = 0; i < n; i++) {
          String source = in.readUTF();
          long lastSeen = in.readLong();
          long heardAt = in.readLong();
          int m = in.readInt();
          List<Long> intervals = new ArrayList<>(m);
          for (int j = 0; j < m; j++) {
            intervals.add(in.readLong());
          }
          sources.put(source, new SourceActivity(lastSeen, heardAt, intervals));
        }
        return new NodeActivity(sources);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
