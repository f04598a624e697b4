package io.fabricpulse.streams.detect.gpu;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.avro.XidKind;
import io.fabricpulse.schemas.gpu.XidCatalog;
import io.fabricpulse.schemas.gpu.XidInfo;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.detect.gpu.GpuHistory.Point;
import io.fabricpulse.streams.rules.Rule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per-GPU detection over fabric.raw.gpu (nvidia-smi samples) and fabric.raw.xid (kernel Xid
 * events), both keyed cluster/node so one node's GPUs and Xids meet in one task. Emits alerts keyed
 * by alert_id. See {@link XidRouting} for how an Xid joins the alert of the fault it belongs to,
 * and {@link GpuSampleChecks} for the sample conditions.
 *
 * <p>GPU_XID incidents are per (node, GPU or PCI address, Xid code): the Alert record has no Xid
 * field, so the code travels in {@code device} ({@code xid79}, or {@code xid79@PCI:0000:04:00} when
 * the address maps to no GPU index) and in the evidence. Repeats while the incident is open are
 * counted, not lost: the FIRING record carries the count at firing time, the RESOLVED record the
 * final count and the last occurrence [DCGMX-190][DCGMX-239].
 */
final class GpuDetectorProcessor extends DetectorProcessor<SpecificRecord> {

  private final GpuRules rules;
  private final List<AlertTracker> ecc = new ArrayList<>();
  private final List<AlertTracker> reset = new ArrayList<>();
  private final List<AlertTracker> aging = new ArrayList<>();
  private final List<AlertTracker> xid = new ArrayList<>();
  private final List<AlertTracker> hot = new ArrayList<>();
  private KeyValueStore<String, GpuHistory> history;
  private KeyValueStore<String, String> pciToGpu;
  private KeyValueStore<String, String> xidCounts;

  GpuDetectorProcessor(GpuRules rules, DetectorFailures failures) {
    super(failures);
    this.rules = rules;
  }

  @Override
  protected void open() {
    history = context().getStateStore(GpuHealthDetector.HISTORY_STORE);
    pciToGpu = context().getStateStore(GpuHealthDetector.PCI_STORE);
    xidCounts = context().getStateStore(GpuHealthDetector.XID_COUNT_STORE);
    String trackers = GpuHealthDetector.TRACKER_STORE;
    rules.ecc().forEach(r -> ecc.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
    rules.reset().forEach(r -> reset.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
    rules.aging().forEach(r -> aging.add(tracker(r, FiringPolicy.IMMEDIATE, trackers)));
    for (Rule r : rules.xid()) {
      xid.add(tracker(r, FiringPolicy.consecutive(r.thresholds().integer("min_count")), trackers));
    }
    for (Rule r : rules.hot()) {
      hot.add(tracker(r, new FiringPolicy(1, r.thresholds().duration("duration")), trackers));
    }
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  protected void judge(Record<String, SpecificRecord> record) {
    Lineage lineage = Lineage.of(context());
    if (record.value() instanceof GpuEcc sample) {
      onSample(sample, lineage, record);
    } else if (record.value() instanceof GpuXid event) {
      onXid(event, lineage);
    }
  }

  private void onSample(GpuEcc s, Lineage lineage, Record<String, SpecificRecord> record) {
    String node = s.getCluster() + "/" + s.getNode();
    PciAddress.busDevice(s.getPciBusId())
        .ifPresent(bd -> pciToGpu.put(node + "/" + bd, Integer.toString(s.getGpu())));
    AlertSubject subject = AlertSubject.node(s.getCluster(), s.getNode()).withGpu(s.getGpu());
    String historyKey = subject.key();
    GpuHistory prev = history.get(historyKey);
    long t = s.getTime().toEpochMilli();
    if (prev != null && t < prev.time()) {
      // Older than the GPU's latest sample (delivered twice, or late after an outage): the counts
      // it carries are not news, and as the history's latest it would make the next sample's
      // unchanged uncorrected count look like an increase.
      return;
    }
    GpuHistory now = next(prev, s, rules.keepCorrectedMs());

    // one rule that throws leaves a dead letter; the other rules still judge the sample
    for (AlertTracker tracker : ecc) {
      if (matches(tracker.rule(), s.getCluster(), s.getNode())) {
        guard(
            record,
            tracker.rule().id(),
            () -> {
              boolean firing = tracker.firing(subject.key()).isPresent();
              GpuSampleChecks.ecc(tracker.rule(), firing, subject, s, prev, lineage)
                  .ifPresent(o -> observe(tracker, o, t));
            });
      }
    }
    if (!eccFiring(subject)) {
      for (AlertTracker tracker : reset) {
        if (matches(tracker.rule(), s.getCluster(), s.getNode())) {
          guard(
              record,
              tracker.rule().id(),
              () ->
                  GpuSampleChecks.resetRequired(subject, s, lineage)
                      .ifPresent(o -> observe(tracker, o, t)));
        }
      }
    }
    for (AlertTracker tracker : aging) {
      if (matches(tracker.rule(), s.getCluster(), s.getNode())) {
        guard(
            record,
            tracker.rule().id(),
            () ->
                GpuSampleChecks.aging(tracker.rule(), subject, s, now, lineage)
                    .ifPresent(o -> observe(tracker, o, t)));
      }
    }
    for (AlertTracker tracker : hot) {
      if (matches(tracker.rule(), s.getCluster(), s.getNode())) {
        guard(
            record,
            tracker.rule().id(),
            () ->
                GpuSampleChecks.hot(tracker.rule(), subject, s, lineage)
                    .ifPresent(o -> observe(tracker, o, t)));
      }
    }
    history.put(historyKey, now);
  }

  /** The history after sample {@code s}; corrected readings restart when the basis resets. */
  static GpuHistory next(GpuHistory prev, GpuEcc s, long keepMs) {
    long t = s.getTime().toEpochMilli();
    Long corrected = GpuSampleChecks.correctedCount(s);
    boolean aggregate = s.getEccCorrectedAggregate() != null;
    List<Point> points = new ArrayList<>();
    if (corrected != null) {
      boolean continues =
          prev != null
              && prev.correctedAggregate() == aggregate
              && (aggregate || prev.bootId().equals(s.getBootId()))
              && (prev.corrected().isEmpty()
                  || prev.corrected().get(prev.corrected().size() - 1).value() <= corrected);
      if (continues) {
        for (Point p : prev.corrected()) {
          if (t - p.time() <= keepMs) {
            points.add(p);
          }
        }
      }
      points.add(new Point(t, corrected));
    }
    return new GpuHistory(
        s.getBootId(),
        t,
        s.getEccUncorrectedVolatile(),
        s.getEccUncorrectedAggregate(),
        aggregate,
        points);
  }

  private void onXid(GpuXid x, Lineage lineage) {
    long t = x.getTime().toEpochMilli();
    Integer gpu = x.getGpu();
    if (gpu == null) {
      gpu =
          PciAddress.busDevice(x.getPciBusId())
              .map(bd -> pciToGpu.get(x.getCluster() + "/" + x.getNode() + "/" + bd))
              .map(Integer::valueOf)
              .orElse(null);
    }
    AlertSubject gpuSubject = AlertSubject.node(x.getCluster(), x.getNode()).withGpu(gpu);
    if (gpu == null && x.getPciBusId() != null) {
      gpuSubject = gpuSubject.withDevice(x.getPciBusId());
    }
    Integer code = x.getKind() == XidKind.FALLEN_OFF_BUS ? null : x.getXid();
    Map<String, String> evidence = xidEvidence(x, gpu);
    String name = gpuSubject.shortName();
    boolean handled =
        switch (XidRouting.of(code)) {
          case ECC -> {
            Message summary = Message.of("gpu_ecc.xid", name, code, describe(code));
            AlertKind kind = XidRouting.eccKind(code).orElseThrow();
            yield observeAll(
                ecc,
                x,
                Observation.holds(gpuSubject, t, 1, 1, "xid", summary, evidence, lineage)
                    .withKind(kind)
                    .firingNow());
          }
          case RESET -> {
            Observation o =
                Observation.holds(
                        gpuSubject,
                        t,
                        1,
                        1,
                        "xid",
                        Message.of("gpu_reset_required.xid", name, code, describe(code)),
                        evidence,
                        lineage)
                    .firingNow();
            yield eccFiring(gpuSubject) ? observeAll(ecc, x, o) : observeAll(reset, x, o);
          }
          case FOLD_INTO_ECC ->
              eccFiring(gpuSubject)
                  && observeAll(
                      ecc,
                      x,
                      Observation.holds(
                              gpuSubject,
                              t,
                              1,
                              1,
                              "xid",
                              Message.of("gpu_ecc.xid", name, code, describe(code)),
                              evidence,
                              lineage)
                          .firingNow());
          case FOLD_INTO_AGING ->
              firingIn(aging, gpuSubject)
                  && observeAll(
                      aging,
                      x,
                      Observation.holds(
                              gpuSubject,
                              t,
                              1,
                              1,
                              "xid",
                              Message.of("gpu_ecc.xid", name, code, describe(code)),
                              evidence,
                              lineage)
                          .firingNow());
          case XID -> false;
        };
    if (!handled) {
      xidIncident(x, code, gpu, gpuSubject, evidence, lineage);
    }
  }

  /** GPU_XID: the rules whose severity is the catalog's severity of this code. */
  private void xidIncident(
      GpuXid x,
      Integer code,
      Integer gpu,
      AlertSubject gpuSubject,
      Map<String, String> evidence,
      Lineage lineage) {
    long t = x.getTime().toEpochMilli();
    Severity severity = code == null ? Severity.CRITICAL : XidCatalog.severity(code);
    String incident = code == null ? "fallen-off-bus" : "xid" + code;
    if (gpu == null && x.getPciBusId() != null) {
      incident += "@" + x.getPciBusId();
    }
    AlertSubject subject = gpuSubject.withDevice(incident);
    for (AlertTracker tracker : xid) {
      Rule rule = tracker.rule();
      if (rule.severity() != severity
          || !matches(rule, x.getCluster(), x.getNode())
          || tracker.resolvedBefore(subject.key(), t)) {
        continue; // not this rule's, or an occurrence of an incident already resolved
      }
      String countKey = rule.id() + "|" + subject.key();
      long count = countSoFar(countKey, t, rule) + 1;
      xidCounts.put(countKey, count + ";" + t);
      Map<String, String> e = new LinkedHashMap<>(evidence);
      e.put("count", Long.toString(count));
      Message summary =
          code == null
              ? Message.of("gpu_xid.fallen_off_bus", subject.shortName(), x.getMessage())
              : Message.of(
                  "gpu_xid.firing",
                  gpuSubject.shortName(),
                  code,
                  describe(code),
                  severity,
                  XidCatalog.lookup(code)
                      .map(XidInfo::action)
                      .orElse("unknown Xid: check NVIDIA's Xid catalog"));
      observe(
          tracker,
          Observation.holds(
                  subject,
                  t,
                  count,
                  rule.thresholds().integer("min_count"),
                  "xids",
                  summary,
                  e,
                  lineage)
              .withKind(AlertKind.GPU_XID),
          t);
      // An Xid is an instant, not a state: once the incident is FIRING it is clean again right
      // after each occurrence, so it resolves one hysteresis (the repeat window) after the last.
      if (tracker.firing(subject.key()).isPresent()) {
        observe(tracker, Observation.clean(subject, t, lineage), t);
      }
    }
  }

  /** Xids counted in the open incident; a count older than the hysteresis starts again. */
  private long countSoFar(String countKey, long t, Rule rule) {
    String stored = xidCounts.get(countKey);
    if (stored == null) {
      return 0;
    }
    String[] parts = stored.split(";");
    long lastAt = Long.parseLong(parts[1]);
    return t - lastAt > rule.hysteresis().toMillis() ? 0 : Long.parseLong(parts[0]);
  }

  private boolean observeAll(List<AlertTracker> trackers, GpuXid x, Observation o) {
    boolean any = false;
    for (AlertTracker tracker : trackers) {
      if (matches(tracker.rule(), x.getCluster(), x.getNode())) {
        observe(tracker, o, o.eventTime());
        any = true;
      }
    }
    return any;
  }

  private boolean eccFiring(AlertSubject subject) {
    return firingIn(ecc, subject);
  }

  private static boolean firingIn(List<AlertTracker> trackers, AlertSubject subject) {
    return trackers.stream().anyMatch(tr -> tr.firing(subject.key()).isPresent());
  }

  private void observe(AlertTracker tracker, Observation o, long timestamp) {
    tracker.observe(o).ifPresent(a -> emit(a, timestamp));
  }

  private void punctuate(long streamTime) {
    for (List<AlertTracker> trackers : List.of(ecc, reset, aging, xid, hot)) {
      for (AlertTracker tracker : trackers) {
        tracker.punctuate(streamTime).forEach(a -> emit(a, streamTime));
      }
    }
  }

  /** Forwards an alert; a RESOLVED Xid incident gets its final count and last occurrence. */
  private void emit(Alert alert, long timestamp) {
    Alert out = alert;
    if (alert.getKind() == AlertKind.GPU_XID && alert.getState() == AlertState.RESOLVED) {
      AlertSubject subject =
          new AlertSubject(
              alert.getCluster(),
              alert.getNode(),
              alert.getDevice(),
              alert.getPort(),
              alert.getNetdev(),
              alert.getPriority(),
              alert.getGpu(),
              alert.getJob());
      String countKey = alert.getRule() + "|" + subject.key();
      String stored = xidCounts.get(countKey);
      if (stored != null) {
        String[] parts = stored.split(";");
        Map<String, String> evidence = new LinkedHashMap<>(alert.getEvidence());
        evidence.put("count", parts[0]);
        evidence.put("last_seen", Instant.ofEpochMilli(Long.parseLong(parts[1])).toString());
        out =
            Alert.newBuilder(alert)
                .setEvidence(evidence)
                .setValue(Double.valueOf(parts[0]))
                .build();
        xidCounts.delete(countKey);
      }
    }
    forward(out, timestamp);
  }

  private static Map<String, String> xidEvidence(GpuXid x, Integer gpu) {
    Map<String, String> e = new LinkedHashMap<>();
    if (x.getXid() != null) {
      e.put("xid", Integer.toString(x.getXid()));
      XidCatalog.lookup(x.getXid())
          .ifPresent(
              info -> {
                e.put("xid_mnemonic", info.mnemonic());
                e.put("xid_action", info.action());
              });
    }
    e.put("xid_kind", x.getKind().toString());
    if (x.getPciBusId() != null) {
      e.put("xid_pci_bus_id", x.getPciBusId());
    }
    if (gpu != null) {
      e.put("xid_gpu", Integer.toString(gpu));
    }
    if (x.getPid() != null) {
      e.put("xid_pid", Integer.toString(x.getPid()));
    }
    if (x.getProcessName() != null) {
      e.put("xid_process", x.getProcessName());
    }
    e.put("xid_first_seen", x.getTime().toString());
    e.put("xid_line", x.getRawLine());
    e.put("boot_id", x.getBootId());
    return e;
  }

  private static String describe(Integer code) {
    return code == null
        ? "GPU has fallen off the bus"
        : XidCatalog.lookup(code).map(XidInfo::description).orElse("unknown Xid");
  }

  private static boolean matches(Rule rule, String cluster, String node) {
    return rule.selectors().matches(cluster, node, null, null, null);
  }
}
