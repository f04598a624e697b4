package io.fabricpulse.streams.detect.congestion;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Rule;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One xmit_wait rule on one switch-port sample: the share of the port's bandwidth lost waiting,
 * {@code ticks/s x bytes_per_tick x 8 / (rate_gbps x 1e9)} (NVIDIA's conversion of xmit_wait to
 * lost bandwidth [IBDIAG-cong]), held when at or above {@code wait_ratio}. A sample without a rated
 * xmit_wait (the first of a port, a clear, a switch reboot, a saturated 32-bit counter, a PMA
 * without PortXmitWait) or without a link rate is not judged.
 */
final class XmitWaitCheck {

  static final String COUNTER = "port_xmit_wait";

  private final Rule rule;
  private final double waitRatio;
  private final long bytesPerTick;
  private final FiringPolicy policy;

  XmitWaitCheck(Rule rule) {
    this.rule = rule;
    this.waitRatio = rule.thresholds().number("wait_ratio");
    this.bytesPerTick = rule.thresholds().integer("bytes_per_tick");
    this.policy = FiringPolicy.consecutive(rule.thresholds().integer("consecutive_samples"));
  }

  Rule rule() {
    return rule;
  }

  FiringPolicy policy() {
    return policy;
  }

  static AlertSubject subject(CounterRates r) {
    return AlertSubject.node(r.getCluster(), r.getNode())
        .withDevice(r.getDevice())
        .withPort(r.getPort());
  }

  /** The observation of {@code r}, or empty when the sample says nothing about xmit wait. */
  Optional<Observation> judge(CounterRates r, Lineage lineage) {
    AlertSubject subject = subject(r);
    if (!rule.selectors()
        .matches(subject.cluster(), subject.node(), subject.device(), null, null)) {
      return Optional.empty();
    }
    CounterRate wait = counter(r);
    Double gbps = r.getRateGbps();
    if (wait == null
        || wait.getTag() != RateTag.normal
        || wait.getPerSecond() == null
        || gbps == null
        || gbps <= 0) {
      return Optional.empty();
    }
    long time = r.getTime().toEpochMilli();
    double ticksPerSecond = wait.getPerSecond();
    double lostGbps = ticksPerSecond * bytesPerTick * 8 / 1e9;
    double ratio = lostGbps / gbps;
    if (ratio < waitRatio) {
      return Optional.of(Observation.clean(subject, time, lineage));
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("port_xmit_wait_delta", String.valueOf(wait.getDelta()));
    evidence.put("port_xmit_wait_per_second", format(ticksPerSecond));
    evidence.put("interval_ms", String.valueOf(r.getIntervalMs()));
    evidence.put("rate_gbps", format(gbps));
    evidence.put("bytes_per_tick", Long.toString(bytesPerTick));
    evidence.put("lost_gbps", format(lostGbps));
    evidence.put("wait_ratio", percent(ratio) + " >= " + percent(waitRatio));
    Message summary =
        Message.of(
            "xmit_wait.firing",
            subject.shortName(),
            percent(ratio),
            format(ticksPerSecond),
            format(gbps),
            percent(waitRatio));
    return Optional.of(
        Observation.holds(subject, time, ratio, waitRatio, "ratio", summary, evidence, lineage));
  }

  private static CounterRate counter(CounterRates r) {
    for (CounterRate c : r.getRates()) {
      if (COUNTER.equals(c.getName())) {
        return c;
      }
    }
    return null;
  }

  private static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.1f %%", ratio * 100);
  }

  private static String format(double value) {
    return String.format(Locale.ROOT, "%.6g", value);
  }
}
