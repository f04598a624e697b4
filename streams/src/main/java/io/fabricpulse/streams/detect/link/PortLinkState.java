package io.fabricpulse.streams.detect.link;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the link detectors remember about one port (store {@link LinkHealthDetector#PORT_STORE}, key
 * {@code cluster/node/device/port}). Mutable; written back after every sample.
 */
final class PortLinkState {

  static final long NEVER = Long.MIN_VALUE;

  /** symbol_error over the last hour in 1-minute buckets; link_error_recovery per 1-s bucket. */
  static final long SYMBOL_BUCKET_MS = 60_000;

  static final long SYMBOL_WINDOW_MS = 3_600_000;
  static final long RECOVERY_BUCKET_MS = 1_000;
  static final long RECOVERY_WINDOW_MS = 60_000;

  /** At most this many down events per signal are kept (a port flapping every second). */
  static final int MAX_EVENTS = 1000;

  String cluster;
  String node;
  String device;
  int port;
  String netdev;
  String bootId;
  String state;
  long lastSampleAt = NEVER;
  long lastActiveAt = NEVER;
  long downSince = NEVER;

  /** Down events per signal (event times): state transitions, link_downed, link_down_events_phy. */
  final List<Long> transitions = new ArrayList<>();

  final List<Long> linkDowned = new ArrayList<>();
  final List<Long> phyDowns = new ArrayList<>();

  /** Per link_flap rule id: events at or before this time already made an alert. */
  final Map<String, Long> flapCountedUntil = new HashMap<>();

  final EstablishedValue speed = new EstablishedValue();
  final EstablishedValue lanes = new EstablishedValue();
  final RollingSum symbolErrors = new RollingSum(SYMBOL_BUCKET_MS, SYMBOL_WINDOW_MS);
  final RollingSum linkErrorRecovery = new RollingSum(RECOVERY_BUCKET_MS, RECOVERY_WINDOW_MS);

  boolean active() {
    return LinkSample.ACTIVE.equals(state);
  }

  boolean down() {
    return downSince != NEVER;
  }

  /** Records {@code count} down events of one signal at {@code time}. */
  static void addEvents(List<Long> events, long time, long count) {
    for (long i = 0; i < count && events.size() < MAX_EVENTS; i++) {
      events.add(time);
    }
  }

  /** Forgets down events older than {@code windowMs} before {@code now}. */
  void pruneEvents(long now, long windowMs) {
    for (List<Long> events : List.of(transitions, linkDowned, phyDowns)) {
      events.removeIf(t -> t <= now - windowMs);
    }
  }

  /**
   * Down events within (now - window, now] not yet counted into an alert of {@code ruleId}: the
   * largest count of any one signal, so one drop seen by two signals is one event.
   */
  int downEvents(String ruleId, long now, long windowMs) {
    long after = Math.max(now - windowMs, flapCountedUntil.getOrDefault(ruleId, NEVER));
    int most = 0;
    for (List<Long> events : List.of(transitions, linkDowned, phyDowns)) {
      most = (int) Math.max(most, events.stream().filter(t -> t > after).count());
    }
    return most;
  }
}
