package io.fabricpulse.streams.alerts;

import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The event-time clock of each node of a partition: the latest sample time seen from it. A per-node
 * detector judges a node's subjects at the node's own clock, not at the partition's stream time:
 * nodes sharing a partition can trail one another (a collector that buffered while the broker was
 * away, a node caught up in a burst), and stream time, driven by the node furthest ahead, would
 * make a trailing node's port look down, clean or forgotten too early.
 *
 * <p>Kept in a (changelogged) store keyed {@code cluster/node}, so a restart judges alike.
 */
public final class NodeClocks {

  private final KeyValueStore<String, Long> store;

  public NodeClocks(KeyValueStore<String, Long> store) {
    this.store = store;
  }

  /** Moves the node's clock to {@code time} if that is later; returns the node's clock. */
  public long advance(String cluster, String node, long time) {
    String key = cluster + "/" + node;
    Long clock = store.get(key);
    if (clock == null || time > clock) {
      store.put(key, time);
      return time;
    }
    return clock;
  }

  /**
   * The clock of the node of an {@link AlertSubject#key()} ({@code cluster/node/...}), or {@code
   * fallback} for a subject without a node or a node not seen yet.
   */
  public long nowOf(String subjectKey, long fallback) {
    int first = subjectKey.indexOf('/');
    if (first < 0) {
      return fallback;
    }
    int second = subjectKey.indexOf('/', first + 1);
    String node = second < 0 ? subjectKey : subjectKey.substring(0, second);
    Long clock = store.get(node);
    return clock == null ? fallback : Math.min(clock, fallback);
  }
}
