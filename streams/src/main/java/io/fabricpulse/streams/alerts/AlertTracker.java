package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The alert lifecycle of one rule over many subjects, in event time only.
 *
 * <ul>
 *   <li>FIRING once, when the condition has held for the rule's {@link FiringPolicy} (or at once
 *       for an {@link Observation#immediate()} observation); nothing while it keeps holding.
 *   <li>RESOLVED once the condition has been clean for the rule's hysteresis, measured from the
 *       first clean observation; checked on each observation and by {@link #punctuate} with stream
 *       time. {@code resolved_at} is always first-clean + hysteresis, so the result does not depend
 *       on which of the two noticed it. Observations of one subject may arrive out of order
 *       (several sources of one port): a clean one older than the last holding one is ignored, and
 *       a holding one older than the start of the clean period does not restart it, so an alert
 *       never resolves before it started and never flaps on arrival order.
 *   <li>Once RESOLVED, the incident is remembered for {@link #RESOLVED_KEPT} of the subject's time
 *       after its {@code resolved_at}: a holding observation from before {@code resolved_at} that
 *       arrives after the resolution (a record delivered twice, or held back by a broker outage
 *       behind the records that resolved it) belongs to the incident already paged and resolved,
 *       and pages no second time. Processed in order it would only have kept that alert open.
 * </ul>
 *
 * State lives in the given store (persistent and changelogged in production) under {@code <rule
 * id>|<subject key>}, so a restart or rebalance restores FIRING alerts instead of re-firing them.
 * Several trackers (one per rule) can share one store.
 */
public final class AlertTracker {

  private static final StringSerializer KEYS = new StringSerializer();

  /**
   * How long (subject time after {@code resolved_at}) a resolved incident absorbs its late
   * observations; one arriving later than this behind its subject starts a new incident.
   */
  public static final Duration RESOLVED_KEPT = Duration.ofMinutes(10);

  /**
   * Key prefix of the resolved incidents in the store, before the rule id: rule ids start with a
   * letter or digit, so a rule's own prefix scan never meets them (and a release that does not know
   * them never reads them).
   */
  static final String RESOLVED_PREFIX = "~resolved|";

  private final Rule rule;
  private final FiringPolicy policy;
  private final KeyValueStore<String, TrackerState> store;
  private final long hysteresisMs;

  public AlertTracker(Rule rule, FiringPolicy policy, KeyValueStore<String, TrackerState> store) {
    this.rule = rule;
    this.policy = policy;
    this.store = store;
    this.hysteresisMs = rule.hysteresis().toMillis();
  }

  public Rule rule() {
    return rule;
  }

  /** Feeds one observation; returns the FIRING or RESOLVED alert it causes, if any. */
  public Optional<Alert> observe(Observation o) {
    String key = storeKey(o.subject().key());
    TrackerState s = store.get(key);
    if (o.holds()) {
      return onHolds(key, s, o);
    }
    if (s == null) {
      return Optional.empty();
    }
    if (!s.isFiring()) {
      store.delete(key); // the run of consecutive holding samples is broken
      return Optional.empty();
    }
    if (o.eventTime() < s.lastHitAt()) {
      // Out of order (e.g. another source of the same port, processed late): a clean sample from
      // before the last holding one says nothing about whether the condition has ended.
      return Optional.empty();
    }
    long cleanSince = s.cleanSince() == TrackerState.NOT_CLEAN ? o.eventTime() : s.cleanSince();
    if (o.eventTime() - cleanSince >= hysteresisMs) {
      store.delete(key);
      return Optional.of(resolve(o.subject().key(), s, cleanSince + hysteresisMs, o.lineage()));
    }
    if (cleanSince != s.cleanSince()) {
      store.put(
          key, new TrackerState(s.hits(), s.firstHitAt(), s.lastHitAt(), cleanSince, s.firing()));
    }
    return Optional.empty();
  }

  /**
   * Resolves, at stream time {@code now}, every FIRING alert of this rule whose clean period has
   * lasted the hysteresis, forgets pending runs that have not been observed for longer than the
   * hysteresis (a subject that went silent mid-run never fires on a stale run), and forgets
   * resolved incidents {@link #RESOLVED_KEPT} after their {@code resolved_at}.
   */
  public List<Alert> punctuate(long now) {
    return punctuate(subjectKey -> now);
  }

  /**
   * {@link #punctuate(long)} with each subject judged at its own time, {@code nowOf(subject key)}:
   * e.g. the latest sample time of the subject's node, so a node whose records trail the others' in
   * its partition is never resolved or forgotten ahead of its own samples ({@link NodeClocks}).
   */
  public List<Alert> punctuate(ToLongFunction<String> nowOf) {
    List<Alert> resolved = new ArrayList<>();
    List<String> toDelete = new ArrayList<>();
    Map<String, TrackerState> resolvedNow = new LinkedHashMap<>();
    try (KeyValueIterator<String, TrackerState> it = store.prefixScan(rule.id() + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, TrackerState> e = it.next();
        TrackerState s = e.value;
        String subjectKey = e.key.substring(rule.id().length() + 1);
        long now = nowOf.applyAsLong(subjectKey);
        if (s.isFiring()) {
          if (s.cleanSince() != TrackerState.NOT_CLEAN && now - s.cleanSince() >= hysteresisMs) {
            toDelete.add(e.key);
            resolvedNow.put(subjectKey, s);
          }
        } else if (now - s.lastHitAt() > Math.max(hysteresisMs, 1000L)) {
          toDelete.add(e.key);
        }
      }
    }
    try (KeyValueIterator<String, TrackerState> it =
        store.prefixScan(RESOLVED_PREFIX + rule.id() + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, TrackerState> e = it.next();
        String subjectKey = e.key.substring(RESOLVED_PREFIX.length() + rule.id().length() + 1);
        if (nowOf.applyAsLong(subjectKey) - e.value.cleanSince() > RESOLVED_KEPT.toMillis()) {
          toDelete.add(e.key);
        }
      }
    }
    toDelete.forEach(store::delete);
    resolvedNow.forEach(
        (subjectKey, s) ->
            resolved.add(resolve(subjectKey, s, s.cleanSince() + hysteresisMs, Lineage.NONE)));
    return resolved;
  }

  /**
   * Resolves the FIRING alert of {@code subject} at {@code at} without waiting for the hysteresis,
   * because the detector has accepted the condition as the subject's new normal (a link speed an
   * operator runs on purpose becomes the port's established speed). The RESOLVED record carries
   * {@code summary} and the firing evidence with {@code evidence} put over it. A run that had not
   * fired yet is forgotten. Empty when nothing was firing.
   */
  public Optional<Alert> accept(
      AlertSubject subject,
      long at,
      Message summary,
      Map<String, String> evidence,
      Lineage lineage) {
    String key = storeKey(subject.key());
    TrackerState s = store.get(key);
    if (s == null) {
      return Optional.empty();
    }
    store.delete(key);
    if (!s.isFiring()) {
      return Optional.empty();
    }
    Map<String, String> merged = new LinkedHashMap<>(s.firing().getEvidence());
    merged.putAll(evidence);
    return Optional.of(
        Alert.newBuilder(s.firing())
            .setState(AlertState.RESOLVED)
            .setResolvedAt(java.time.Instant.ofEpochMilli(Math.max(at, s.firstHitAt())))
            .setSummary(summary.render())
            .setEvidence(merged)
            .setSourceTopic(lineage.topic())
            .setSourcePartition(lineage.partition())
            .setSourceOffset(lineage.offset())
            .build());
  }

  /**
   * True when an observation of {@code subjectKey} at {@code eventTime} belongs to an incident this
   * tracker has already resolved (it is from before that incident's {@code resolved_at}): it can
   * neither fire nor count towards a new incident.
   */
  public boolean resolvedBefore(String subjectKey, long eventTime) {
    TrackerState resolved = store.get(RESOLVED_PREFIX + storeKey(subjectKey));
    return resolved != null && eventTime < resolved.cleanSince();
  }

  /** The FIRING alert of {@code subjectKey}, if any. */
  public Optional<Alert> firing(String subjectKey) {
    return Optional.ofNullable(store.get(storeKey(subjectKey))).map(TrackerState::firing);
  }

  private Optional<Alert> onHolds(String key, TrackerState s, Observation o) {
    if (resolvedBefore(o.subject().key(), o.eventTime())) {
      return Optional.empty(); // late or repeated evidence of an incident already resolved
    }
    if (s != null && s.isFiring()) {
      if (s.cleanSince() != TrackerState.NOT_CLEAN && o.eventTime() < s.cleanSince()) {
        // A late holding sample from before the clean period began does not end that period.
        if (o.eventTime() > s.lastHitAt()) {
          store.put(
              key,
              new TrackerState(
                  s.hits(), s.firstHitAt(), o.eventTime(), s.cleanSince(), s.firing()));
        }
        return Optional.empty();
      }
      long lastHit = Math.max(s.lastHitAt(), o.eventTime());
      if (s.cleanSince() != TrackerState.NOT_CLEAN || s.lastHitAt() != lastHit) {
        store.put(
            key,
            new TrackerState(
                s.hits(), s.firstHitAt(), lastHit, TrackerState.NOT_CLEAN, s.firing()));
      }
      return Optional.empty();
    }
    int hits = s == null ? 1 : s.hits() + 1;
    long firstHitAt = s == null ? o.eventTime() : s.firstHitAt();
    if (o.immediate() || policy.satisfied(hits, firstHitAt, o.eventTime())) {
      long startedAt = o.immediate() && s == null ? o.eventTime() : firstHitAt;
      Alert alert = firing(o, startedAt);
      store.put(
          key, new TrackerState(hits, startedAt, o.eventTime(), TrackerState.NOT_CLEAN, alert));
      return Optional.of(alert);
    }
    store.put(key, new TrackerState(hits, firstHitAt, o.eventTime(), TrackerState.NOT_CLEAN, null));
    return Optional.empty();
  }

  private Alert firing(Observation o, long startedAt) {
    AlertSubject subject = o.subject();
    Map<String, String> labels = new LinkedHashMap<>(rule.labels());
    labels.putAll(o.labels());
    return Alert.newBuilder()
        .setAlertId(AlertIds.of(rule.id(), subject.key(), startedAt))
        .setRule(rule.id())
        .setKind(o.kind() != null ? o.kind() : rule.detector().defaultKind())
        .setSeverity(rule.severity())
        .setState(AlertState.FIRING)
        .setCluster(subject.cluster())
        .setNode(subject.node())
        .setDevice(subject.device())
        .setPort(subject.port())
        .setNetdev(subject.netdev())
        .setPriority(subject.priority())
        .setGpu(subject.gpu())
        .setJob(subject.job())
        .setStartedAt(java.time.Instant.ofEpochMilli(startedAt))
        .setResolvedAt(null)
        .setValue(o.value())
        .setThreshold(o.threshold())
        .setUnit(o.unit())
        .setSummary(o.summary().render())
        .setEvidence(new LinkedHashMap<>(o.evidence()))
        .setLabels(labels)
        .setSourceTopic(o.lineage().topic())
        .setSourcePartition(o.lineage().partition())
        .setSourceOffset(o.lineage().offset())
        .build();
  }

  /**
   * The RESOLVED alert of state {@code s}; remembers the incident (started, last evidence,
   * resolved_at in {@code cleanSince}) under {@link #RESOLVED_PREFIX} for {@link #RESOLVED_KEPT}.
   */
  private Alert resolve(String subjectKey, TrackerState s, long resolvedAt, Lineage lineage) {
    store.put(
        RESOLVED_PREFIX + storeKey(subjectKey),
        new TrackerState(s.hits(), s.firstHitAt(), s.lastHitAt(), resolvedAt, null));
    return resolved(s.firing(), resolvedAt, lineage);
  }

  private Alert resolved(Alert firing, long resolvedAt, Lineage lineage) {
    Map<String, String> evidence = new LinkedHashMap<>(firing.getEvidence());
    evidence.put("clean_for", Durations.format(rule.hysteresis()));
    return Alert.newBuilder(firing)
        .setState(AlertState.RESOLVED)
        .setResolvedAt(java.time.Instant.ofEpochMilli(resolvedAt))
        .setSummary(
            Message.of("resolved", firing.getSummary(), Durations.format(rule.hysteresis()))
                .render())
        .setEvidence(evidence)
        .setSourceTopic(lineage.topic())
        .setSourcePartition(lineage.partition())
        .setSourceOffset(lineage.offset())
        .build();
  }

  private String storeKey(String subjectKey) {
    return rule.id() + "|" + subjectKey;
  }
}
