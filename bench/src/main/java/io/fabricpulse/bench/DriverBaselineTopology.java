package io.fabricpulse.bench;

import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The control for {@link RateStageBenchmark}: the same shape as the rate topology (one source, one
 * processor with one RocksDB store, one get and one put per record, one record forwarded to a sink)
 * doing no work of its own. Under TopologyTestDriver its cost is the driver's per-record overhead
 * (including the commit it does after every record), which the rate stage pays too.
 */
final class DriverBaselineTopology {

  static final String INPUT = "bench.baseline.in";
  static final String OUTPUT = "bench.baseline.out";
  static final String SOURCE = "baseline-source";
  static final String PROCESSOR = "baseline-copy";
  static final String STORE = "baseline-last";
  static final String SINK = "baseline-sink";

  private DriverBaselineTopology() {}

  static Topology build() {
    Topology topology = new Topology();
    topology.addSource(SOURCE, new StringDeserializer(), new ByteArrayDeserializer(), INPUT);
    topology.addProcessor(PROCESSOR, CopyProcessor::new, SOURCE);
    topology.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(STORE), Serdes.String(), Serdes.ByteArray()),
        PROCESSOR);
    topology.addSink(SINK, OUTPUT, new StringSerializer(), new ByteArraySerializer(), PROCESSOR);
    return topology;
  }

  /** Remembers the last value per key and forwards the record unchanged. */
  private static final class CopyProcessor implements Processor<String, byte[], String, byte[]> {
    private ProcessorContext<String, byte[]> context;
    private KeyValueStore<String, byte[]> store;

    @Override
    public void init(ProcessorContext<String, byte[]> context) {
      this.context = context;
      this.store = context.getStateStore(STORE);
    }

    @Override
    public void process(Record<String, byte[]> record) {
      store.get(record.key());
      store.put(record.key(), record.value());
      context.forward(record);
    }
  }
}
