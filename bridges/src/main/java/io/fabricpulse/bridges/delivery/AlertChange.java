package io.fabricpulse.bridges.delivery;

import io.fabricpulse.avro.Alert;
import java.time.Instant;

/**
 * One alert state change on its way to one robot.
 *
 * @param source where it came from (for offsets and fabric.alerts.undelivered), or null when it did
 *     not come from Kafka (dry run)
 * @param arrivedAt when the bridge read it
 */
public record AlertChange(Alert alert, Source source, Instant arrivedAt) {

  /** The Kafka coordinates, timestamp and raw bytes of the record an alert change was read from. */
  @SuppressWarnings("ArrayRecordComponent") // the raw bytes are passed on untouched, never compared
  public record Source(
      String topic, int partition, long offset, long timestamp, byte[] key, byte[] value) {}

  /**
   * The delivery ledger's key of this change for {@code robot}: delivered once per robot, alert and
   * state. The alert id comes last, so whatever characters it holds the key is unambiguous.
   */
  public String ledgerKey(String robot) {
    return ledgerKey(robot, alert);
  }

  public static String ledgerKey(String robot, Alert alert) {
    return robot + "|" + alert.getState() + "|" + alert.getAlertId();
  }
}
