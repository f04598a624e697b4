package io.fabricpulse.collectors.sim;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Which fired alerts answer which injected fault: the ground truth {@code demo}'s exactness check
 * and the detection tests share. A fault is answered by one FIRING alert of each kind it must raise
 * ({@link FaultKind#expectedAlert}, {@link FaultKind#alsoExpected} and the fault's own {@link
 * InjectedFault#alsoExpected}) about its subject, and a fault on a cable also by the alert of the
 * same kind on the cable's other end (a host port's leaf port, an ISL's second switch): the
 * topology join gives both the same {@value #INCIDENT} label.
 */
public final class FaultAlerts {

  /**
   * The topology join's label naming one incident of one kind on one cable (streams' LinkPeers).
   */
  public static final String INCIDENT = "incident";

  /** Kinds raised about a whole cluster (no node): the subnet manager and storm incidents. */
  private static final Set<AlertKind> CLUSTER_WIDE =
      Set.of(
          AlertKind.SM_FAILOVER,
          AlertKind.SM_ABSENT,
          AlertKind.SM_HUNG,
          AlertKind.SM_UNSTABLE,
          AlertKind.PAUSE_PROPAGATION);

  private FaultAlerts() {}

  /** Every kind {@code fault} must raise, the expected one first; empty for a silent fault. */
  public static List<AlertKind> expectedKinds(InjectedFault fault) {
    List<AlertKind> kinds = new ArrayList<>();
    fault.expectedAlert().ifPresent(kinds::add);
    if (!kinds.isEmpty()) {
      kinds.addAll(fault.kind().alsoExpected());
      kinds.addAll(fault.alsoExpected());
    }
    return kinds;
  }

  /** Removes and returns the first FIRING alert of {@code kind} that is about {@code fault}. */
  public static Alert take(List<Alert> firing, AlertKind kind, InjectedFault fault) {
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
   * Removes and returns the alerts of {@code match}'s kind with its incident key: the other end of
   * its cable. None when the alert has no key (no cable: a RoCE netdev, a node-level alert).
   */
  public static List<Alert> takeOtherEnds(List<Alert> firing, Alert match) {
    String incident = match.getLabels().get(INCIDENT);
    if (incident == null) {
      return List.of();
    }
    List<Alert> ends =
        firing.stream()
            .filter(a -> a.getKind() == match.getKind())
            .filter(a -> incident.equals(a.getLabels().get(INCIDENT)))
            .toList();
    firing.removeAll(ends);
    return ends;
  }

  /**
   * Whether {@code a} is about {@code fault}: on the fault's node (for a fault of the fabric's own
   * cables, also on its switch port); for an NCCL job fault the job, on one of its nodes (the
   * detector raises one alert per job, on the host that logged its transport first, which the
   * simulator's per-node jitter decides); for cluster-wide kinds the fault's cluster.
   */
  public static boolean about(Alert a, InjectedFault fault) {
    if (CLUSTER_WIDE.contains(a.getKind())) {
      return a.getNode() == null;
    }
    if (fault.kind().source() == FaultKind.Source.FABRIC) {
      return Objects.equals(a.getNode(), fault.node())
          && Objects.equals(a.getDevice(), fault.device())
          && Objects.equals(a.getPort(), fault.port());
    }
    if (fault.kind().source() == FaultKind.Source.NCCL && fault.affected().size() > 1) {
      return Objects.equals(a.getJob(), fault.device()) && fault.affected().contains(a.getNode());
    }
    return Objects.equals(a.getNode(), fault.node());
  }
}
