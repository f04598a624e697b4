package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.streams.alerts.Lineage;

/** One SM record waiting in {@link SmEventBuffer}, with where it came from (for alert lineage). */
record BufferedSmEvent(SmSweep record, Lineage lineage) {

  long time() {
    return record.getTime().toEpochMilli();
  }
}
