package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PortRates;
import io.fabricpulse.avro.RateSource;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Headers;

/**
 * A fabric.rates record waiting for its node's low watermark, with the headers it is forwarded
 * with: its own (the rate stage's raw-record lineage) plus where it was read from. The record is
 * what the topic carries: one {@link NodeRates} per node cycle (or a 0.1 {@link CounterRates} of
 * one port), buffered whole; its ports are split out only when it is released.
 */
record BufferedRates(SpecificRecord record, Headers headers) {

  BufferedRates {
    if (!(record instanceof NodeRates) && !(record instanceof CounterRates)) {
      throw new IllegalArgumentException("not a rates record: " + record.getSchema().getFullName());
    }
  }

  long time() {
    return instant().toEpochMilli();
  }

  Instant instant() {
    return record instanceof NodeRates n ? n.getTime() : ((CounterRates) record).getTime();
  }

  RateSource source() {
    return record instanceof NodeRates n ? n.getSource() : ((CounterRates) record).getSource();
  }

  long seq() {
    return record instanceof NodeRates n ? n.getSeq() : ((CounterRates) record).getSeq();
  }

  /** {@code cluster/node}. */
  String node() {
    return record instanceof NodeRates n
        ? n.getCluster() + "/" + n.getNode()
        : ((CounterRates) record).getCluster() + "/" + ((CounterRates) record).getNode();
  }

  /** The sampling interval the record reports (its last port's that knows one), 0 if none. */
  long intervalMs() {
    if (record instanceof CounterRates r) {
      return r.getIntervalMs() == null ? 0 : r.getIntervalMs();
    }
    long interval = 0;
    for (PortRates p : ((NodeRates) record).getPorts()) {
      if (p.getIntervalMs() != null && p.getIntervalMs() > 0) {
        interval = p.getIntervalMs();
      }
    }
    return interval;
  }
}
