package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.List;
import java.util.stream.Stream;

/** The enabled rules of the four SM detectors. */
record SmRules(List<Rule> failover, List<Rule> absent, List<Rule> hung, List<Rule> unstable) {

  /** source_timeout when no SM rule is enabled (the schema default). */
  static final long DEFAULT_SOURCE_TIMEOUT_MS = 120_000L;

  static SmRules from(RuleSet rules) {
    return new SmRules(
        rules.enabledFor(Detector.SM_FAILOVER),
        rules.enabledFor(Detector.SM_ABSENT),
        rules.enabledFor(Detector.SM_HUNG),
        rules.enabledFor(Detector.SM_UNSTABLE));
  }

  /** Heavy sweeps are kept for the longest SM_UNSTABLE window (at least one minute). */
  long keepSweepsMs() {
    return unstable.stream()
        .mapToLong(r -> r.thresholds().duration("window").toMillis())
        .max()
        .orElse(60_000L);
  }

  /**
   * How far behind the most advanced SM source another may fall before it stops holding back the
   * cluster's watermark ({@link SmSourceClocks}): the largest source_timeout of the SM rules, as
   * the four detectors share one event-time order per cluster.
   */
  long sourceTimeoutMs() {
    return Stream.of(failover, absent, hung, unstable)
        .flatMap(List::stream)
        .mapToLong(r -> r.thresholds().duration("source_timeout").toMillis())
        .max()
        .orElse(DEFAULT_SOURCE_TIMEOUT_MS);
  }
}
