package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.pfc.PfcSample.Direction;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The pause_storm condition of one rule on one PFC sample (DOMAIN.md 3.2):
 *
 * <ul>
 *   <li>per priority: pause ratio = per-second {@code rx/tx_prio<N>_pause_duration} µs / 1e6
 *       [K-ethdoc]; stormed when the larger of rx and tx is >= pause_ratio [SONIC-pfcwd] (P3/P4);
 *       FIRING after consecutive_samples stormed samples in a row.
 *   <li>the port is the ORIGIN when its tx pause-frame delta exceeds origin_factor x its rx delta
 *       (it pauses others rather than being paused); otherwise a VICTIM. Without frame counters, a
 *       port pausing (tx ratio) but not paused (rx ratio) is the origin.
 *   <li>any increase of tx_pause_storm_warning_events / tx_pause_storm_error_events (mlx5 PFC stall
 *       prevention) fires at once; the NIC itself detected it was the one pausing, so the port is
 *       an ORIGIN [K-pfcstall][K-ethdoc] (P2).
 * </ul>
 */
final class PauseStormCheck {

  private final Rule rule;
  private final double pauseRatio;
  private final long consecutive;
  private final long stormEvents;
  private final double originFactor;

  PauseStormCheck(Rule rule) {
    this.rule = rule;
    this.pauseRatio = rule.thresholds().number("pause_ratio");
    this.consecutive = rule.thresholds().integer("consecutive_samples");
    this.stormEvents = rule.thresholds().integer("storm_events");
    this.originFactor = rule.thresholds().number("origin_factor");
  }

  Rule rule() {
    return rule;
  }

  FiringPolicy policy() {
    return FiringPolicy.consecutive(consecutive);
  }

  /** One observation per priority whose ratio is known, plus one for the storm-event counters. */
  List<Observation> evaluate(PfcSample sample, Lineage lineage) {
    CounterRates r = sample.record();
    AlertSubject port =
        AlertSubject.node(r.getCluster(), r.getNode())
            .withDevice(r.getDevice())
            .withNetdev(r.getNetdev());
    List<Observation> out = new ArrayList<>();
    for (int prio : sample.priorities()) {
      if (rule.selectors()
          .matches(r.getCluster(), r.getNode(), r.getDevice(), r.getNetdev(), prio)) {
        priorityObservation(sample, port.withPriority(prio), prio, lineage).ifPresent(out::add);
      }
    }
    if (rule.selectors().matches(r.getCluster(), r.getNode(), r.getDevice(), r.getNetdev(), null)) {
      stormEventObservation(sample, port, lineage).ifPresent(out::add);
    }
    return out;
  }

  private java.util.Optional<Observation> priorityObservation(
      PfcSample s, AlertSubject subject, int prio, Lineage lineage) {
    OptionalDouble rx = s.pauseRatio(Direction.RX, prio);
    OptionalDouble tx = s.pauseRatio(Direction.TX, prio);
    if (rx.isEmpty() && tx.isEmpty()) {
      return java.util.Optional.empty(); // clear, reboot, first sample...: no verdict
    }
    long time = s.record().getTime().toEpochMilli();
    double rxRatio = rx.orElse(0);
    double txRatio = tx.orElse(0);
    double ratio = Math.max(rxRatio, txRatio);
    if (ratio < pauseRatio) {
      return java.util.Optional.of(Observation.clean(subject, time, lineage));
    }
    OptionalLong rxFrames = s.pauseFrames(Direction.RX, prio);
    OptionalLong txFrames = s.pauseFrames(Direction.TX, prio);
    PortRole role = role(rxRatio, txRatio, rxFrames, txFrames);
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("rx_pause_ratio", fmt(rxRatio));
    evidence.put("tx_pause_ratio", fmt(txRatio));
    rxFrames.ifPresent(v -> evidence.put("rx_prio" + prio + "_pause_delta", Long.toString(v)));
    txFrames.ifPresent(v -> evidence.put("tx_prio" + prio + "_pause_delta", Long.toString(v)));
    // "while its own traffic is stalled" (P4): shown when the driver exports per-prio bytes
    s.perSecond("rx_prio" + prio + "_bytes")
        .ifPresent(v -> evidence.put("rx_prio" + prio + "_bytes_per_second", fmt(v)));
    s.perSecond("tx_prio" + prio + "_bytes")
        .ifPresent(v -> evidence.put("tx_prio" + prio + "_bytes_per_second", fmt(v)));
    putSampleFacts(evidence, s.record());
    Message summary =
        Message.of(
            role == PortRole.ORIGIN ? "pause_storm.origin" : "pause_storm.victim",
            subject.shortName(),
            percent(ratio),
            consecutive,
            percent(pauseRatio));
    return java.util.Optional.of(
        Observation.holds(subject, time, ratio, pauseRatio, "ratio", summary, evidence, lineage)
            .withLabels(Map.of(PortRole.LABEL, role.label())));
  }

  private PortRole role(
      double rxRatio, double txRatio, OptionalLong rxFrames, OptionalLong txFrames) {
    if (rxFrames.isPresent() && txFrames.isPresent()) {
      long tx = txFrames.getAsLong();
      return tx > 0 && tx > originFactor * rxFrames.getAsLong() ? PortRole.ORIGIN : PortRole.VICTIM;
    }
    return txRatio >= pauseRatio && rxRatio < pauseRatio ? PortRole.ORIGIN : PortRole.VICTIM;
  }

  private java.util.Optional<Observation> stormEventObservation(
      PfcSample s, AlertSubject subject, Lineage lineage) {
    OptionalLong warning = s.delta(PfcSample.STORM_WARNING);
    OptionalLong error = s.delta(PfcSample.STORM_ERROR);
    if (warning.isEmpty() && error.isEmpty()) {
      return java.util.Optional.empty();
    }
    long time = s.record().getTime().toEpochMilli();
    long events = warning.orElse(0) + error.orElse(0);
    if (events < stormEvents) {
      return java.util.Optional.of(Observation.clean(subject, time, lineage));
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    warning.ifPresent(v -> evidence.put(PfcSample.STORM_WARNING + "_delta", Long.toString(v)));
    error.ifPresent(v -> evidence.put(PfcSample.STORM_ERROR + "_delta", Long.toString(v)));
    putSampleFacts(evidence, s.record());
    Message summary =
        Message.of(
            "pause_storm.events", subject.shortName(), events, warning.orElse(0), error.orElse(0));
    return java.util.Optional.of(
        Observation.holds(subject, time, events, stormEvents, "events", summary, evidence, lineage)
            .withLabels(Map.of(PortRole.LABEL, PortRole.ORIGIN.label()))
            .firingNow());
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
