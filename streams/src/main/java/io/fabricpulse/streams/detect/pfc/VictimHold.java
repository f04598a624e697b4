package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The port stage's half of the PFC paging policy: a victim's PAUSE_STORM FIRING is held for the
 * propagation {@code window} (event time on the port stage's clock, from the moment it fired)
 * before it may be published, so that the propagation stage can fold it into a PAUSE_PROPAGATION
 * incident instead of paging it. Origins page at once (they name the port to drain). Held alerts
 * live in a changelogged store keyed {@code <due epoch ms, 13 digits>|<alert_id>}, so releases come
 * out in due order and survive a restart.
 */
final class VictimHold {

  /** What the port stage forwards: the alert, the record timestamp and how to page it. */
  record Handoff(Alert alert, long timestamp, StormPage page) {}

  private final List<Rule> propagationRules;
  private final KeyValueStore<String, Alert> held;

  VictimHold(List<Rule> propagationRules, KeyValueStore<String, Alert> held) {
    this.propagationRules = propagationRules;
    this.held = held;
  }

  /**
   * Routes an alert the port trackers emitted at {@code timestamp} (its node's sample time) while
   * the port stage's clock, which releases held alerts ({@link #releaseDue}), stood at {@code
   * clock}. A victim's hold is {@code window} on that clock from whichever is later: the clock is
   * the latest PFC sample of the whole partition, and a node whose own clock runs behind the
   * others' (skew, a collector catching up) fired at a sample time already behind it, so a hold
   * counted from the sample time would end early by the difference and page the victim before an
   * incident opening inside the window could fold it.
   */
  List<Handoff> route(Alert alert, long timestamp, long clock) {
    if (alert.getKind() != AlertKind.PAUSE_STORM) {
      return List.of(new Handoff(alert, timestamp, StormPage.PAGE));
    }
    if (alert.getState() == AlertState.FIRING) {
      Optional<Long> hold = holdMillis(alert);
      if (PortRole.isOrigin(alert) || hold.isEmpty()) {
        return List.of(new Handoff(alert, timestamp, StormPage.PAGE));
      }
      held.put(key(Math.max(timestamp, clock) + hold.get(), alert.getAlertId()), alert);
      return List.of(new Handoff(alert, timestamp, StormPage.HOLD));
    }
    // resolved within its hold (a hysteresis shorter than the window): decide its FIRING first
    List<Handoff> out = new ArrayList<>();
    heldKey(alert.getAlertId())
        .ifPresent(
            k -> {
              out.add(new Handoff(held.get(k), timestamp, StormPage.RELEASE));
              held.delete(k);
            });
    out.add(new Handoff(alert, timestamp, StormPage.PAGE));
    return out;
  }

  /** Releases, at their due time, the held FIRINGs due at or before stream time {@code now}. */
  List<Handoff> releaseDue(long now) {
    List<KeyValue<String, Alert>> due = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it = held.all()) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        if (dueAt(e.key) > now) {
          break; // keys sort by due time
        }
        due.add(e);
      }
    }
    List<Handoff> out = new ArrayList<>();
    for (KeyValue<String, Alert> e : due) {
      held.delete(e.key);
      out.add(new Handoff(e.value, dueAt(e.key), StormPage.RELEASE));
    }
    return out;
  }

  /** The longest window of the propagation rules that select this storm; none: no hold. */
  private Optional<Long> holdMillis(Alert a) {
    return propagationRules.stream()
        .filter(
            r ->
                r.selectors()
                    .matches(
                        a.getCluster(), a.getNode(), a.getDevice(), a.getNetdev(), a.getPriority()))
        .map(r -> r.thresholds().duration("window").toMillis())
        .max(Long::compare);
  }

  private Optional<String> heldKey(String alertId) {
    try (KeyValueIterator<String, Alert> it = held.all()) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        if (e.value.getAlertId().equals(alertId)) {
          return Optional.of(e.key);
        }
      }
    }
    return Optional.empty();
  }

  private static String key(long due, String alertId) {
    return String.format(Locale.ROOT, "%013d|%s", due, alertId);
  }

  private static long dueAt(String key) {
    return Long.parseLong(key.substring(0, key.indexOf('|')));
  }
}
