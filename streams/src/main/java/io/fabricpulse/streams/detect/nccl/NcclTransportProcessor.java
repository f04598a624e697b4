package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.detect.link.LinkProgress;
import io.fabricpulse.streams.detect.nccl.NcclChecks.Judged;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per host (key cluster/host): folds NCCL records into one {@link NcclTransportVerdict} per (host,
 * job or file), publishes every change as an {@link NcclTransport}, keeps the host's RDMA port
 * inventory from the port-state changes of fabric.rates, and raises GDR_FALLBACK,
 * NET_FALLBACK_SOCKET and NCCL_ERROR through one {@link AlertTracker} per rule.
 *
 * <p>Lifecycle: a fallback verdict holds for the life of the job (NCCL prints its transport only at
 * init, then is silent for days), so its alert stays FIRING until the verdict changes, or until the
 * job has logged nothing for {@link #VERDICT_IDLE_EXPIRY}: the verdict is then forgotten, and the
 * alert resolves after the rule's hysteresis. A failure line (a fatal NCCL WARN such as a
 * completion error, or an application line such as a PyTorch watchdog timeout) is an event: it
 * holds at its instant, so the NCCL_ERROR of a host and job resolves one hysteresis after its last
 * failure line, and every failure line before that is the same page.
 */
final class NcclTransportProcessor extends DetectorProcessor<SpecificRecord> {

  private static final StringSerializer KEYS = new StringSerializer();

  /** A job log silent this long is a finished job (as long as raw topics keep history). */
  static final Duration VERDICT_IDLE_EXPIRY = Duration.ofDays(7);

  private static final Duration EXPIRY_SCAN_EVERY = Duration.ofMinutes(1);

  private final NcclChecks checks;
  private final Map<String, AlertTracker> trackers = new LinkedHashMap<>();
  private KeyValueStore<String, NcclTransportVerdict> verdicts;
  private KeyValueStore<String, NodePorts> nodePorts;
  private long lastExpiryScan = Long.MIN_VALUE;

  /** Whether the link detector's alerts reach this processor (a topology with the link family). */
  private final boolean linkAlertsShared;

  private NodeLinkAlerts links;

  /** This task, as the job stage knows it ({@link JobStageProgress}). */
  private String source;

  /** The clusters this task has seen records of: each gets a progress tick. */
  private final Set<String> clusters = new TreeSet<>();

  /** The time of the last progress tick sent; no job host alert goes out at or before it. */
  private long lastTick = Long.MIN_VALUE;

  NcclTransportProcessor(NcclChecks checks, boolean linkAlertsShared, DetectorFailures failures) {
    super(failures);
    this.checks = checks;
    this.linkAlertsShared = linkAlertsShared;
  }

  @Override
  protected void open() {
    this.source = "nccl-" + context().taskId().partition();
    this.verdicts = context().getStateStore(NcclTransportDetector.VERDICT_STORE);
    this.nodePorts = context().getStateStore(NcclTransportDetector.NODE_PORTS_STORE);
    for (Rule rule : checks.allRules()) {
      trackers.put(
          rule.id(),
          tracker(rule, NcclTransportDetector.POLICY, NcclTransportDetector.TRACKER_STORE));
    }
    links =
        new NodeLinkAlerts(
            context().getStateStore(NcclTransportDetector.NODE_LINK_ALERTS_STORE),
            context().getStateStore(NcclTransportDetector.NODE_LINK_CLOCK_STORE),
            context().getStateStore(NcclTransportDetector.HELD_ERRORS_STORE),
            checks.linkWindows());
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  protected void judge(Record<String, SpecificRecord> record) {
    Lineage lineage = Lineage.of(context());
    clusters.add(clusterOf(record.key()));
    if (record.value() instanceof NcclLog log) {
      onLog(record.key(), log, lineage);
    } else if (record.value() instanceof CounterRates rates) {
      onPortChange(record.key(), rates, lineage);
    } else if (record.value() instanceof Alert linkAlert) {
      links.remember(record.key(), linkAlert, record.timestamp());
    }
  }

  /** A progress marker of the link detector: the node's link alerts are sent up to its time. */
  @Override
  protected void marker(Record<String, SpecificRecord> record) {
    if (LinkProgress.isMarker(record.headers())) {
      clusters.add(clusterOf(record.key()));
      links.advance(record.key(), record.timestamp()).forEach(this::send);
    }
  }

  private void onLog(String hostKey, NcclLog log, Lineage lineage) {
    String key = hostKey + "|" + NcclTransportVerdict.groupKey(log);
    NcclTransportVerdict verdict = verdicts.get(key);
    if (verdict == null) {
      if (!NcclTransportVerdict.carriesSignal(log)) {
        return; // a version banner or chatter does not open a verdict of its own
      }
      verdict = new NcclTransportVerdict();
    }
    boolean changed = verdict.add(log);
    verdicts.put(key, verdict);
    long time = log.getTime().toEpochMilli();
    if (changed) {
      NcclTransport transport = verdict.toRecord();
      context().forward(new Record<>(transportKey(verdict, log), transport, time));
      NodePorts ports = nodePorts.get(hostKey);
      checks.gdrFallback(verdict, time, lineage).ifPresent(j -> observe(j, time));
      checks.socketFallback(verdict, ports, time, lineage).ifPresent(j -> observe(j, time));
    }
    Optional<Judged> failure = checks.failure(log, verdict, lineage);
    failure.ifPresent(
        j -> {
          observe(j, time);
          // the failure held at its instant only: the clean time starts the hysteresis, and
          // further failure lines of the job on this host within it are the same page
          observe(
              new Judged(j.rule(), Observation.clean(j.observation().subject(), time, lineage)),
              time);
        });
  }

  private void onPortChange(String hostKey, CounterRates rates, Lineage lineage) {
    NodePorts ports = nodePorts.get(hostKey);
    if (ports == null) {
      ports = new NodePorts();
    }
    List<String> activeBefore = ports.activePorts();
    ports.update(rates);
    nodePorts.put(hostKey, ports);
    if (activeBefore.equals(ports.activePorts())) {
      return;
    }
    // a port came up (or went down) after the job logged Socket: judge the host's verdicts again
    long time = rates.getTime().toEpochMilli();
    List<NcclTransportVerdict> ofHost = new ArrayList<>();
    try (KeyValueIterator<String, NcclTransportVerdict> it =
        verdicts.prefixScan(hostKey + "|", KEYS)) {
      it.forEachRemaining(e -> ofHost.add(e.value));
    }
    for (NcclTransportVerdict verdict : ofHost) {
      if ("Socket".equals(verdict.net())) {
        checks.socketFallback(verdict, ports, time, lineage).ifPresent(j -> observe(j, time));
      }
    }
  }

  private void punctuate(long streamTime) {
    if (lastExpiryScan == Long.MIN_VALUE
        || streamTime - lastExpiryScan >= EXPIRY_SCAN_EVERY.toMillis()) {
      lastExpiryScan = streamTime;
      expireIdleVerdicts(streamTime);
    }
    for (AlertTracker tracker : trackers.values()) {
      tracker.punctuate(streamTime).forEach(a -> emit(a, streamTime));
    }
    links.releaseWithoutWaiting(streamTime).forEach(this::send);
    // the job stage may judge the host alerts of jobs up to here (log lines up to SETTLE late
    // still keep their own time)
    long complete = streamTime - 1 - JobStageProgress.SETTLE.toMillis();
    if (complete > lastTick) {
      lastTick = complete;
      for (String cluster : clusters) {
        context().forward(new Record<>(cluster, null, complete, JobStageProgress.headers(source)));
      }
    }
  }

  /** Every input key starts with the cluster: cluster/host, cluster/node. */
  private static String clusterOf(String key) {
    int slash = key.indexOf('/');
    return slash < 0 ? key : key.substring(0, slash);
  }

  /**
   * Sends an alert of a tracker; with the link detector in the topology, an NCCL_ERROR first waits
   * for its node's link alerts ({@link NodeLinkAlerts}).
   */
  private void emit(Alert alert, long timestamp) {
    if (linkAlertsShared && NodeLinkAlerts.waits(alert)) {
      links.hold(alert.getCluster() + "/" + alert.getNode(), alert).forEach(this::send);
    } else {
      out(alert, timestamp);
    }
  }

  private void send(NodeLinkAlerts.Released r) {
    out(r.alert(), r.timestamp());
  }

  /**
   * A host alert of a job goes to the job stage named by this task and never at or before the last
   * progress tick ({@link JobStageProgress}); any other alert goes out as it is.
   */
  private void out(Alert alert, long timestamp) {
    if (!JobIncidents.perJob(alert)) {
      forward(alert, timestamp);
      return;
    }
    long at = Math.max(timestamp, lastTick + 1); // lastTick + 1 is MIN_VALUE + 1 before any tick
    context()
        .forward(new Record<>(alert.getAlertId(), alert, at, JobStageProgress.headers(source)));
  }

  private void expireIdleVerdicts(long now) {
    List<KeyValue<String, NcclTransportVerdict>> idle = new ArrayList<>();
    try (KeyValueIterator<String, NcclTransportVerdict> it = verdicts.all()) {
      while (it.hasNext()) {
        KeyValue<String, NcclTransportVerdict> e = it.next();
        if (now - e.value.lastSeenAt().toEpochMilli() > VERDICT_IDLE_EXPIRY.toMillis()) {
          idle.add(e);
        }
      }
    }
    for (KeyValue<String, NcclTransportVerdict> e : idle) {
      verdicts.delete(e.key);
      Observation clean = Observation.clean(NcclChecks.subject(e.value), now, Lineage.NONE);
      for (AlertTracker tracker : trackers.values()) {
        tracker.observe(clean).ifPresent(a -> emit(a, now));
      }
    }
  }

  private void observe(Judged judged, long time) {
    AlertTracker tracker = trackers.get(judged.rule().id());
    tracker.observe(judged.observation()).ifPresent(a -> emit(a, time));
  }

  /** Key of fabric.nccl.transport: cluster/host/job, or cluster/host/file:PATH without a job. */
  static String transportKey(NcclTransportVerdict verdict, NcclLog log) {
    String what = verdict.job() != null ? verdict.job() : "file:" + log.getFile();
    return verdict.cluster() + "/" + verdict.host() + "/" + what;
  }
}
