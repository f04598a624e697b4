package io.fabricpulse.app.output;

import io.fabricpulse.avro.Alert;
import java.time.Instant;

/**
 * How an alert reads on a terminal: its subject in the operators' own vocabulary, then the rest.
 */
public final class AlertText {
  private AlertText() {}

  /** {@code gpu017/mlx5_2/1 ens3np0 prio 3}, {@code gpu014 gpu 1}, {@code demo} (cluster-wide). */
  public static String subject(Alert a) {
    StringBuilder subject = new StringBuilder(a.getNode() == null ? a.getCluster() : a.getNode());
    if (a.getDevice() != null) {
      subject.append('/').append(a.getDevice());
    }
    if (a.getPort() != null) {
      subject.append('/').append(a.getPort());
    }
    if (a.getNetdev() != null) {
      subject.append(' ').append(a.getNetdev());
    }
    if (a.getPriority() != null) {
      subject.append(" prio ").append(a.getPriority());
    }
    if (a.getGpu() != null) {
      subject.append(" gpu ").append(a.getGpu());
    }
    if (a.getJob() != null) {
      subject.append(" job ").append(a.getJob());
    }
    return subject.toString();
  }

  /** Event time of the state change: resolved_at for RESOLVED, started_at for FIRING. */
  public static Instant at(Alert a) {
    return a.getResolvedAt() != null ? a.getResolvedAt() : a.getStartedAt();
  }
}
