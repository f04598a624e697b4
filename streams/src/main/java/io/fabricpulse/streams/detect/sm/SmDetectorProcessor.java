package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.detect.sm.SmClusterState.Sweep;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-cluster subnet-manager detection (input keyed by cluster): SM_FAILOVER, SM_ABSENT, SM_HUNG
 * and SM_UNSTABLE, each rule with an {@link AlertTracker} on the shared tracker store. Emits alerts
 * keyed by alert_id.
 *
 * <p>The cluster's SM records come from several hosts' partitions (sminfo pollers, OpenSM log
 * hosts), so they arrive out of event-time order. Each record waits in the {@link SmEventBuffer}
 * until the cluster's low watermark ({@link SmSourceClocks}) passes it; then the records are
 * evaluated in event-time order, and SM_ABSENT and alert resolution are judged at each record's
 * time and at the watermark, never at a clock that ran ahead of a lagging source. So the same input
 * history gives the same alerts whatever the interleaving of the sources.
 */
final class SmDetectorProcessor extends DetectorProcessor<SmSweep> {

  private static final Logger LOG = LoggerFactory.getLogger(SmDetectorProcessor.class);

  /** A time at which nothing of another cluster is due (no resolution, nothing forgotten). */
  private static final long NOT_DUE = Long.MIN_VALUE / 4;

  private final SmRules rules;
  private final long sourceTimeoutMs;
  private final List<AlertTracker> failover = new ArrayList<>();
  private final List<AlertTracker> absent = new ArrayList<>();
  private final List<AlertTracker> hung = new ArrayList<>();
  private final List<AlertTracker> unstable = new ArrayList<>();
  private KeyValueStore<String, SmClusterState> states;
  private KeyValueStore<String, SmSourceClocks> clocks;
  private SmEventBuffer buffer;

  SmDetectorProcessor(SmRules rules, DetectorFailures failures) {
    super(failures);
    this.rules = rules;
    this.sourceTimeoutMs = rules.sourceTimeoutMs();
  }

  @Override
  protected void open() {
    this.states = context().getStateStore(SubnetManagerDetector.STATE_STORE);
    this.clocks = context().getStateStore(SubnetManagerDetector.CLOCK_STORE);
    this.buffer = new SmEventBuffer(context().getStateStore(SubnetManagerDetector.BUFFER_STORE));
    String trackers = SubnetManagerDetector.TRACKER_STORE;
    rules.failover().forEach(r -> failover.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
    rules.absent().forEach(r -> absent.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
    rules.hung().forEach(r -> hung.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
    rules.unstable().forEach(r -> unstable.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
  }

  @Override
  protected void judge(Record<String, SmSweep> record) {
    SmSweep r = record.value();
    Lineage lineage = Lineage.of(context());
    String cluster = r.getCluster();
    long t = r.getTime().toEpochMilli();
    SmSourceClocks before = clocks.get(cluster);
    if (before == null) {
      before = SmSourceClocks.EMPTY;
    }
    if (before.released(t)) {
      // its source lagged more than source_timeout: too late for the order, judged as it comes
      LOG.debug(
          "late SM record {} at {} (watermark {}): evaluated on arrival",
          SmSourceClocks.sourceOf(r),
          r.getTime(),
          before.releasedTo());
      evaluate(r, lineage);
    } else {
      buffer.add(r, lineage);
    }
    SmSourceClocks after = before.observe(SmSourceClocks.sourceOf(r), t, sourceTimeoutMs);
    long watermark = after.lowWatermark();
    if (watermark > before.releasedTo()) {
      for (BufferedSmEvent e : buffer.releaseUpTo(cluster, watermark)) {
        advanceTo(cluster, e.time());
        evaluate(e.record(), e.lineage());
      }
      advanceTo(cluster, watermark);
      after = after.releasedUpTo(watermark);
    }
    clocks.put(cluster, after);
  }

  /** One record, in the cluster's event-time order: its state transition and observations. */
  private void evaluate(SmSweep r, Lineage lineage) {
    String cluster = r.getCluster();
    SmClusterState before = states.get(cluster);
    SmTransition tr =
        SmTransition.apply(before == null ? SmClusterState.EMPTY : before, r, rules.keepSweepsMs());
    states.put(cluster, tr.state());
    long t = r.getTime().toEpochMilli();
    AlertSubject subject = AlertSubject.cluster(cluster);
    for (AlertTracker tracker : failover) {
      if (matches(tracker.rule(), cluster)) {
        failoverObservation(subject, t, before, tr, r, lineage)
            .ifPresent(o -> tracker.observe(o).ifPresent(a -> forward(a, t)));
      }
    }
    for (AlertTracker tracker : absent) {
      if (matches(tracker.rule(), cluster)) {
        absentObservation(tracker.rule(), subject, t, tr.state(), lineage)
            .ifPresent(o -> tracker.observe(o).ifPresent(a -> forward(a, t)));
      }
    }
    if (r.getEvent() == SmEventKind.SMINFO_POLL && SmTransition.MASTER.equals(r.getSmState())) {
      for (AlertTracker tracker : hung) {
        if (matches(tracker.rule(), cluster)) {
          tracker
              .observe(hungObservation(tracker.rule(), subject, t, tr.state(), r, lineage))
              .ifPresent(a -> forward(a, t));
        }
      }
    }
    for (AlertTracker tracker : unstable) {
      if (matches(tracker.rule(), cluster)) {
        tracker
            .observe(unstableObservation(tracker.rule(), subject, t, tr.state(), lineage))
            .ifPresent(a -> forward(a, t));
      }
    }
  }

  /**
   * Event time of the cluster moves to {@code now} (the next record's time, or the watermark):
   * SM_ABSENT is judged on the state so far (a master missing past the bound is noticed before the
   * record that ends the gap), and the cluster's alerts clean for their hysteresis resolve. Only
   * this cluster's alerts are judged: other clusters have their own watermark.
   */
  private void advanceTo(String cluster, long now) {
    AlertSubject subject = AlertSubject.cluster(cluster);
    SmClusterState s = states.get(cluster);
    if (s != null) {
      for (AlertTracker tracker : absent) {
        if (matches(tracker.rule(), cluster)) {
          absentObservation(tracker.rule(), subject, now, s, Lineage.NONE)
              .ifPresent(o -> tracker.observe(o).ifPresent(a -> forward(a, now)));
        }
      }
    }
    String key = subject.key();
    for (List<AlertTracker> trackers : List.of(failover, absent, hung, unstable)) {
      for (AlertTracker tracker : trackers) {
        tracker
            .punctuate(subjectKey -> subjectKey.equals(key) ? now : NOT_DUE)
            .forEach(a -> forward(a, now));
      }
    }
  }

  private static boolean matches(Rule rule, String cluster) {
    return rule.selectors().matches(cluster, null, null, null, null);
  }

  private static java.util.Optional<Observation> failoverObservation(
      AlertSubject subject,
      long t,
      SmClusterState before,
      SmTransition tr,
      SmSweep r,
      Lineage lineage) {
    if (tr.isFailover()) {
      SmMaster old = tr.failedOver();
      SmMaster now = tr.state().master();
      Map<String, String> evidence = new LinkedHashMap<>();
      evidence.put("old_master", old.describe());
      evidence.put("new_master", now.describe());
      putIfKnown(evidence, "old_master_guid", old.guid());
      putIfKnown(evidence, "old_master_lid", old.lid());
      putIfKnown(evidence, "old_master_host", old.host());
      putIfKnown(evidence, "new_master_guid", now.guid());
      putIfKnown(evidence, "new_master_lid", now.lid());
      putIfKnown(evidence, "new_master_host", now.host());
      if (before != null && before.masterSeenAt() != SmClusterState.NONE) {
        evidence.put(
            "old_master_last_seen",
            java.time.Instant.ofEpochMilli(before.masterSeenAt()).toString());
        evidence.put("handoff", seconds(t - before.masterSeenAt()));
      }
      evidence.put("reported_by", r.getNode() + " (" + r.getSource() + ")");
      evidence.put("line", r.getRawLine());
      Message summary =
          Message.of("sm_failover.firing", subject.cluster(), old.describe(), now.describe());
      return java.util.Optional.of(
          Observation.holds(subject, t, 1, 1, "failovers", summary, evidence, lineage).firingNow());
    }
    if (tr.confirmsMaster()) {
      return java.util.Optional.of(Observation.clean(subject, t, lineage));
    }
    return java.util.Optional.empty();
  }

  /**
   * SM_ABSENT: a master was known, and no MASTER has answered since the first miss for longer than
   * handoff + poll_allowance (docs/thresholds.md S1). The alert's event time is the moment the
   * bound was crossed, so it does not depend on punctuation granularity.
   */
  private static java.util.Optional<Observation> absentObservation(
      Rule rule, AlertSubject subject, long now, SmClusterState s, Lineage lineage) {
    if (s.master() == null) {
      return java.util.Optional.empty(); // never saw a master: nothing went missing
    }
    if (s.firstMissAt() == SmClusterState.NONE) {
      return java.util.Optional.of(Observation.clean(subject, now, lineage));
    }
    Duration handoff = rule.thresholds().duration("handoff");
    long boundMs = handoff.plus(rule.thresholds().duration("poll_allowance")).toMillis();
    long missing = now - s.firstMissAt();
    if (missing <= boundMs) {
      return java.util.Optional.empty();
    }
    long crossedAt = s.firstMissAt() + boundMs + 1;
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("last_master", s.master().describe());
    if (s.masterSeenAt() != SmClusterState.NONE) {
      evidence.put("last_master_seen", java.time.Instant.ofEpochMilli(s.masterSeenAt()).toString());
    }
    evidence.put("first_miss", java.time.Instant.ofEpochMilli(s.firstMissAt()).toString());
    evidence.put("bound", Durations.format(Duration.ofMillis(boundMs)));
    Message summary =
        Message.of(
            "sm_absent.firing",
            subject.cluster(),
            Durations.format(Duration.ofMillis(boundMs)),
            Durations.format(handoff),
            s.master().describe());
    return java.util.Optional.of(
        Observation.holds(
                subject,
                Math.min(now, crossedAt),
                missing / 1000.0,
                boundMs / 1000.0,
                "s",
                summary,
                evidence,
                lineage)
            .firingNow());
  }

  /** SM_HUNG: one poller saw stale_polls MASTER answers in a row without progress [SMINFO]. */
  private static Observation hungObservation(
      Rule rule, AlertSubject subject, long t, SmClusterState s, SmSweep r, Lineage lineage) {
    var poller = s.pollers().get(r.getNode());
    long needed = rule.thresholds().integer("stale_polls");
    if (poller == null || poller.stalePolls() < needed) {
      return Observation.clean(subject, t, lineage);
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("master", s.master().describe());
    evidence.put("activity_count", Long.toString(poller.activityCount()));
    evidence.put("stale_polls", Integer.toString(poller.stalePolls()));
    evidence.put("poller", r.getNode());
    evidence.put("line", r.getRawLine());
    Message summary =
        Message.of(
            "sm_hung.firing",
            subject.cluster(),
            s.master().describe(),
            poller.activityCount(),
            poller.stalePolls() + 1);
    return Observation.holds(
            subject, t, poller.stalePolls(), needed, "polls", summary, evidence, lineage)
        .firingNow();
  }

  /**
   * SM_UNSTABLE: heavy sweeps in the rule's window above max_heavy_sweeps (S2, no published number
   * [OSM-trap]). A forced sweep is logged twice ("Forcing heavy sweep. Received trap" then
   * "Entering heavy sweep"), and one sweep may serve several traps, so the count is the larger of
   * the two kinds, never their sum.
   */
  private static Observation unstableObservation(
      Rule rule, AlertSubject subject, long t, SmClusterState s, Lineage lineage) {
    long windowMs = rule.thresholds().duration("window").toMillis();
    long max = rule.thresholds().integer("max_heavy_sweeps");
    int heavy = 0;
    int forced = 0;
    java.util.TreeSet<Integer> traps = new java.util.TreeSet<>();
    for (Sweep sweep : s.sweeps()) {
      if (t - sweep.time() < windowMs) {
        if (sweep.forced()) {
          forced++;
          if (sweep.trap() != null) {
            traps.add(sweep.trap());
          }
        } else {
          heavy++;
        }
      }
    }
    int count = Math.max(heavy, forced);
    if (count <= max) {
      return Observation.clean(subject, t, lineage);
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("heavy_sweeps", Integer.toString(heavy));
    evidence.put("forced_heavy_sweeps", Integer.toString(forced));
    evidence.put("traps", traps.isEmpty() ? "none logged" : traps.toString());
    evidence.put("window", Durations.format(Duration.ofMillis(windowMs)));
    if (s.master() != null) {
      evidence.put("master", s.master().describe());
    }
    Message summary =
        Message.of(
            "sm_unstable.firing",
            subject.cluster(),
            count,
            Durations.format(Duration.ofMillis(windowMs)),
            max,
            evidence.get("traps"));
    return Observation.holds(subject, t, count, max, "sweeps/window", summary, evidence, lineage)
        .firingNow();
  }

  private static void putIfKnown(Map<String, String> evidence, String key, Object value) {
    if (value != null) {
      evidence.put(key, value.toString());
    }
  }

  private static String seconds(long ms) {
    return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
  }
}
