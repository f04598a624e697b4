package io.fabricpulse.app.demo;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Compares the alerts the pipeline fired with the faults the simulator injected: every fault whose
 * alert kind has a running detector must have produced exactly one FIRING alert of that kind on its
 * node, and nothing else may have fired (clears and reboots included).
 */
record DetectionReport(
    List<String> detected, List<String> missed, List<String> unexpected, List<String> notCovered) {

  static DetectionReport compare(
      List<InjectedFault> faults, List<Alert> alerts, Set<AlertKind> detectable) {
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
      Alert match =
          firing.stream()
              .filter(a -> a.getKind() == expected && onFaultNode(a, fault))
              .findFirst()
              .orElse(null);
      if (match == null) {
        missed.add(describe(fault) + " -> expected " + expected);
      } else {
        firing.remove(match);
        detected.add(describe(fault) + " -> " + expected + " " + match.getAlertId());
      }
    }
    List<String> unexpected =
        firing.stream()
            .map(a -> a.getKind() + " on " + a.getNode() + ": " + a.getSummary())
            .toList();
    return new DetectionReport(detected, missed, unexpected, notCovered);
  }

  /**
   * The fault's node; for an NCCL job fault any of its nodes: the detector raises one alert per
   * job, on the host whose verdict arrived first.
   */
  private static boolean onFaultNode(Alert a, InjectedFault fault) {
    return Objects.equals(a.getNode(), fault.node())
        || (fault.kind().source() == FaultKind.Source.NCCL
            && fault.affected().contains(a.getNode()));
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
