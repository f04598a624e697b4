package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import org.apache.kafka.common.header.Headers;

/**
 * A fabric.rates record waiting for its node's low watermark, with the headers it is forwarded
 * with: its own (the rate stage's raw-record lineage) plus where it was read from.
 */
record BufferedRates(CounterRates record, Headers headers) {

  long time() {
    return record.getTime().toEpochMilli();
  }
}
