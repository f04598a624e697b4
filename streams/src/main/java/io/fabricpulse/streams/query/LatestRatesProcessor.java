package io.fabricpulse.streams.query;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps the latest rates record of every node and source in {@link QueryStores#LATEST_RATES_STORE};
 * forwards nothing. A record older than the one kept (a late cycle) does not replace it.
 */
final class LatestRatesProcessor implements Processor<String, SpecificRecord, Void, Void> {

  private KeyValueStore<String, NodeRates> latest;

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    latest = context.getStateStore(QueryStores.LATEST_RATES_STORE);
  }

  @Override
  public void process(Record<String, SpecificRecord> record) {
    if (record.key() == null) {
      return;
    }
    String key;
    NodeRates rates;
    if (record.value() instanceof NodeRates node) {
      key = QueryStores.nodePrefix(record.key()) + node.getSource();
      rates = node;
    } else if (record.value() instanceof CounterRates port) {
      key =
          QueryStores.nodePrefix(record.key())
              + port.getSource()
              + "|"
              + port.getDevice()
              + "/"
              + port.getPort()
              + "/"
              + port.getNetdev();
      rates = NodeRecords.ofRates(List.of(port));
    } else {
      return; // a tombstone or a record the source could not type
    }
    NodeRates kept = latest.get(key);
    if (kept == null || !kept.getTime().isAfter(rates.getTime())) {
      latest.put(key, rates);
    }
  }
}
