package io.fabricpulse.app.demo;

import static java.util.stream.Collectors.joining;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.collectors.sim.FaultAlerts;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Compares the alerts the pipeline fired with the faults the simulator injected: every fault whose
 * alert kind has a running detector must have produced exactly one FIRING alert of that kind on its
 * node, a storm reaching K nodes also exactly one PAUSE_PROPAGATION (its victims folded into it, so
 * a victim's own page is unexpected), and nothing else may have fired (clears and reboots
 * included). Which alert answers which fault is {@link FaultAlerts}': a fault on a cable is one
 * incident over both of its ends, and some faults must raise a second kind as well.
 */
record DetectionReport(
    List<String> detected, List<String> missed, List<String> unexpected, List<String> notCovered) {

  /**
   * @param propagationMinNodes the K of the pause_propagation rules that ran (a storm reaching K
   *     nodes is one incident: the origin's page plus one PAUSE_PROPAGATION, victims folded), or
   *     {@link Integer#MAX_VALUE} when none ran
   */
  static DetectionReport compare(
      List<InjectedFault> faults,
      List<Alert> alerts,
      Set<AlertKind> detectable,
      int propagationMinNodes) {
    List<Alert> firing =
        new ArrayList<>(alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList());
    List<String> detected = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    List<String> notCovered = new ArrayList<>();
    for (InjectedFault fault : faults) {
      for (AlertKind kind : FaultAlerts.expectedKinds(fault)) {
        if (!detectable.contains(kind)) {
          notCovered.add(describe(fault) + " (no " + kind + " detector running)");
          continue;
        }
        Alert match = FaultAlerts.take(firing, kind, fault);
        if (match == null) {
          missed.add(describe(fault) + " -> expected " + kind);
          continue;
        }
        List<Alert> otherEnds = FaultAlerts.takeOtherEnds(firing, match);
        detected.add(
            describe(fault)
                + " -> "
                + kind
                + " "
                + match.getAlertId()
                + otherEnds.stream().map(a -> " + " + a.getAlertId()).collect(joining()));
      }
      if (fault.kind() == FaultKind.PFC_PAUSE_STORM
          && fault.affected().size() + 1 >= propagationMinNodes
          && detectable.contains(AlertKind.PAUSE_PROPAGATION)) {
        // A storm that spreads to K nodes is one incident: the origin's page plus one
        // PAUSE_PROPAGATION naming origin and victims, instead of a page per victim.
        Alert incident = FaultAlerts.take(firing, AlertKind.PAUSE_PROPAGATION, fault);
        if (incident == null) {
          missed.add(describe(fault) + " -> expected " + AlertKind.PAUSE_PROPAGATION);
        } else {
          detected.add(
              describe(fault) + " -> " + AlertKind.PAUSE_PROPAGATION + " " + incident.getAlertId());
        }
      }
    }
    List<String> unexpected =
        firing.stream()
            .map(a -> a.getKind() + " on " + a.getNode() + ": " + a.getSummary())
            .toList();
    return new DetectionReport(detected, missed, unexpected, notCovered);
  }

  /** The smallest K ({@code min_nodes}) of the enabled pause_propagation rules. */
  static int propagationMinNodes(RuleSet rules) {
    return rules.enabledFor(Detector.PAUSE_PROPAGATION).stream()
        .mapToInt(r -> Math.toIntExact(r.thresholds().integer("min_nodes")))
        .min()
        .orElse(Integer.MAX_VALUE);
  }

  /** What was detected, then what was missed and what was unexpected: a test failure's story. */
  String story() {
    return String.join("\n", detected)
        + "\nMISSED:\n"
        + String.join("\n", missed)
        + "\nUNEXPECTED:\n"
        + String.join("\n", unexpected);
  }

  boolean exact() {
    return missed.isEmpty() && unexpected.isEmpty();
  }

  static String describe(InjectedFault f) {
    return f.kind()
        + " "
        + f.node()
        + (f.device() == null ? "" : "/" + f.device())
        + (f.port() == null ? "" : "/" + f.port());
  }
}
