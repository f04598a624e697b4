package io.fabricpulse.streams.detect.ibdiagnet;

import io.fabricpulse.avro.FabricFinding;
import io.fabricpulse.avro.FindingKind;
import io.fabricpulse.avro.FindingSeverity;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.rules.Rule;

/** One ibdiagnet_finding rule: which lines of a run it takes. */
final class FindingCheck {
  private final Rule rule;
  private final FindingKind kind;
  private final boolean errorsOnly;

  FindingCheck(Rule rule) {
    this.rule = rule;
    this.kind = FindingKind.valueOf(rule.thresholds().choice("finding_kind"));
    this.errorsOnly = rule.thresholds().choice("min_severity").equals("ERROR");
  }

  Rule rule() {
    return rule;
  }

  /** A finding fires with the run that reports it: ibdiagnet has already judged the fabric. */
  FiringPolicy policy() {
    return FiringPolicy.IMMEDIATE;
  }

  boolean takes(String cluster, FabricFinding f) {
    return f.getKind() == kind
        && (!errorsOnly || f.getSeverity() == FindingSeverity.ERROR)
        && rule.selectors()
            .matches(cluster, FindingSubjects.node(f, null), f.getSubject(), null, null);
  }
}
