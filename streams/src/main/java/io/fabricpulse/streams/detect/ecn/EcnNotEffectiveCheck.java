package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * ecn_not_effective on a RoCE port (our reading of docs/thresholds.md P6): the lossless priority is
 * paused for a sustained share of the time while no congestion notification happens, i.e. PFC is
 * doing the congestion control ECN/DCQCN should do.
 *
 * <ul>
 *   <li>Paused: every PFC sample of the window has a pause ratio (larger of rx and tx pause
 *       duration, kind PFC_PAUSE_DURATION, µs / 1e6, on N in lossless_priorities) in the band
 *       [pause_ratio, storm_ratio) [K-ethdoc]. A sample at or above storm_ratio is a pause storm,
 *       which the pause_storm rule pages; it breaks the run, so a storm's origin and victims raise
 *       PAUSE_STORM (and PAUSE_PROPAGATION) only, never also this alert.
 *   <li>No notification: none of ECN_MARKED ({@code np_ecn_marked_roce_packets}, {@code
 *       RxECNMrkd}), PRIO_ECN_MARKED ({@code rx_prio<N>_marked}), CNP_SENT and CNP_HANDLED rose in
 *       the window, although such counters were read in it. Marks received, CNPs sent and CNPs
 *       handled all count: a port paused by its switch (rx) would see CNPs handled for its own
 *       traffic, a port pausing its switch (tx) would see marks; any of them means ECN is acting
 *       [NE-ib][K-mlx5cc]. A port whose ECN counters are not collected has no verdict.
 * </ul>
 *
 * Fires at once when the window is complete (the window already is the duration). A NIC without a
 * pause-duration counter (Intel ice) has no pause ratio, so no verdict.
 */
final class EcnNotEffectiveCheck implements PortCheck {

  private final Rule rule;
  private final List<Integer> lossless;
  private final double pauseRatio;
  private final double stormRatio;
  private final long windowMs;

  EcnNotEffectiveCheck(Rule rule) {
    this.rule = rule;
    this.lossless = rule.thresholds().priorities("lossless_priorities");
    this.pauseRatio = rule.thresholds().number("pause_ratio");
    this.stormRatio = rule.thresholds().number("storm_ratio");
    this.windowMs = rule.thresholds().duration("window").toMillis();
  }

  @Override
  public Rule rule() {
    return rule;
  }

  @Override
  public FiringPolicy policy() {
    return FiringPolicy.IMMEDIATE;
  }

  @Override
  public Optional<Observation> evaluate(
      RoceSample s, KeyValueStore<String, EcnWindow> windows, Lineage lineage) {
    CounterRates r = s.record();
    AlertSubject subject = RoceSample.subjectOf(r);
    if (!rule.selectors()
        .matches(r.getCluster(), r.getNode(), r.getDevice(), r.getNetdev(), null)) {
      return Optional.empty();
    }
    long time = s.time();
    String key = rule.id() + "|" + subject.key();
    EcnWindow stored = windows.get(key);
    EcnWindow w = stored == null ? EcnWindow.EMPTY : stored;

    List<Long> notifications = notificationDeltas(s);
    if (!notifications.isEmpty()) {
      w = w.withNotification(time, notifications.stream().anyMatch(d -> d > 0));
    }
    int prio = -1;
    double ratio = -1;
    for (int p : lossless) {
      OptionalDouble pr = s.pauseRatio(p);
      if (pr.isPresent() && pr.getAsDouble() > ratio) {
        ratio = pr.getAsDouble();
        prio = p;
      }
    }
    if (prio >= 0) {
      boolean inBand = ratio >= pauseRatio && ratio < stormRatio;
      long since =
          inBand ? (w.pausedSince() == EcnWindow.NONE ? time : w.pausedSince()) : EcnWindow.NONE;
      w = w.withPausedSince(since);
    }
    if (!w.equals(stored)) {
      windows.put(key, w);
    }
    if (prio < 0) {
      return Optional.empty(); // an ECN-only sample: it updates the window, no verdict
    }
    if (!holds(w, time)) {
      return Optional.of(Observation.clean(subject, time, lineage));
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("priority", Integer.toString(prio));
    evidence.put("pause_ratio", PortCheck.fmt(ratio));
    evidence.put(
        "paused_for", Durations.format(java.time.Duration.ofMillis(time - w.pausedSince())));
    evidence.put("pause_band", PortCheck.fmt(pauseRatio) + "-" + PortCheck.fmt(stormRatio));
    evidence.put(
        "last_ecn_activity",
        w.lastNotificationAt() == EcnWindow.NONE
            ? "none seen"
            : java.time.Instant.ofEpochMilli(w.lastNotificationAt()).toString());
    PortCheck.putSampleFacts(evidence, s);
    Message summary =
        Message.of(
            "ecn_not_effective.firing",
            subject.shortName(),
            PortCheck.percent(ratio),
            prio,
            Durations.format(rule.thresholds().duration("window")));
    return Optional.of(
        Observation.holds(subject, time, ratio, pauseRatio, "ratio", summary, evidence, lineage));
  }

  private boolean holds(EcnWindow w, long time) {
    long windowStart = time - windowMs;
    return w.pausedSince() != EcnWindow.NONE
        && w.pausedSince() <= windowStart
        && w.notificationSeenAt() != EcnWindow.NONE
        && w.notificationSeenAt() >= windowStart
        && (w.lastNotificationAt() == EcnWindow.NONE || w.lastNotificationAt() < windowStart);
  }

  /** Deltas of the usable ECN/CNP counters of the sample (marks, CNPs sent and handled). */
  private List<Long> notificationDeltas(RoceSample s) {
    List<Long> deltas = new ArrayList<>();
    for (CounterKind kind :
        List.of(CounterKind.ECN_MARKED, CounterKind.CNP_SENT, CounterKind.CNP_HANDLED)) {
      s.delta(kind).ifPresent(deltas::add);
    }
    for (int p : lossless) {
      for (CounterRate r : s.usable(CounterKind.PRIO_ECN_MARKED, p)) {
        deltas.add(r.getDelta());
      }
    }
    return deltas;
  }
}
