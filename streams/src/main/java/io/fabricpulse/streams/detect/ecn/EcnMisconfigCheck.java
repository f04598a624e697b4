package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * ecn_misconfig on a RoCE port (docs/thresholds.md P6), one alert per port for either of:
 *
 * <ul>
 *   <li>CNPs ignored rising (kind CNP_IGNORED: mlx5 {@code rp_cnp_ignored}, irdma {@code
 *       cnpIgnored}): CNPs received but ignored, which "should not raise" and means "verify ECN
 *       enabled" [NE-ib][K-mlx5cc]. Fires on the first such sample.
 *   <li>ECN-marked RoCE packets received (ECN_MARKED: {@code np_ecn_marked_roce_packets}, irdma
 *       {@code RxECNMrkd}) while CNPs sent (CNP_SENT: {@code np_cnp_sent}, {@code cnpSent}) stay
 *       flat for the rule's window: the notification point sees congestion marks but never tells
 *       the senders (our reading of P6). Only samples carrying both counters count, so both deltas
 *       come from the same hw_counters read.
 * </ul>
 *
 * The evidence says which ({@code reason}: {@code rp_cnp_ignored}, {@code marks_without_cnps}).
 */
final class EcnMisconfigCheck implements PortCheck {

  private final Rule rule;
  private final long cnpIgnored;
  private final long windowMs;

  EcnMisconfigCheck(Rule rule) {
    this.rule = rule;
    this.cnpIgnored = rule.thresholds().integer("cnp_ignored");
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
    OptionalLong ignored = s.delta(CounterKind.CNP_IGNORED);
    OptionalLong marked = s.delta(CounterKind.ECN_MARKED);
    OptionalLong cnps = s.delta(CounterKind.CNP_SENT);
    boolean marksKnown = marked.isPresent() && cnps.isPresent();
    if (ignored.isEmpty() && !marksKnown) {
      return Optional.empty();
    }
    long time = s.time();
    long marksWithoutCnpSince = EcnWindow.NONE;
    if (marksKnown) {
      marksWithoutCnpSince = updateMarksRun(windows, subject, time, marked, cnps);
    }
    boolean ignoredHolds = ignored.isPresent() && ignored.getAsLong() >= cnpIgnored;
    boolean marksHold =
        marksKnown
            && marked.getAsLong() > 0
            && cnps.getAsLong() == 0
            && marksWithoutCnpSince != EcnWindow.NONE
            && time - marksWithoutCnpSince >= windowMs;
    if (!ignoredHolds && !marksHold) {
      return Optional.of(Observation.clean(subject, time, lineage));
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put(
        "reason",
        ignoredHolds && marksHold
            ? "rp_cnp_ignored,marks_without_cnps"
            : ignoredHolds ? "rp_cnp_ignored" : "marks_without_cnps");
    ignored.ifPresent(
        v -> evidence.put(s.rawName(CounterKind.CNP_IGNORED) + "_delta", Long.toString(v)));
    marked.ifPresent(
        v -> evidence.put(s.rawName(CounterKind.ECN_MARKED) + "_delta", Long.toString(v)));
    cnps.ifPresent(v -> evidence.put(s.rawName(CounterKind.CNP_SENT) + "_delta", Long.toString(v)));
    s.delta(CounterKind.CNP_HANDLED)
        .ifPresent(
            v -> evidence.put(s.rawName(CounterKind.CNP_HANDLED) + "_delta", Long.toString(v)));
    if (marksHold) {
      evidence.put(
          "marks_without_cnps_for",
          Durations.format(java.time.Duration.ofMillis(time - marksWithoutCnpSince)));
    }
    PortCheck.putSampleFacts(evidence, s);
    Observation o;
    if (ignoredHolds) {
      long v = ignored.getAsLong();
      o =
          Observation.holds(
              subject,
              time,
              v,
              cnpIgnored,
              "CNPs",
              Message.of("ecn_misconfig.cnp_ignored", subject.shortName(), v),
              evidence,
              lineage);
    } else {
      long v = marked.getAsLong();
      o =
          Observation.holds(
              subject,
              time,
              v,
              0,
              "packets",
              Message.of(
                  "ecn_misconfig.marks_without_cnps",
                  subject.shortName(),
                  v,
                  Durations.format(rule.thresholds().duration("window"))),
              evidence,
              lineage);
    }
    return Optional.of(o);
  }

  /** Start of the run of marks without CNPs after this sample ({@link EcnWindow#NONE} if none). */
  private long updateMarksRun(
      KeyValueStore<String, EcnWindow> windows,
      AlertSubject subject,
      long time,
      OptionalLong marked,
      OptionalLong cnps) {
    String key = rule.id() + "|" + subject.key();
    EcnWindow w = windows.get(key);
    EcnWindow before = w == null ? EcnWindow.EMPTY : w;
    long since = before.marksWithoutCnpSince();
    if (cnps.getAsLong() > 0) {
      since = EcnWindow.NONE;
    } else if (marked.getAsLong() > 0 && since == EcnWindow.NONE) {
      since = time;
    }
    if (since != before.marksWithoutCnpSince()) {
      EcnWindow after = before.withMarksWithoutCnpSince(since);
      if (after.equals(EcnWindow.EMPTY)) {
        windows.delete(key);
      } else {
        windows.put(key, after);
      }
    }
    return since;
  }
}
