package io.fabricpulse.streams.detect.gpu;

import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.List;

/** The enabled rules of the five GPU detectors. */
record GpuRules(
    List<Rule> ecc, List<Rule> reset, List<Rule> aging, List<Rule> xid, List<Rule> hot) {

  static GpuRules from(RuleSet rules) {
    return new GpuRules(
        rules.enabledFor(Detector.GPU_ECC),
        rules.enabledFor(Detector.GPU_RESET_REQUIRED),
        rules.enabledFor(Detector.GPU_ECC_AGING),
        rules.enabledFor(Detector.GPU_XID),
        rules.enabledFor(Detector.GPU_HOT));
  }

  /** Corrected-ECC readings are kept for the longest aging window (at least one hour). */
  long keepCorrectedMs() {
    return aging.stream()
        .mapToLong(r -> r.thresholds().duration("window").toMillis())
        .max()
        .orElse(3_600_000L);
  }
}
