package io.fabricpulse.app.demo;

import io.fabricpulse.app.output.AlertText;
import io.fabricpulse.avro.Alert;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** One console line per alert state change. */
final class AlertLine {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

  private AlertLine() {}

  static String format(Alert a) {
    return String.format(
        "  ALERT %-8s %-8s %-22s %-28s %s (sim %s UTC)",
        a.getState(),
        a.getSeverity(),
        a.getKind(),
        AlertText.subject(a),
        a.getSummary(),
        TIME.format(AlertText.at(a)));
  }
}
