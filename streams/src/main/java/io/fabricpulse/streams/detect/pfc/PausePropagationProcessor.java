package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.alerts.TrackerState;
import io.fabricpulse.streams.order.UpstreamWatermark;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Cluster-wide view of per-port PAUSE_STORM alerts (input keyed by cluster). When storms are
 * FIRING, or resolved less than {@code window} ago, on at least {@code min_nodes} nodes, it raises
 * one PAUSE_PROPAGATION incident naming the likely origin port(s) and the victims.
 *
 * <p>What the operator is paged with: every origin's PAUSE_STORM passes through at once (it names
 * the port to drain). A victim's FIRING arrives marked {@link StormPage#HOLD}: it counts towards
 * the incident but is not published. If an incident of its cluster is open, or opens, before the
 * port stage releases it ({@link StormPage#RELEASE}, {@code window} of event time after it fired,
 * see {@link VictimHold}), it is folded into the incident: neither its FIRING nor its RESOLVED is
 * ever published. Otherwise the release publishes the FIRING late, unchanged (started_at is when
 * the storm started), and its RESOLVED follows normally. So a storm spreading to 40 nodes pages the
 * origin and one incident; a storm on fewer than min_nodes nodes pages every port, victims after
 * the hold. The incident stays open while any storm of the cluster is FIRING and resolves when the
 * last one resolves plus the rule's hysteresis.
 *
 * <p>Event-time order: the storms of one cluster come from several port-stage tasks (one per
 * fabric.rates partition) whose progress differs, so their records interleave here in no time order
 * (a victim's release can arrive before the storm, from a slower task, that opens the incident
 * folding it). Every storm record therefore waits in {@link PendingStorms} until the {@link
 * UpstreamWatermark} (every task has sent all its records up to that time; tasks send progress
 * ticks every second of their stream time) has passed it, and is then judged in event-time order:
 * the same storms give the same pages whatever the arrival order. Only an origin's FIRING, which
 * nothing can fold, is published on arrival.
 *
 * <p>Switch hops: the cluster's links from fabric.topology (repartitioned by cluster into this
 * stage, store {@link PauseStormDetector#PROPAGATION_LINKS_STORE}) trace the incident across the
 * fabric ({@link SwitchHops}): the origins' switches, the spines between them and the victims'
 * switches, each with its victims, in the evidence and the summary. Links are applied as they
 * arrive, storms when the watermark passes them, so an incident is traced on the cabling of every
 * sweep read by then; a tombstone (a cable the sweep no longer shows, as while it is down) keeps
 * the link, as in the topology join.
 */
final class PausePropagationProcessor implements Processor<String, SpecificRecord, String, Alert> {

  private static final StringSerializer KEYS = new StringSerializer();

  private final List<Rule> rules;
  private final List<AlertTracker> trackers = new ArrayList<>();
  private KeyValueStore<String, Alert> storms;

  /** What became of a victim storm's FIRING (store value, by name). */
  private enum Victim {
    HELD,
    FOLDED,
    PUBLISHED
  }

  private KeyValueStore<String, String> victimPages;
  private KeyValueStore<String, FabricLink> links;
  private PendingStorms pending;
  private UpstreamWatermark watermark;
  private ProcessorContext<String, Alert> context;
  private long keepResolvedMs;

  PausePropagationProcessor(List<Rule> rules) {
    this.rules = rules;
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
    this.storms = context.getStateStore(PauseStormDetector.PROPAGATION_STORMS_STORE);
    this.victimPages = context.getStateStore(PauseStormDetector.PROPAGATION_VICTIMS_STORE);
    this.links = context.getStateStore(PauseStormDetector.PROPAGATION_LINKS_STORE);
    this.pending =
        new PendingStorms(context.getStateStore(PauseStormDetector.PROPAGATION_PENDING_STORE));
    this.watermark =
        new UpstreamWatermark(
            context.getStateStore(PauseStormDetector.PROPAGATION_PROGRESS_STORE),
            StreamsSettings.ratesPartitions(context.appConfigs()));
    KeyValueStore<String, TrackerState> trackerStore =
        context.getStateStore(PauseStormDetector.PROPAGATION_TRACKER_STORE);
    for (Rule rule : rules) {
      trackers.add(new AlertTracker(rule, FiringPolicy.IMMEDIATE, trackerStore));
      keepResolvedMs = Math.max(keepResolvedMs, rule.thresholds().duration("window").toMillis());
    }
  }

  @Override
  public void process(Record<String, SpecificRecord> record) {
    if (record.value() instanceof FabricLink link) {
      links.put(link.getLinkId(), link); // the cabling the next incidents are traced on
      return;
    }
    StormPage page = StormPage.of(record.headers());
    String source = StormPage.sourceOf(record.headers());
    long time = record.timestamp();
    Alert storm = (Alert) record.value();
    if (page == StormPage.TICK) {
      watermark.advance(source, time); // the source has sent everything up to time
    } else if (storm != null) {
      // more records of this very time may follow from the same source
      watermark.advance(source, time - 1);
      if (page == StormPage.PAGE && storm.getState() == AlertState.FIRING) {
        forward(storm, time); // an origin pages at once: no incident can fold it
      }
      pending.add(time, source, Lineage.of(context), page, storm);
    }
    judgeUpTo(watermark.value());
  }

  /**
   * Judges, in event-time order, every pending storm record no source can still precede, then
   * resolves incidents clean for their hysteresis by then.
   */
  private void judgeUpTo(long watermark) {
    if (watermark == UpstreamWatermark.NONE) {
      return;
    }
    for (PendingStorms.Pending p : pending.upTo(watermark)) {
      resolveIncidents(p.time() - 1);
      judge(p);
      pending.done(p);
    }
    resolveIncidents(watermark);
  }

  private void judge(PendingStorms.Pending p) {
    Alert storm = p.alert();
    String cluster = storm.getCluster();
    String key = cluster + "|" + storm.getAlertId();
    long now = p.time();
    StormPage page = p.page();
    if (page == StormPage.RELEASE) {
      release(key, storm, now); // counted when it arrived held: nothing to re-evaluate
      return;
    }
    if (page == StormPage.HOLD && storm.getState() == AlertState.FIRING) {
      victimPages.put(key, Victim.HELD.name());
    }
    storms.put(key, storm);
    List<Alert> incidents = evaluate(cluster, now, p.lineage());
    if (openIncident(cluster).isPresent()) {
      foldHeldVictims(cluster);
    }
    if (storm.getState() == AlertState.RESOLVED) {
      String was = victimPages.get(key);
      victimPages.delete(key);
      if (was == null || Victim.PUBLISHED.name().equals(was)) {
        forward(storm, now); // an origin's, or a victim's whose FIRING was published
      }
    } // a FIRING: an origin's went out on arrival, a victim's waits for its RELEASE
    incidents.forEach(a -> forward(a, now));
  }

  /** The hold of a victim's FIRING is over: publish it unless an incident folded it. */
  private void release(String key, Alert storm, long now) {
    if (Victim.FOLDED.name().equals(victimPages.get(key))) {
      return;
    }
    victimPages.put(key, Victim.PUBLISHED.name());
    forward(storm, now);
  }

  /** An incident is open in the cluster: every victim still held is folded into it. */
  private void foldHeldVictims(String cluster) {
    List<String> held = new ArrayList<>();
    try (KeyValueIterator<String, String> it = victimPages.prefixScan(cluster + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, String> e = it.next();
        if (Victim.HELD.name().equals(e.value)) {
          held.add(e.key);
        }
      }
    }
    held.forEach(k -> victimPages.put(k, Victim.FOLDED.name()));
  }

  private List<Alert> evaluate(String cluster, long now, Lineage lineage) {
    List<Alert> current = new ArrayList<>();
    List<String> expired = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it = storms.prefixScan(cluster + "|", KEYS)) {
      while (it.hasNext()) {
        KeyValue<String, Alert> e = it.next();
        Alert a = e.value;
        if (a.getState() == AlertState.RESOLVED
            && a.getResolvedAt().toEpochMilli() < now - keepResolvedMs) {
          expired.add(e.key);
        } else {
          current.add(a);
        }
      }
    }
    expired.forEach(storms::delete);
    List<Alert> out = new ArrayList<>();
    for (AlertTracker tracker : trackers) {
      tracker.observe(observe(tracker.rule(), cluster, current, now, lineage)).ifPresent(out::add);
    }
    forgetStormsOfResolvedIncidents(out);
    return out;
  }

  /**
   * The storms of a resolved incident are accounted for: they must not count towards the next
   * incident of the cluster (a single new storm right after would otherwise reopen one).
   */
  private void forgetStormsOfResolvedIncidents(List<Alert> incidents) {
    for (Alert incident : incidents) {
      if (incident.getState() != AlertState.RESOLVED) {
        continue;
      }
      List<String> done = new ArrayList<>();
      try (KeyValueIterator<String, Alert> it =
          storms.prefixScan(incident.getCluster() + "|", KEYS)) {
        while (it.hasNext()) {
          KeyValue<String, Alert> e = it.next();
          if (e.value.getState() == AlertState.RESOLVED) {
            done.add(e.key);
          }
        }
      }
      done.forEach(storms::delete);
    }
  }

  private Observation observe(
      Rule rule, String cluster, List<Alert> current, long now, Lineage lineage) {
    long window = rule.thresholds().duration("window").toMillis();
    long minNodes = rule.thresholds().integer("min_nodes");
    TreeSet<String> nodes = new TreeSet<>();
    TreeSet<String> origins = new TreeSet<>();
    TreeSet<String> victims = new TreeSet<>();
    List<Alert> originStorms = new ArrayList<>();
    List<Alert> victimStorms = new ArrayList<>();
    TreeSet<String> ids = new TreeSet<>();
    boolean anyFiring = false;
    for (Alert a : current) {
      if (!rule.selectors()
          .matches(a.getCluster(), a.getNode(), a.getDevice(), a.getNetdev(), a.getPriority())) {
        continue;
      }
      boolean firing = a.getState() == AlertState.FIRING;
      if (!firing && a.getResolvedAt().toEpochMilli() < now - window) {
        continue;
      }
      anyFiring |= firing;
      nodes.add(a.getNode());
      ids.add(a.getAlertId());
      String name = subjectOf(a).shortName();
      (PortRole.isOrigin(a) ? origins : victims).add(name);
      (PortRole.isOrigin(a) ? originStorms : victimStorms).add(a);
    }
    AlertSubject subject = AlertSubject.cluster(cluster);
    boolean open = openIncident(cluster).isPresent();
    boolean holds = anyFiring && (open || nodes.size() >= minNodes);
    if (!holds) {
      return Observation.clean(subject, now, lineage);
    }
    String originText =
        origins.isEmpty()
            ? Message.of("pause_propagation.unknown_origin").render()
            : String.join(", ", origins);
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("origins", String.join(", ", origins));
    evidence.put("victims", String.join(", ", victims));
    evidence.put("nodes", String.join(", ", nodes));
    evidence.put("storm_alert_ids", String.join(", ", ids));
    evidence.put("window", Durations.format(rule.thresholds().duration("window")));
    Map<String, String> trace = switchHops(cluster).evidence(originStorms, victimStorms);
    evidence.putAll(trace);
    Message summary =
        trace.containsKey(SwitchHops.PATH)
            ? Message.of(
                "pause_propagation.firing_traced",
                nodes.size(),
                cluster,
                originText,
                trace.get(SwitchHops.PATH),
                String.join(", ", victims))
            : Message.of(
                "pause_propagation.firing",
                nodes.size(),
                cluster,
                originText,
                String.join(", ", victims));
    return Observation.holds(
        subject, now, nodes.size(), minNodes, "nodes", summary, evidence, lineage);
  }

  /** The cluster's cabling as the links read so far show it (link ids start with the cluster). */
  private SwitchHops switchHops(String cluster) {
    List<FabricLink> known = new ArrayList<>();
    try (KeyValueIterator<String, FabricLink> it = links.prefixScan(cluster + "/", KEYS)) {
      it.forEachRemaining(e -> known.add(e.value));
    }
    return SwitchHops.of(known);
  }

  private Optional<Alert> openIncident(String cluster) {
    String key = AlertSubject.cluster(cluster).key();
    for (AlertTracker t : trackers) {
      Optional<Alert> a = t.firing(key);
      if (a.isPresent()) {
        return a;
      }
    }
    return Optional.empty();
  }

  /** Incidents clean for their hysteresis at {@code now} resolve, at their resolved_at. */
  private void resolveIncidents(long now) {
    for (AlertTracker t : trackers) {
      List<Alert> resolved = t.punctuate(now);
      forgetStormsOfResolvedIncidents(resolved);
      resolved.forEach(a -> forward(a, a.getResolvedAt().toEpochMilli()));
    }
  }

  private static AlertSubject subjectOf(Alert a) {
    return new AlertSubject(
        a.getCluster(),
        a.getNode(),
        a.getDevice(),
        a.getPort(),
        a.getNetdev(),
        a.getPriority(),
        a.getGpu(),
        a.getJob());
  }

  private void forward(Alert alert, long timestamp) {
    context.forward(new Record<>(alert.getAlertId(), alert, timestamp));
  }
}
