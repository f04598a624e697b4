package io.fabricpulse.app.replay;

import io.fabricpulse.app.output.AlertText;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Replayed alerts against what fired live, FIRING records only (one per incident): the incidents of
 * one rule on one subject (kind, cluster, node, device, port, netdev, priority, gpu, job) are
 * paired in time order; an incident only the replay raised is <em>new</em>, one only the live run
 * raised is <em>missed</em>, and a pair whose detection or start time differs is <em>shifted</em>,
 * with the change in time-to-detect (replayed minus live).
 */
public final class LiveComparison {

  /** A paired incident whose times differ. */
  public record Shift(ReplayedAlert replayed, ReplayedAlert live) {
    /** Replayed detection time minus live detection time. */
    public Duration detectionShift() {
      return Duration.between(live.detectedAt(), replayed.detectedAt());
    }

    /** Replayed time-to-detect minus live time-to-detect. */
    public Duration timeToDetectChange() {
      return replayed.timeToDetect().minus(live.timeToDetect());
    }
  }

  public record Result(
      List<ReplayedAlert> added, List<ReplayedAlert> missed, List<Shift> shifted, int same) {
    public boolean identical() {
      return added.isEmpty() && missed.isEmpty() && shifted.isEmpty();
    }
  }

  private LiveComparison() {}

  public static Result compare(List<ReplayedAlert> replayed, List<ReplayedAlert> live) {
    Map<String, List<ReplayedAlert>> replayedBySubject = firingBySubject(replayed);
    Map<String, List<ReplayedAlert>> liveBySubject = firingBySubject(live);
    List<ReplayedAlert> added = new ArrayList<>();
    List<ReplayedAlert> missed = new ArrayList<>();
    List<Shift> shifted = new ArrayList<>();
    int same = 0;
    TreeMap<String, Boolean> subjects = new TreeMap<>();
    replayedBySubject.keySet().forEach(s -> subjects.put(s, true));
    liveBySubject.keySet().forEach(s -> subjects.put(s, true));
    for (String subject : subjects.keySet()) {
      List<ReplayedAlert> r = replayedBySubject.getOrDefault(subject, List.of());
      List<ReplayedAlert> l = liveBySubject.getOrDefault(subject, List.of());
      int paired = Math.min(r.size(), l.size());
      for (int i = 0; i < paired; i++) {
        ReplayedAlert a = r.get(i);
        ReplayedAlert b = l.get(i);
        if (a.detectedAt().equals(b.detectedAt())
            && a.alert().getStartedAt().equals(b.alert().getStartedAt())) {
          same++;
        } else {
          shifted.add(new Shift(a, b));
        }
      }
      added.addAll(r.subList(paired, r.size()));
      missed.addAll(l.subList(paired, l.size()));
    }
    Comparator<ReplayedAlert> byTime =
        Comparator.comparing(ReplayedAlert::detectedAt).thenComparing(a -> a.alert().getAlertId());
    added.sort(byTime);
    missed.sort(byTime);
    shifted.sort(Comparator.comparing(Shift::replayed, byTime));
    return new Result(added, missed, shifted, same);
  }

  private static Map<String, List<ReplayedAlert>> firingBySubject(List<ReplayedAlert> alerts) {
    Map<String, List<ReplayedAlert>> bySubject = new TreeMap<>();
    for (ReplayedAlert a : alerts) {
      if (a.alert().getState() == AlertState.FIRING) {
        bySubject.computeIfAbsent(subject(a.alert()), s -> new ArrayList<>()).add(a);
      }
    }
    bySubject
        .values()
        .forEach(
            list ->
                list.sort(
                    Comparator.comparing(ReplayedAlert::detectedAt)
                        .thenComparing(x -> x.alert().getStartedAt())));
    return bySubject;
  }

  /**
   * The rule and subject of an alert, as one sortable string. A job's transport alert is one per
   * job whichever host opened it (the first host's record to arrive, which on a live cluster
   * depends on how partitions interleave), so its subject is the job alone.
   */
  static String subject(Alert a) {
    String subject =
        a.getJob() != null && a.getNode() != null
            ? a.getCluster() + " job " + a.getJob()
            : AlertText.subject(a);
    return a.getRule() + " " + a.getKind() + " " + a.getCluster() + " " + subject;
  }
}
