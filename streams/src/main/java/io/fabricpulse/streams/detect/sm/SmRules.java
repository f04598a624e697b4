package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.List;

/** The enabled rules of the four SM detectors. */
record SmRules(List<Rule> failover, List<Rule> absent, List<Rule> hung, List<Rule> unstable) {

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
}
