package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.streams.alerts.Lineage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards each node's fabric.rates records in event-time order across the node's sources: a record
 * waits in the {@link RatesOrderBuffer} until every active source of its node has reported up to
 * its time ({@link NodeSourceClocks}). It handles what the topic carries, one {@link NodeRates} per
 * node cycle, whole (one clock update per node cycle instead of one per port), and forwards its
 * ports one {@link CounterRates} view each when it is released, ordered by device, port and netdev.
 * A record the node's new watermark already covers (every record of a node whose sources are in
 * step) is released with the buffered ones without being stored: writing a whole node record to the
 * store and reading it back cost more than the per-port buffer it replaced (BENCHMARKS.md, "Offline
 * detect: fewer records in the driver"). Each forwarded record carries its own fabric.rates
 * coordinates ({@link Lineage#toHeaders}).
 */
final class NodeOrderProcessor implements Processor<String, SpecificRecord, String, CounterRates> {

  private static final Logger LOG = LoggerFactory.getLogger(NodeOrderProcessor.class);

  /** The order of one record's ports (what the per-port buffer keys gave before). */
  static final Comparator<CounterRates> PORT_ORDER =
      Comparator.comparing(
              CounterRates::getDevice, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(CounterRates::getPort, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(CounterRates::getNetdev, Comparator.nullsFirst(Comparator.naturalOrder()));

  private ProcessorContext<String, CounterRates> context;
  private KeyValueStore<String, NodeSourceClocks> clocks;
  private RatesOrderBuffer buffer;

  @Override
  public void init(ProcessorContext<String, CounterRates> context) {
    this.context = context;
    this.clocks = context.getStateStore(RatesInNodeOrder.CLOCK_STORE);
    this.buffer = new RatesOrderBuffer(context.getStateStore(RatesInNodeOrder.BUFFER_STORE));
  }

  @Override
  public void process(Record<String, SpecificRecord> record) {
    if (record.value() == null) {
      return;
    }
    BufferedRates r =
        new BufferedRates(record.value(), withInput(record.headers(), Lineage.of(context)));
    String node = r.node();
    long t = r.time();
    NodeSourceClocks before = clocks.get(node);
    if (before == null) {
      before = NodeSourceClocks.EMPTY;
    }
    NodeSourceClocks after = before.observe(r.source().name(), t, r.intervalMs());
    long watermark = after.lowWatermark();
    BufferedRates arriving = null;
    if (before.released(t)) {
      // its source trailed the node by more than its timeout: too late for the order
      LOG.debug(
          "late rates of {} {} at {} (released to {}): forwarded on arrival",
          node,
          r.source(),
          r.instant(),
          before.releasedTo());
      forward(record.key(), r);
    } else if (t <= watermark) {
      arriving = r; // the new watermark covers it: out with the buffered ones, never stored
    } else {
      buffer.add(node, r);
    }
    if (watermark > before.releasedTo()) {
      for (BufferedRates due : buffer.releaseUpTo(node, watermark, arriving)) {
        forward(record.key(), due);
      }
      after = after.releasedUpTo(watermark);
    }
    clocks.put(node, after);
  }

  /** Forwards the record's ports, each with its own copy of the record's headers. */
  private void forward(String key, BufferedRates e) {
    List<CounterRates> ports = NodeRecords.portRates(e.record());
    if (ports.size() > 1) {
      ports = new ArrayList<>(ports);
      ports.sort(PORT_ORDER);
    }
    for (CounterRates port : ports) {
      context.forward(new Record<>(key, port, e.time(), new RecordHeaders(e.headers().toArray())));
    }
  }

  /** The record's own headers plus its fabric.rates coordinates ({@link Lineage#toHeaders}). */
  private static Headers withInput(Headers own, Lineage input) {
    RecordHeaders headers = new RecordHeaders(own.toArray());
    for (Header h : input.toHeaders()) {
      headers.remove(h.key());
      headers.add(h);
    }
    return headers;
  }
}
