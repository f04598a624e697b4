package io.fabricpulse.collectors.sim;

import io.fabricpulse.avro.AlertKind;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One scripted fault of the simulator, so tests and {@code demo} can check detection exactly.
 *
 * @param node subject node (for SM_FAILOVER the SM host that stops, {@code sm01})
 * @param device the subject on the node: RDMA device for port faults, netdev for ethtool faults
 *     (PFC/ECN/lossless/MTU), GPU index ("3") for GPU faults, job id for NCCL faults; null for
 *     node-wide faults
 * @param port port on the device; null when not port-specific
 * @param start first simulated instant at which the fault is visible in a sample
 * @param end first instant at which it is over (equal to start for instantaneous events)
 * @param detail what exactly is injected, e.g. the degraded rate text
 * @param affected every other subject the fault shows on, as {@code node/netdev} for the victims of
 *     a pause storm, {@code node} for the other nodes of an NCCL job; empty when none
 * @param alsoExpected alerts of other kinds this fault raises on this fleet besides its kind's own
 *     ({@link FaultKind#alsoExpected}): a host link trained below its rate is also
 *     LINK_BELOW_CAPABILITY where the fabric role sweeps the links
 */
public record InjectedFault(
    FaultKind kind,
    String node,
    String device,
    Integer port,
    Instant start,
    Instant end,
    String detail,
    List<String> affected,
    List<AlertKind> alsoExpected) {

  public InjectedFault {
    affected = List.copyOf(affected);
    alsoExpected = List.copyOf(alsoExpected);
  }

  /** A fault whose kind says every alert it raises. */
  public InjectedFault(
      FaultKind kind,
      String node,
      String device,
      Integer port,
      Instant start,
      Instant end,
      String detail,
      List<String> affected) {
    this(kind, node, device, port, start, end, detail, affected, List.of());
  }

  /** This fault, also raising {@code kind} on this fleet. */
  public InjectedFault alsoRaising(AlertKind kind) {
    List<AlertKind> more = new java.util.ArrayList<>(alsoExpected);
    more.add(kind);
    return new InjectedFault(this.kind, node, device, port, start, end, detail, affected, more);
  }

  /** A fault with no subjects besides its own. */
  public InjectedFault(
      FaultKind kind,
      String node,
      String device,
      Integer port,
      Instant start,
      Instant end,
      String detail) {
    this(kind, node, device, port, start, end, detail, List.of(), List.of());
  }

  public Optional<AlertKind> expectedAlert() {
    return kind.expectedAlert();
  }

  /** Whether a sample taken at {@code time} is inside the fault window [start, end). */
  public boolean activeAt(Instant time) {
    return !time.isBefore(start) && time.isBefore(end);
  }

  /** Whether this fault is about the given port (node-wide faults are about all of its ports). */
  public boolean concerns(String node, String device, int port) {
    return this.node.equals(node)
        && (this.device == null || this.device.equals(device))
        && (this.port == null || this.port == port);
  }
}
