package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.Selectors;
import java.util.List;
import java.util.Optional;

/**
 * Which rule of a detector speaks for a node: among the enabled rules whose selectors match, the
 * most specific one (a node glob with more literal characters, then a cluster selector), the first
 * in load order on a tie. So a default rule for every node and a {@code node: "cpu*"} rule with
 * {@code expect_gdr: false} give cpu nodes the exemption and everyone else the default, and one
 * fault is never two alerts.
 */
final class DecidingRule {

  private DecidingRule() {}

  static Optional<Rule> forNode(List<Rule> rules, String cluster, String node) {
    Rule best = null;
    int bestScore = -1;
    for (Rule rule : rules) {
      Selectors s = rule.selectors();
      if (!s.matches(cluster, node, null, null, null)) {
        continue;
      }
      int score = specificity(s);
      if (score > bestScore) {
        best = rule;
        bestScore = score;
      }
    }
    return Optional.ofNullable(best);
  }

  static int specificity(Selectors s) {
    int score = 0;
    if (s.node() != null) {
      score += 2 + 2 * s.node().replace("*", "").replace("?", "").length();
    }
    if (s.cluster() != null) {
      score += 1;
    }
    return score;
  }
}
