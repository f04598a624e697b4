package io.fabricpulse.app.demo;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Compares the alerts the pipeline fired with the faults the simulator injected: every fault whose
 * alert kind has a running detector must have produced exactly one FIRING alert of that kind on its
 * node, a storm reaching K nodes also exactly one PAUSE_PROPAGATION (its victims folded into it, so
 * a victim's own page is unexpected), and nothing else may have fired (clears and reboots
 * included).
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
      AlertKind expected = fault.expectedAlert().orElse(null);
      if (expected == null) {
        continue;
      }
      if (!detectable.contains(expected)) {
        notCovered.add(describe(fault) + " (no " + expected + " detector running)");
        continue;
      }
      Alert match = take(firing, expected, fault);
      if (match == null) {
        missed.add(describe(fault) + " -> expected " + expected);
      } else {
        detected.add(describe(fault) + " -> " + expected + " " + match.getAlertId());
      }
      if (fault.kind() == FaultKind.PFC_PAUSE_STORM
          && fault.affected().size() + 1 >= propagationMinNodes
          && detectable.contains(AlertKind.PAUSE_PROPAGATION)) {
        // A storm that spreads to K nodes is one incident: the origin's page plus one
        // PAUSE_PROPAGATION naming origin and victims, instead of a page per victim.
        Alert incident = take(firing, AlertKind.PAUSE_PROPAGATION, fault);
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

  /** Kinds raised about a whole cluster (no node): the subnet manager and storm incidents. */
  private static final Set<AlertKind> CLUSTER_WIDE =
      Set.of(
          AlertKind.SM_FAILOVER,
          AlertKind.SM_ABSENT,
          AlertKind.SM_HUNG,
          AlertKind.SM_UNSTABLE,
          AlertKind.PAUSE_PROPAGATION);

  /** Removes and returns the first FIRING alert of {@code kind} that is about {@code fault}. */
  private static Alert take(List<Alert> firing, AlertKind kind, InjectedFault fault) {
    Alert match =
        firing.stream()
            .filter(a -> a.getKind() == kind && about(a, fault))
            .findFirst()
            .orElse(null);
    if (match != null) {
      firing.remove(match);
    }
    return match;
  }

  /**
   * The fault's node; for an NCCL job fault the job, on one of its nodes (the detector raises one
   * alert per job, on the host that logged its transport first, which the simulator's per-node
   * jitter decides); for cluster-wide kinds the fault's cluster.
   */
  private static boolean about(Alert a, InjectedFault fault) {
    if (CLUSTER_WIDE.contains(a.getKind())) {
      return a.getNode() == null;
    }
    if (fault.kind().source() == FaultKind.Source.NCCL && fault.affected().size() > 1) {
      return Objects.equals(a.getJob(), fault.device()) && fault.affected().contains(a.getNode());
    }
    return Objects.equals(a.getNode(), fault.node());
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
