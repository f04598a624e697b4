package io.fabricpulse.app.replay;

import io.fabricpulse.avro.Alert;
import java.time.Duration;
import java.time.Instant;

/**
 * One alert state change with the event time it was emitted at (its record's timestamp: when the
 * pipeline detected it, as opposed to {@code started_at}, when the condition began).
 */
public record ReplayedAlert(Alert alert, Instant detectedAt) {

  /** Detection time minus start: how long the condition ran before it paged. */
  public Duration timeToDetect() {
    return Duration.between(alert.getStartedAt(), detectedAt);
  }
}
