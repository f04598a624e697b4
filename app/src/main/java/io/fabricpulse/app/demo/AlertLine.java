package io.fabricpulse.app.demo;

import io.fabricpulse.avro.Alert;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** One console line per alert state change. */
final class AlertLine {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private AlertLine() {}

  static String format(Alert a) {
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
    long at =
        a.getResolvedAt() != null
            ? a.getResolvedAt().toEpochMilli()
            : a.getStartedAt().toEpochMilli();
    return String.format(
        "  ALERT %-8s %-8s %-22s %-28s %s (sim %s UTC)",
        a.getState(),
        a.getSeverity(),
        a.getKind(),
        subject,
        a.getSummary(),
        TIME.format(java.time.Instant.ofEpochMilli(at)));
  }
}
