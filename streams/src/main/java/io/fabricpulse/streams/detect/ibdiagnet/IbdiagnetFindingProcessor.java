package io.fabricpulse.streams.detect.ibdiagnet;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.FabricFinding;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Judges each ibdiagnet run: every subject a rule takes from the run fires (once; a later run that
 * reports it again keeps it FIRING), every subject the collector's previous run reported for the
 * rule and this one does not is clean at this run's time, which resolves it after the rule's
 * hysteresis (0s in the bundled rules: at the clean run). A run older than the last judged one of
 * its collector is ignored. A rule that throws leaves a dead letter; the others still judge the
 * run.
 */
final class IbdiagnetFindingProcessor extends DetectorProcessor<FabricFindings> {

  private final List<FindingCheck> checks;
  private final List<AlertTracker> trackers = new ArrayList<>();
  private KeyValueStore<String, String> reported;

  IbdiagnetFindingProcessor(List<FindingCheck> checks, DetectorFailures failures) {
    super(failures);
    this.checks = checks;
  }

  @Override
  protected void open() {
    reported = context().getStateStore(IbdiagnetFindingDetector.REPORTED_STORE);
    checks.forEach(
        c -> trackers.add(tracker(c.rule(), c.policy(), IbdiagnetFindingDetector.TRACKER_STORE)));
  }

  @Override
  protected void judge(Record<String, FabricFindings> record) {
    FabricFindings run = record.value();
    Lineage lineage = Lineage.of(context());
    for (int i = 0; i < checks.size(); i++) {
      FindingCheck check = checks.get(i);
      AlertTracker tracker = trackers.get(i);
      guard(record, check.rule().id(), () -> judge(check, tracker, run, lineage, record));
    }
  }

  private void judge(
      FindingCheck check,
      AlertTracker tracker,
      FabricFindings run,
      Lineage lineage,
      Record<String, FabricFindings> record) {
    String collector = run.getCluster() + "/" + run.getObservedBy();
    String storeKey = check.rule().id() + "|" + collector;
    long runTime = run.getRunTime().toEpochMilli();
    String previous = reported.get(storeKey);
    if (previous != null) {
      int tab = previous.indexOf('\n');
      long lastRun = Long.parseLong(tab < 0 ? previous : previous.substring(0, tab));
      if (runTime <= lastRun) {
        return; // the same run read again, or an older one
      }
    }
    Map<String, List<FabricFinding>> bySubject = new LinkedHashMap<>();
    Map<String, AlertSubject> subjects = new LinkedHashMap<>();
    for (FabricFinding f : run.getFindings()) {
      if (check.takes(run.getCluster(), f)) {
        AlertSubject subject = FindingSubjects.of(run.getCluster(), run.getObservedBy(), f);
        String line = FindingSubjects.encode(subject);
        subjects.putIfAbsent(line, subject);
        bySubject.computeIfAbsent(line, l -> new ArrayList<>()).add(f);
      }
    }
    for (Map.Entry<String, List<FabricFinding>> e : bySubject.entrySet()) {
      Observation o = firing(run, subjects.get(e.getKey()), e.getValue(), lineage);
      forward(tracker.observe(o), record.timestamp());
    }
    if (previous != null) {
      List<String> lines = List.of(previous.split("\n"));
      for (String line : lines.subList(1, lines.size())) {
        if (!bySubject.containsKey(line)) {
          AlertSubject gone = FindingSubjects.decode(run.getCluster(), line);
          forward(tracker.observe(Observation.clean(gone, runTime, lineage)), record.timestamp());
        }
      }
    }
    StringBuilder now = new StringBuilder(Long.toString(runTime));
    bySubject.keySet().forEach(line -> now.append('\n').append(line));
    reported.put(storeKey, now.toString());
  }

  private static Observation firing(
      FabricFindings run, AlertSubject subject, List<FabricFinding> lines, Lineage lineage) {
    FabricFinding first = lines.get(0);
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("line", first.getText());
    evidence.put("source_file", run.getSourceFile());
    evidence.put("line_number", Long.toString(first.getLine()));
    evidence.put("severity", first.getSeverity().name());
    evidence.put("run_time", run.getRunTime().toString());
    putIfPresent(evidence, "section", first.getSection());
    putIfPresent(evidence, "peer", first.getPeer());
    putIfPresent(evidence, "actual", first.getActual());
    putIfPresent(evidence, "expected", first.getExpected());
    if (lines.size() > 1) {
      evidence.put("more_lines", Integer.toString(lines.size() - 1));
    }
    Message summary =
        Message.of(
            "ibdiagnet_finding.firing", run.getObservedBy(), run.getRunTime(), first.getText());
    Observation o =
        Observation.holds(
                subject,
                run.getRunTime().toEpochMilli(),
                lines.size(),
                1,
                "lines",
                summary,
                evidence,
                lineage)
            .firingNow();
    return first.getPeer() == null ? o : o.withLabels(Map.of("peer", first.getPeer()));
  }

  private static void putIfPresent(Map<String, String> evidence, String key, String value) {
    if (value != null) {
      evidence.put(key, value);
    }
  }

  private void forward(Optional<Alert> alert, long timestamp) {
    alert.ifPresent(a -> forward(a, timestamp));
  }
}
