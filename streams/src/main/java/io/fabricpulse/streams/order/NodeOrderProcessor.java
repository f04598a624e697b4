package io.fabricpulse.streams.order;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.Lineage;
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
 * its time ({@link NodeSourceClocks}). Each forwarded record carries its own fabric.rates
 * coordinates ({@link Lineage#toHeaders}).
 */
final class NodeOrderProcessor implements Processor<String, CounterRates, String, CounterRates> {

  private static final Logger LOG = LoggerFactory.getLogger(NodeOrderProcessor.class);

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
  public void process(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r == null) {
      return;
    }
    String node = r.getCluster() + "/" + r.getNode();
    long t = r.getTime().toEpochMilli();
    Headers headers = withInput(record.headers(), Lineage.of(context));
    NodeSourceClocks before = clocks.get(node);
    if (before == null) {
      before = NodeSourceClocks.EMPTY;
    }
    if (before.released(t)) {
      // its source trailed the node by more than its timeout: too late for the order
      LOG.debug(
          "late rates of {} {} at {} (released to {}): forwarded on arrival",
          node,
          r.getSource(),
          r.getTime(),
          before.releasedTo());
      forward(record.key(), new BufferedRates(r, headers));
    } else {
      buffer.add(node, r, headers);
    }
    long interval = r.getIntervalMs() == null ? 0 : r.getIntervalMs();
    NodeSourceClocks after = before.observe(r.getSource().name(), t, interval);
    long watermark = after.lowWatermark();
    if (watermark > before.releasedTo()) {
      for (BufferedRates due : buffer.releaseUpTo(node, watermark)) {
        forward(record.key(), due);
      }
      after = after.releasedUpTo(watermark);
    }
    clocks.put(node, after);
  }

  private void forward(String key, BufferedRates e) {
    context.forward(new Record<>(key, e.record(), e.time(), e.headers()));
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
