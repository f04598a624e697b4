package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import java.util.Locale;

/** A stormed port's part in a pause storm (docs/thresholds.md P4, our reading). */
enum PortRole {
  /** Sends far more pause frames than it receives: its own receive path is stalled. */
  ORIGIN,
  /** Paused by its peer: it cannot send. */
  VICTIM;

  static final String LABEL = "role";

  String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  static boolean isOrigin(Alert alert) {
    return ORIGIN.label().equals(alert.getLabels().get(LABEL));
  }
}
