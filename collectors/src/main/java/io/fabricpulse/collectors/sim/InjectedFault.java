package io.fabricpulse.collectors.sim;

import io.fabricpulse.avro.AlertKind;
import java.time.Instant;
import java.util.Optional;

/**
 * One scripted fault of the simulator, so tests and {@code demo} can check detection exactly.
 *
 * @param node subject node
 * @param device RDMA device (or netdev, GPU, ... for other sources); null for node-wide faults
 * @param port port on the device; null when not port-specific
 * @param start first simulated instant at which the fault is visible in a sample
 * @param end first instant at which it is over (equal to start for instantaneous events)
 * @param detail what exactly is injected, e.g. the degraded rate text
 */
public record InjectedFault(
    FaultKind kind,
    String node,
    String device,
    Integer port,
    Instant start,
    Instant end,
    String detail) {

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
