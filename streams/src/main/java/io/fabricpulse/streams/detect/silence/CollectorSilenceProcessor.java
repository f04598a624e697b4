package io.fabricpulse.streams.detect.silence;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.detect.silence.NodeActivity.SourceActivity;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * collector_silent over the rates of one node partition of fabric.rates. Each rates record records
 * when its node last reported per source, when that was heard (the source's partition clock: the
 * latest rates time of that source seen here) and learns the node's interval per source (median of
 * the rate stage's interval_ms of its last samples). Every second of stream time, a node whose
 * every source was heard more than {@code missed_intervals x interval + grace} of that source's
 * clock ago is silent: COLLECTOR_SILENT fires, started when the last of its sources' clocks passed
 * its deadline, and resolves on the node's next sample (the rule's hysteresis, 0 s by default), at
 * the clock then: never before it started.
 *
 * <p>The clocks are the partition's own (other nodes reporting reveal one node's silence) and
 * "heard" is measured on them, so a node whose samples trail the others' but keep arriving is not
 * silent. There is one clock per source because the sources reach fabric.rates from different rate
 * tasks: the switch sweeps (PERFQUERY) of the fabric host may run 20 s ahead of the host ports
 * (PORT) in the same partition, and judged on one clock every host of the partition would look
 * silent. A source's clock is read at its whole-second crossings (the first rates time of each
 * second), so the start time depends only on that source's records, not on how the sources
 * interleave. Limits: if every node of a partition stops sending a source, its clock stops and
 * nothing fires; a node that never reported is unknown; a multi-source node that is silent for
 * barely longer than its deadline may or may not fire, depending on that interleaving.
 */
final class CollectorSilenceProcessor extends DetectorProcessor<CounterRates> {

  static final Duration PUNCTUATE_EVERY = Duration.ofSeconds(1);

  private record Judged(Rule rule, AlertTracker tracker) {}

  private final List<Rule> rules;
  private final List<Judged> judged = new ArrayList<>();
  private final int keepIntervals;

  /**
   * Latest sample time per node and source already recorded: a cache that skips the other ports of
   * a sample instant (a restart empties it and the next record is recorded again, unchanged).
   */
  private final Map<String, Long> recorded = new HashMap<>();

  /** How many whole-second crossings of one source's clock are kept: an hour of 1 s samples. */
  private static final int CROSSINGS_KEPT = 3600;

  /**
   * The partition clock per source (latest rates time of that source); restored from the store (the
   * latest heardAt per source) on first use.
   */
  private final Map<String, Long> clocks = new HashMap<>();

  /** Per source, the first clock value of each whole second it reached, oldest first. */
  private final Map<String, TreeSet<Long>> crossings = new HashMap<>();

  private boolean restored;

  private KeyValueStore<String, NodeActivity> nodes;

  CollectorSilenceProcessor(List<Rule> rules, DetectorFailures failures) {
    super(failures);
    this.rules = List.copyOf(rules);
    this.keepIntervals =
        (int)
            rules.stream()
                .mapToLong(r -> r.thresholds().integer("interval_samples"))
                .max()
                .orElse(1);
  }

  @Override
  protected void open() {
    this.nodes = context().getStateStore(CollectorSilenceDetector.NODES_STORE);
    for (Rule rule : rules) {
      judged.add(
          new Judged(
              rule, tracker(rule, FiringPolicy.IMMEDIATE, CollectorSilenceDetector.TRACKER_STORE)));
    }
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  protected void judge(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    String key = r.getCluster() + "|" + r.getNode();
    long time = r.getTime().toEpochMilli();
    String source = r.getSource().name();
    long now = advanceClock(source, time);
    Long done = recorded.get(key + "|" + source);
    if (done != null && time <= done) {
      return;
    }
    recorded.put(key + "|" + source, time);
    NodeActivity before = nodes.get(key);
    NodeActivity after =
        (before == null ? NodeActivity.NONE : before)
            .seen(source, time, now, r.getIntervalMs(), keepIntervals);
    if (!after.equals(before)) {
      nodes.put(key, after);
    }
    AlertSubject subject = AlertSubject.node(r.getCluster(), r.getNode());
    Lineage lineage = Lineage.of(context());
    // clean at the latest clock of the node's sources, at least the time the alert started at
    // (a crossing of one of them): resolved_at >= started_at
    long cleanAt =
        after.sources().keySet().stream()
            .mapToLong(s -> clocks.getOrDefault(s, now))
            .max()
            .orElse(now);
    for (Judged j : judged) {
      if (j.rule().selectors().matches(r.getCluster(), r.getNode(), null, null, null)) {
        j.tracker()
            .observe(Observation.clean(subject, cleanAt, lineage))
            .ifPresent(a -> forward(a, cleanAt));
      }
    }
  }

  /** The partition clock of {@code source} after a record of it at {@code time}. */
  private long advanceClock(String source, long time) {
    restoreClocks();
    Long before = clocks.get(source);
    if (before != null && time <= before) {
      return before;
    }
    clocks.put(source, time);
    if (before == null || Math.floorDiv(time, 1000L) > Math.floorDiv(before, 1000L)) {
      TreeSet<Long> seen = crossings.computeIfAbsent(source, s -> new TreeSet<>());
      seen.add(time);
      if (seen.size() > CROSSINGS_KEPT) {
        seen.pollFirst();
      }
    }
    return time;
  }

  /**
   * After a start or restart: each clock stood at the latest heardAt of its source in the store.
   */
  private void restoreClocks() {
    if (restored) {
      return;
    }
    restored = true;
    try (KeyValueIterator<String, NodeActivity> it = nodes.all()) {
      it.forEachRemaining(
          e -> e.value.sources().forEach((source, s) -> advanceClock(source, s.heardAt())));
    }
  }

  /**
   * When {@code source}'s clock first passed {@code deadline}: its first whole-second crossing
   * after it, or null while it has not.
   */
  private Long passed(String source, long deadline) {
    TreeSet<Long> seen = crossings.get(source);
    return seen == null ? null : seen.higher(deadline);
  }

  private void punctuate(long streamTime) {
    restoreClocks();
    if (clocks.isEmpty()) {
      return; // no node known yet
    }
    List<KeyValue<String, NodeActivity>> all = new ArrayList<>();
    try (KeyValueIterator<String, NodeActivity> it = nodes.all()) {
      it.forEachRemaining(all::add);
    }
    for (KeyValue<String, NodeActivity> e : all) {
      int bar = e.key.indexOf('|');
      String cluster = e.key.substring(0, bar);
      String node = e.key.substring(bar + 1);
      for (Judged j : judged) {
        if (j.rule().selectors().matches(cluster, node, null, null, null)) {
          judge(j, cluster, node, e.value);
        }
      }
    }
    long latest = clocks.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    for (Judged j : judged) {
      j.tracker().punctuate(latest).forEach(a -> forward(a, latest));
    }
  }

  private void judge(Judged j, String cluster, String node, NodeActivity activity) {
    Rule rule = j.rule();
    double missed = rule.thresholds().number("missed_intervals");
    int samples = (int) rule.thresholds().integer("interval_samples");
    long fallback = rule.thresholds().duration("default_interval").toMillis();
    long grace = rule.thresholds().duration("grace").toMillis();
    long now = Long.MIN_VALUE;
    long lastSeen = Long.MIN_VALUE;
    long heardAt = Long.MIN_VALUE;
    long interval = fallback;
    String source = null;
    for (Map.Entry<String, SourceActivity> s : activity.sources().entrySet()) {
      long i = s.getValue().interval(samples, fallback);
      long deadline = s.getValue().heardAt() + (long) Math.ceil(missed * i) + grace;
      Long passedAt = passed(s.getKey(), deadline);
      if (passedAt == null) {
        return; // not silent; a heartbeat (not a punctuation) resolves a FIRING alert
      }
      if (passedAt > now) {
        now = passedAt;
        lastSeen = s.getValue().lastSeen();
        heardAt = s.getValue().heardAt();
        interval = i;
        source = s.getKey();
      }
    }
    if (source == null) {
      return;
    }
    long startedAt = now;
    AlertSubject subject = AlertSubject.node(cluster, node);
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("last_seen", Instant.ofEpochMilli(lastSeen).toString());
    evidence.put("last_heard", Instant.ofEpochMilli(heardAt).toString());
    evidence.put("last_source", source);
    evidence.put("interval_ms", Long.toString(interval));
    evidence.put("silent_for", Durations.format(Duration.ofMillis(now - heardAt)));
    evidence.put("grace", Durations.format(Duration.ofMillis(grace)));
    evidence.put("sources", String.join(",", activity.sources().keySet()));
    String intervalText = Durations.format(Duration.ofMillis(interval));
    Message summary =
        Message.of(
            "collector_silent.firing",
            subject.shortName(),
            Durations.format(Duration.ofMillis(now - heardAt)),
            trim(missed),
            intervalText);
    j.tracker()
        .observe(
            Observation.holds(
                    subject,
                    now,
                    (now - heardAt) / 1000.0,
                    missed * interval / 1000.0,
                    "s",
                    summary,
                    evidence,
                    Lineage.NONE)
                .firingNow())
        .ifPresent(a -> forward(a, startedAt));
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
