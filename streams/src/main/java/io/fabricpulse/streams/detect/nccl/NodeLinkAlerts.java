package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.detect.link.LinkProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The link alerts of each node, for the evidence of an NCCL_ERROR on that node, in event time and
 * independent of arrival order.
 *
 * <p>The link detector shares its alerts and, per node, progress markers ({@link LinkProgress}):
 * every link alert of a node raised up to a marker's time arrives before the marker, in the one
 * partition of the node. So an NCCL_ERROR of a line at time T waits ({@link #hold}) until the
 * node's link clock has reached T + {@link #GRACE}, and is then sent with the link alerts the link
 * detector had raised on the node by then and that had not resolved more than the rule's
 * link_window before T. A line that arrives when the node's link clock is already past T + GRACE
 * gets the same alerts: the choice reads only alerts raised by T + GRACE (by the time each was
 * raised, kept in its store key) and their resolved_at, never what arrived later.
 *
 * <p>A node the link detector has never marked (its host name is not a node name the collectors
 * report, or it has no RDMA port) cannot be waited for: its NCCL_ERROR goes out, without link
 * alerts, once the NCCL task's stream time is past T + GRACE. A node whose link side has stalled
 * (its collector stopped) holds an NCCL_ERROR for {@link #STALLED_AFTER} of stream time at most.
 *
 * <p>Stores (changelogged): {@link NcclTransportDetector#NODE_LINK_ALERTS_STORE} key {@code
 * cluster/node|alert_id|raised at (13 digits)}, value the alert's latest record, a resolved one
 * kept for {@link #KEEP_RESOLVED} of the node's link clock; {@link
 * NcclTransportDetector#NODE_LINK_CLOCK_STORE} key {@code cluster/node}, the latest marker's time;
 * {@link NcclTransportDetector#HELD_ERRORS_STORE} key {@code due (13 digits)|cluster/node|alert_id|
 * 1 FIRING or 2 RESOLVED}, the NCCL_ERROR records waiting, in due order.
 */
public final class NodeLinkAlerts {

  /**
   * How far past an NCCL failure line the node's link alerts are waited for (stream time); offline
   * {@code detect} advances at least this far at the end of its input so held errors come out.
   */
  public static final Duration GRACE = Duration.ofSeconds(30);

  /** A node whose link clock has not reached a held error this long past its due time stalled. */
  static final Duration STALLED_AFTER = Duration.ofMinutes(10);

  /** How long a resolved link alert stays known (of the node's link clock). */
  static final Duration KEEP_RESOLVED = Duration.ofHours(1);

  private static final StringSerializer KEYS = new StringSerializer();

  /** An NCCL_ERROR record whose wait is over, with the link alerts it attaches. */
  record Released(Alert alert, long timestamp) {}

  private final KeyValueStore<String, Alert> linkAlerts;
  private final KeyValueStore<String, Long> linkClocks;
  private final KeyValueStore<String, Alert> held;
  private final Map<String, Long> linkWindowOfRule;

  NodeLinkAlerts(
      KeyValueStore<String, Alert> linkAlerts,
      KeyValueStore<String, Long> linkClocks,
      KeyValueStore<String, Alert> held,
      Map<String, Long> linkWindowOfRule) {
    this.linkAlerts = linkAlerts;
    this.linkClocks = linkClocks;
    this.held = held;
    this.linkWindowOfRule = Map.copyOf(linkWindowOfRule);
  }

  /** A link alert record of node {@code nodeKey} the link detector raised at {@code raisedAt}. */
  void remember(String nodeKey, Alert alert, long raisedAt) {
    String prefix = nodeKey + "|" + alert.getAlertId() + "|";
    String key = null;
    try (KeyValueIterator<String, Alert> it = linkAlerts.prefixScan(prefix, KEYS)) {
      if (it.hasNext()) {
        key = it.next().key; // raised before: keep when it was first raised
      }
    }
    linkAlerts.put(
        key != null ? key : prefix + String.format(Locale.ROOT, "%013d", raisedAt), alert);
  }

  /**
   * Node {@code nodeKey}'s link alerts are all sent up to {@code time}: returns the held errors of
   * the node that were waiting for that, and forgets its alerts resolved long ago.
   */
  List<Released> advance(String nodeKey, long time) {
    Long before = linkClocks.get(nodeKey);
    if (before != null && time <= before) {
      return List.of();
    }
    linkClocks.put(nodeKey, time);
    forgetResolved(nodeKey, time - KEEP_RESOLVED.toMillis());
    return release(e -> e.node.equals(nodeKey) && e.due <= time);
  }

  /**
   * An NCCL_ERROR record of node {@code nodeKey} (a FIRING, or a RESOLVED whose FIRING may still be
   * held): returned at once (timestamped as if it had waited: T + GRACE at the earliest) when the
   * node's link alerts up to its time + GRACE are known, else held (a RESOLVED always after its
   * FIRING).
   */
  List<Released> hold(String nodeKey, Alert error) {
    long due = error.getStartedAt().toEpochMilli() + GRACE.toMillis();
    Long clock = linkClocks.get(nodeKey);
    boolean firingHeld = error.getState() == AlertState.RESOLVED && isHeld(error.getAlertId());
    if (clock != null && clock >= due && !firingHeld) {
      // sent at the same time as had it waited: the output does not show how the input arrived
      return List.of(
          new Released(withLinkAlerts(nodeKey, error), Math.max(due, timestampOf(error))));
    }
    held.put(
        String.format(
            Locale.ROOT,
            "%013d|%s|%s|%s",
            due,
            nodeKey,
            error.getAlertId(),
            error.getState() == AlertState.FIRING ? "1" : "2"),
        error);
    return List.of();
  }

  /**
   * At stream time {@code streamTime}: the held errors of nodes never marked, due by then, and of
   * nodes whose link side stalled for {@link #STALLED_AFTER} past their due time.
   */
  List<Released> releaseWithoutWaiting(long streamTime) {
    return release(
        e -> {
          boolean known = linkClocks.get(e.node) != null;
          return streamTime >= e.due + (known ? STALLED_AFTER.toMillis() : 0);
        });
  }

  private record HeldEntry(String key, long due, String node, Alert alert) {}

  private List<Released> release(java.util.function.Predicate<HeldEntry> ready) {
    List<HeldEntry> out = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it = held.all()) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        String[] f = e.key.split("\\|", -1);
        HeldEntry entry = new HeldEntry(e.key, Long.parseLong(f[0]), f[1], e.value);
        if (ready.test(entry)) {
          out.add(entry);
        }
      }
    }
    List<Released> released = new ArrayList<>();
    for (HeldEntry e : out) {
      held.delete(e.key);
      long timestamp = Math.max(e.due, timestampOf(e.alert));
      released.add(new Released(withLinkAlerts(e.node, e.alert), timestamp));
    }
    return released;
  }

  private static long timestampOf(Alert a) {
    return (a.getResolvedAt() != null ? a.getResolvedAt() : a.getStartedAt()).toEpochMilli();
  }

  private boolean isHeld(String alertId) {
    try (KeyValueIterator<String, Alert> it = held.all()) {
      while (it.hasNext()) {
        if (it.next().value.getAlertId().equals(alertId)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * {@code error} with the node's link alerts at its time T: raised by T + GRACE and not resolved
   * before T - link_window, as evidence {@code link_alert.<KIND>.<port>} and in the summary.
   */
  Alert withLinkAlerts(String nodeKey, Alert error) {
    long t = error.getStartedAt().toEpochMilli();
    long until = t + GRACE.toMillis();
    long window = linkWindowOfRule.getOrDefault(error.getRule(), 0L);
    Map<String, String> found = new TreeMap<>();
    try (KeyValueIterator<String, Alert> it = linkAlerts.prefixScan(nodeKey + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        long raisedAt = Long.parseLong(e.key.substring(e.key.lastIndexOf('|') + 1));
        Alert a = e.value;
        Instant resolvedAt = a.getResolvedAt();
        boolean resolvedByThen = resolvedAt != null && resolvedAt.toEpochMilli() <= until;
        if (raisedAt > until || (resolvedByThen && resolvedAt.toEpochMilli() < t - window)) {
          continue;
        }
        found.put(
            "link_alert." + a.getKind() + "." + portOf(a),
            (resolvedByThen
                    ? "RESOLVED at " + resolvedAt + ", since " + a.getStartedAt()
                    : "FIRING since " + a.getStartedAt())
                + " (alert "
                + a.getAlertId()
                + "): "
                + a.getSummary());
      }
    }
    if (found.isEmpty()) {
      return error;
    }
    Map<String, String> evidence = new LinkedHashMap<>(error.getEvidence());
    evidence.putAll(found);
    List<String> names = new ArrayList<>();
    for (String key : found.keySet()) {
      names.add(key.substring("link_alert.".length()).replaceFirst("\\.", " "));
    }
    String summary =
        error.getSummary()
            + Message.of("nccl_error.link_alerts", String.join(", ", names)).render();
    return Alert.newBuilder(error).setEvidence(evidence).setSummary(summary).build();
  }

  private static String portOf(Alert a) {
    if (a.getDevice() != null) {
      return a.getDevice() + "/" + (a.getPort() == null ? "1" : a.getPort());
    }
    return a.getNetdev() != null ? a.getNetdev() : "node";
  }

  private void forgetResolved(String nodeKey, long before) {
    List<String> old = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it = linkAlerts.prefixScan(nodeKey + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        Instant resolved = e.value.getResolvedAt();
        if (resolved != null && resolved.toEpochMilli() < before) {
          old.add(e.key);
        }
      }
    }
    old.forEach(linkAlerts::delete);
  }

  /** Whether an alert of the NCCL detector waits for the link alerts of its node. */
  static boolean waits(Alert a) {
    return a.getKind() == AlertKind.NCCL_ERROR && a.getNode() != null;
  }
}
