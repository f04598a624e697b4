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
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * collector_silent over the rates of one node partition of fabric.rates. Each rates record records
 * when its node last reported per source, when that was heard (the partition clock: the latest
 * rates time seen here) and learns the node's interval per source (median of the rate stage's
 * interval_ms of its last samples). Every second of stream time, a node whose every source was
 * heard more than {@code missed_intervals x interval + grace} of partition clock ago is silent:
 * COLLECTOR_SILENT fires at once, started at the clock, and resolves on the node's next sample (the
 * rule's hysteresis, 0 s by default), at the clock then: never before it started.
 *
 * <p>The clock is the partition's own (other nodes reporting reveal one node's silence) and "heard"
 * is measured on it, so a node whose samples trail the others' but keep arriving is not silent.
 * Limits: if every node of the partition stops, the clock stops and nothing fires; a node that
 * never reported is unknown.
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

  /** The partition clock; restored from the store (the latest heardAt) on first use. */
  private long clock = Long.MIN_VALUE;

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
    long now = advanceClock(time);
    String source = r.getSource().name();
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
    for (Judged j : judged) {
      if (j.rule().selectors().matches(r.getCluster(), r.getNode(), null, null, null)) {
        // clean at the clock, the time the alert started at: resolved_at >= started_at
        j.tracker()
            .observe(Observation.clean(subject, now, lineage))
            .ifPresent(a -> forward(a, now));
      }
    }
  }

  /** The partition clock after a record at {@code time}. */
  private long advanceClock(long time) {
    restoreClock();
    clock = Math.max(clock, time);
    return clock;
  }

  /** After a start or restart: the clock stood at the latest heardAt of the store. */
  private void restoreClock() {
    if (clock == Long.MIN_VALUE) {
      try (KeyValueIterator<String, NodeActivity> it = nodes.all()) {
        it.forEachRemaining(
            e -> e.value.sources().values().forEach(s -> clock = Math.max(clock, s.heardAt())));
      }
    }
  }

  private void punctuate(long streamTime) {
    restoreClock();
    if (clock == Long.MIN_VALUE) {
      return; // no node known yet
    }
    List<KeyValue<String, NodeActivity>> all = new ArrayList<>();
    try (KeyValueIterator<String, NodeActivity> it = nodes.all()) {
      it.forEachRemaining(all::add);
    }
    long now = clock;
    for (KeyValue<String, NodeActivity> e : all) {
      int bar = e.key.indexOf('|');
      String cluster = e.key.substring(0, bar);
      String node = e.key.substring(bar + 1);
      for (Judged j : judged) {
        if (j.rule().selectors().matches(cluster, node, null, null, null)) {
          judge(j, cluster, node, e.value, now);
        }
      }
    }
    for (Judged j : judged) {
      j.tracker().punctuate(now).forEach(a -> forward(a, now));
    }
  }

  private void judge(Judged j, String cluster, String node, NodeActivity activity, long now) {
    Rule rule = j.rule();
    double missed = rule.thresholds().number("missed_intervals");
    int samples = (int) rule.thresholds().integer("interval_samples");
    long fallback = rule.thresholds().duration("default_interval").toMillis();
    long grace = rule.thresholds().duration("grace").toMillis();
    long deadline = Long.MIN_VALUE;
    long lastSeen = Long.MIN_VALUE;
    long heardAt = Long.MIN_VALUE;
    long interval = fallback;
    String source = null;
    for (Map.Entry<String, SourceActivity> s : activity.sources().entrySet()) {
      long i = s.getValue().interval(samples, fallback);
      long d = s.getValue().heardAt() + (long) Math.ceil(missed * i);
      if (d > deadline) {
        deadline = d;
        lastSeen = s.getValue().lastSeen();
        heardAt = s.getValue().heardAt();
        interval = i;
        source = s.getKey();
      }
    }
    if (source == null || now <= deadline + grace) {
      return; // not silent; a heartbeat (not a punctuation) resolves a FIRING alert
    }
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
        .ifPresent(a -> forward(a, now));
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
