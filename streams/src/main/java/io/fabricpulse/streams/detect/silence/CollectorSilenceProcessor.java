package io.fabricpulse.streams.detect.silence;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.alerts.TrackerState;
import io.fabricpulse.streams.detect.silence.NodeActivity.SourceActivity;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * collector_silent over node heartbeats repartitioned by cluster. Each heartbeat records when the
 * node last reported per source and learns the node's interval per source (median of the rate
 * stage's interval_ms of its last samples). Every second of stream time, a node whose every source
 * is past {@code last_seen + missed_intervals x interval + grace} is silent: COLLECTOR_SILENT fires
 * at once and resolves on the node's next heartbeat (the rule's hysteresis, 0 s by default).
 *
 * <p>Stream time is this task's: the largest heartbeat time of the clusters in its partition, so it
 * is the other nodes reporting that reveal one node's silence. Limits: if every node of the
 * partition stops, stream time stops and nothing fires; a node that never reported is unknown.
 */
final class CollectorSilenceProcessor implements Processor<String, CounterRates, String, Alert> {

  static final Duration PUNCTUATE_EVERY = Duration.ofSeconds(1);

  private record Judged(Rule rule, AlertTracker tracker) {}

  private final List<Rule> rules;
  private final List<Judged> judged = new ArrayList<>();
  private final int keepIntervals;
  private ProcessorContext<String, Alert> context;
  private KeyValueStore<String, NodeActivity> nodes;

  CollectorSilenceProcessor(List<Rule> rules) {
    this.rules = List.copyOf(rules);
    this.keepIntervals =
        (int)
            rules.stream()
                .mapToLong(r -> r.thresholds().integer("interval_samples"))
                .max()
                .orElse(1);
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.nodes = context.getStateStore(CollectorSilenceDetector.NODES_STORE);
    KeyValueStore<String, TrackerState> trackers =
        context.getStateStore(CollectorSilenceDetector.TRACKER_STORE);
    for (Rule rule : rules) {
      judged.add(new Judged(rule, new AlertTracker(rule, FiringPolicy.IMMEDIATE, trackers)));
    }
    context.schedule(PUNCTUATE_EVERY, PunctuationType.STREAM_TIME, this::punctuate);
  }

  @Override
  public void process(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r == null) {
      return;
    }
    String key = r.getCluster() + "|" + r.getNode();
    long time = r.getTime().toEpochMilli();
    NodeActivity before = nodes.get(key);
    NodeActivity after =
        (before == null ? NodeActivity.NONE : before)
            .seen(r.getSource().name(), time, r.getIntervalMs(), keepIntervals);
    if (!after.equals(before)) {
      nodes.put(key, after);
    }
    AlertSubject subject = AlertSubject.node(r.getCluster(), r.getNode());
    Lineage lineage = Lineage.of(context);
    for (Judged j : judged) {
      if (j.rule().selectors().matches(r.getCluster(), r.getNode(), null, null, null)) {
        j.tracker()
            .observe(Observation.clean(subject, time, lineage))
            .ifPresent(a -> forward(a, record.timestamp()));
      }
    }
  }

  private void punctuate(long streamTime) {
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
          judge(j, cluster, node, e.value, streamTime);
        }
      }
    }
    for (Judged j : judged) {
      j.tracker().punctuate(streamTime).forEach(a -> forward(a, streamTime));
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
    long interval = fallback;
    String source = null;
    for (Map.Entry<String, SourceActivity> s : activity.sources().entrySet()) {
      long i = s.getValue().interval(samples, fallback);
      long d = s.getValue().lastSeen() + (long) Math.ceil(missed * i);
      if (d > deadline) {
        deadline = d;
        lastSeen = s.getValue().lastSeen();
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
    evidence.put("last_source", source);
    evidence.put("interval_ms", Long.toString(interval));
    evidence.put("silent_for", Durations.format(Duration.ofMillis(now - lastSeen)));
    evidence.put("grace", Durations.format(Duration.ofMillis(grace)));
    evidence.put("sources", String.join(",", activity.sources().keySet()));
    String intervalText = Durations.format(Duration.ofMillis(interval));
    Message summary =
        Message.of(
            "collector_silent.firing",
            subject.shortName(),
            Durations.format(Duration.ofMillis(now - lastSeen)),
            trim(missed),
            intervalText);
    j.tracker()
        .observe(
            Observation.holds(
                    subject,
                    now,
                    (now - lastSeen) / 1000.0,
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

  private void forward(Alert alert, long timestamp) {
    context.forward(new Record<>(alert.getAlertId(), alert, timestamp));
  }
}
