package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The pause_storm condition of one rule on one PFC sample (docs/thresholds.md, PFC):
 *
 * <ul>
 *   <li>per priority: pause ratio = per-second pause duration (kind PFC_PAUSE_DURATION, rx or tx,
 *       priority N: mlx5 {@code rx/tx_prio<N>_pause_duration}, legacy {@code
 *       prio<N>_rx/tx_pause_duration}) µs / 1e6 [K-ethdoc]; stormed when the larger of rx and tx is
 *       >= pause_ratio [SONIC-pfcwd] (P3/P4); FIRING after consecutive_samples stormed samples in a
 *       row.
 *   <li>the port is the ORIGIN when its tx pause-frame delta exceeds origin_factor x its rx delta
 *       (it pauses others rather than being paused); otherwise a VICTIM. Without frame counters, a
 *       port pausing (tx ratio) but not paused (rx ratio) is the origin.
 *   <li>any increase of the PAUSE_STORM_WARNING / PAUSE_STORM_ERROR counters (mlx5
 *       tx_pause_storm_warning_events / tx_pause_storm_error_events, PFC stall prevention) fires at
 *       once; the NIC itself detected it was the one pausing, so the port is an ORIGIN
 *       [K-pfcstall][K-ethdoc] (P2).
 * </ul>
 *
 * <p>One port in a storm is one alert: mlx5 counts storm events per netdev, not per priority, so
 * they and the pause ratio of the rule's lossless_priority make ONE observation on the subject
 * (node, device, netdev, lossless priority). It holds when either signal holds; the storm events
 * fire it at once, and each signal's numbers travel in the evidence of the other.
 */
final class PauseStormCheck {

  private final Rule rule;
  private final double pauseRatio;
  private final long consecutive;
  private final long stormEvents;
  private final double originFactor;
  private final int losslessPriority;

  PauseStormCheck(Rule rule) {
    this.rule = rule;
    this.pauseRatio = rule.thresholds().number("pause_ratio");
    this.consecutive = rule.thresholds().integer("consecutive_samples");
    this.stormEvents = rule.thresholds().integer("storm_events");
    this.originFactor = rule.thresholds().number("origin_factor");
    this.losslessPriority = Math.toIntExact(rule.thresholds().integer("lossless_priority"));
  }

  Rule rule() {
    return rule;
  }

  FiringPolicy policy() {
    return FiringPolicy.consecutive(consecutive);
  }

  /**
   * One observation per other priority whose ratio is known, plus one for the lossless priority and
   * the storm-event counters together.
   */
  List<Observation> evaluate(PfcSample sample, Lineage lineage) {
    CounterRates r = sample.record();
    AlertSubject port =
        AlertSubject.node(r.getCluster(), r.getNode())
            .withDevice(r.getDevice())
            .withNetdev(r.getNetdev());
    List<Observation> out = new ArrayList<>();
    for (int prio : sample.priorities()) {
      if (prio != losslessPriority && selected(r, prio)) {
        ratioObservation(sample, port.withPriority(prio), prio, Map.of(), lineage)
            .ifPresent(out::add);
      }
    }
    if (selected(r, losslessPriority)) {
      losslessObservation(sample, port, lineage).ifPresent(out::add);
    }
    return out;
  }

  private boolean selected(CounterRates r, int prio) {
    return rule.selectors()
        .matches(r.getCluster(), r.getNode(), r.getDevice(), r.getNetdev(), prio);
  }

  /** The lossless priority's ratio and the netdev's storm events, as one observation. */
  private Optional<Observation> losslessObservation(
      PfcSample s, AlertSubject port, Lineage lineage) {
    AlertSubject subject = port.withPriority(losslessPriority);
    OptionalLong warning = s.delta(PfcSample.STORM_WARNING);
    OptionalLong error = s.delta(PfcSample.STORM_ERROR);
    Map<String, String> eventEvidence = new LinkedHashMap<>();
    warning.ifPresent(v -> putDelta(eventEvidence, s, PfcSample.STORM_WARNING, v));
    error.ifPresent(v -> putDelta(eventEvidence, s, PfcSample.STORM_ERROR, v));
    long events = warning.orElse(0) + error.orElse(0);
    if (!eventEvidence.isEmpty() && events >= stormEvents) {
      Map<String, String> evidence = new LinkedHashMap<>(eventEvidence);
      evidence.putAll(ratioEvidence(s, losslessPriority));
      putSampleFacts(evidence, s.record());
      Message summary =
          Message.of(
              "pause_storm.events", port.shortName(), events, warning.orElse(0), error.orElse(0));
      return Optional.of(
          Observation.holds(
                  subject, time(s), events, stormEvents, "events", summary, evidence, lineage)
              .withLabels(Map.of(PortRole.LABEL, PortRole.ORIGIN.label()))
              .firingNow());
    }
    Optional<Observation> ratio =
        ratioObservation(s, subject, losslessPriority, eventEvidence, lineage);
    if (ratio.isPresent() || eventEvidence.isEmpty()) {
      return ratio;
    }
    return Optional.of(Observation.clean(subject, time(s), lineage)); // events counted, none new
  }

  /**
   * The pause-ratio condition of {@code prio}; {@code extraEvidence} (the storm-event deltas of the
   * lossless priority) goes into the evidence when it holds.
   */
  private Optional<Observation> ratioObservation(
      PfcSample s,
      AlertSubject subject,
      int prio,
      Map<String, String> extraEvidence,
      Lineage lineage) {
    OptionalDouble rx = s.pauseRatio(CounterDirection.RX, prio);
    OptionalDouble tx = s.pauseRatio(CounterDirection.TX, prio);
    if (rx.isEmpty() && tx.isEmpty()) {
      return Optional.empty(); // clear, reboot, first sample...: no verdict
    }
    double rxRatio = rx.orElse(0);
    double txRatio = tx.orElse(0);
    double ratio = Math.max(rxRatio, txRatio);
    if (ratio < pauseRatio) {
      return Optional.of(Observation.clean(subject, time(s), lineage));
    }
    PortRole role =
        role(
            rxRatio,
            txRatio,
            s.pauseFrames(CounterDirection.RX, prio),
            s.pauseFrames(CounterDirection.TX, prio));
    Map<String, String> evidence = new LinkedHashMap<>(ratioEvidence(s, prio));
    evidence.putAll(extraEvidence);
    putSampleFacts(evidence, s.record());
    Message summary =
        Message.of(
            role == PortRole.ORIGIN ? "pause_storm.origin" : "pause_storm.victim",
            subject.shortName(),
            percent(ratio),
            consecutive,
            percent(pauseRatio));
    return Optional.of(
        Observation.holds(subject, time(s), ratio, pauseRatio, "ratio", summary, evidence, lineage)
            .withLabels(Map.of(PortRole.LABEL, role.label())));
  }

  /** Pause ratios, frame deltas and per-priority bytes of {@code prio}, where usable. */
  private static Map<String, String> ratioEvidence(PfcSample s, int prio) {
    Map<String, String> evidence = new LinkedHashMap<>();
    OptionalDouble rx = s.pauseRatio(CounterDirection.RX, prio);
    OptionalDouble tx = s.pauseRatio(CounterDirection.TX, prio);
    if (rx.isEmpty() && tx.isEmpty()) {
      return evidence;
    }
    evidence.put("rx_pause_ratio", fmt(rx.orElse(0)));
    evidence.put("tx_pause_ratio", fmt(tx.orElse(0)));
    for (CounterDirection dir : CounterDirection.values()) {
      PfcSample.Meaning frames = PfcSample.pauseFrameMeaning(dir, prio);
      s.delta(frames).ifPresent(v -> putDelta(evidence, s, frames, v));
    }
    // "while its own traffic is stalled" (P4): shown when the driver exports per-prio bytes
    for (CounterDirection dir : CounterDirection.values()) {
      PfcSample.Meaning bytes = PfcSample.priorityBytes(dir, prio);
      s.perSecond(bytes)
          .ifPresent(v -> evidence.put(s.rawName(bytes).orElseThrow() + "_per_second", fmt(v)));
    }
    return evidence;
  }

  /** {@code <driver's counter name>_delta}: the name operators grep for on the node. */
  static void putDelta(
      Map<String, String> evidence, PfcSample s, PfcSample.Meaning meaning, long delta) {
    evidence.put(s.rawName(meaning).orElseThrow() + "_delta", Long.toString(delta));
  }

  private PortRole role(
      double rxRatio, double txRatio, OptionalLong rxFrames, OptionalLong txFrames) {
    if (rxFrames.isPresent() && txFrames.isPresent()) {
      long tx = txFrames.getAsLong();
      return tx > 0 && tx > originFactor * rxFrames.getAsLong() ? PortRole.ORIGIN : PortRole.VICTIM;
    }
    return txRatio >= pauseRatio && rxRatio < pauseRatio ? PortRole.ORIGIN : PortRole.VICTIM;
  }

  private static long time(PfcSample s) {
    return s.record().getTime().toEpochMilli();
  }

  static void putSampleFacts(Map<String, String> evidence, CounterRates r) {
    if (r.getIntervalMs() != null) {
      evidence.put("interval_ms", Long.toString(r.getIntervalMs()));
    }
    evidence.put("boot_id", r.getBootId());
    evidence.put("seq", Long.toString(r.getSeq()));
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
  }
}
