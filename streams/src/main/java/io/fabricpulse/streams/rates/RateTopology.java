package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.ValueSerdes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * The rate stage (docs/design.md section 4): raw port, PFC and ECN samples in (one {@link
 * NodeCounters} per node, source and cycle), one {@link NodeRates} per raw record out on {@code
 * fabric.rates}, keyed like the raw record ({@code cluster/node}); refused records to {@code
 * fabric.dlq}.
 *
 * <pre>
 * rates-source-port-counters ─┐
 * rates-source-pfc           ─┼─▶ rates-compute [rates-last-sample] ─┬─▶ rates-sink-rates
 * rates-source-ecn           ─┤                                      └─▶ rates-sink-dlq
 * rates-source-switch-counters ┘
 * </pre>
 *
 * Sources read values as raw bytes and {@code rates-compute} decodes them, so a corrupt record
 * becomes a {@link DeadLetter} with its coordinates and the processor's name, without a
 * deserialization exception handler in the application config. The store's changelog topic is
 * {@code <application.id>-rates-last-sample-changelog}.
 *
 * <p>Co-partitioning: fabric.rates has the partition count of the raw topics it is rated from and
 * is written with their key and the default partitioner, so rates partition p is produced only by
 * the task of raw partition p. {@link #addTo} refuses topic specs that break this.
 */
public final class RateTopology {

  public static final String SOURCE_PORT_COUNTERS = "rates-source-port-counters";
  public static final String SOURCE_PFC = "rates-source-pfc";
  public static final String SOURCE_ECN = "rates-source-ecn";
  public static final String SOURCE_SWITCH_COUNTERS = "rates-source-switch-counters";
  public static final String PROCESSOR = "rates-compute";
  public static final String LAST_SAMPLE_STORE = "rates-last-sample";
  public static final String SINK_RATES = "rates-sink-rates";
  public static final String SINK_DEAD_LETTERS = "rates-sink-dlq";

  private RateTopology() {}

  /** Builds the rate topology; the same call serves production, replay and tests. */
  public static Topology build(FabricTopics topics, ValueSerdes serdes, RateConfig config) {
    return addTo(new Topology(), topics, serdes, config);
  }

  /**
   * Adds the rate stage to {@code topology}, e.g. one built from the detectors' StreamsBuilder, so
   * the whole pipeline runs as one application.
   */
  public static Topology addTo(
      Topology topology, FabricTopics topics, ValueSerdes serdes, RateConfig config) {
    return addTo(topology, topics, serdes, config, false);
  }

  /**
   * As {@link #addTo(Topology, FabricTopics, ValueSerdes, RateConfig)}, with the state in memory
   * instead of RocksDB when {@code inMemoryState} ({@link
   * io.fabricpulse.streams.StreamsSettings#IN_MEMORY_STATE}).
   */
  public static Topology addTo(
      Topology topology,
      FabricTopics topics,
      ValueSerdes serdes,
      RateConfig config,
      boolean inMemoryState) {
    requireCoPartitioned(topics);
    List<String> sources = new ArrayList<>();
    if (config.sources().contains(RateSource.PORT)) {
      addSource(topology, SOURCE_PORT_COUNTERS, topics.portCounters().name());
      sources.add(SOURCE_PORT_COUNTERS);
    }
    if (config.sources().contains(RateSource.PFC)) {
      addSource(topology, SOURCE_PFC, topics.pfc().name());
      sources.add(SOURCE_PFC);
    }
    if (config.sources().contains(RateSource.ECN)) {
      addSource(topology, SOURCE_ECN, topics.ecn().name());
      sources.add(SOURCE_ECN);
    }
    if (config.sources().contains(RateSource.PERFQUERY)) {
      addSource(topology, SOURCE_SWITCH_COUNTERS, topics.switchCounters().name());
      sources.add(SOURCE_SWITCH_COUNTERS);
    }
    String[] parents = sources.toArray(String[]::new);

    topology.addProcessor(
        PROCESSOR,
        () ->
            new RateProcessor(
                PROCESSOR,
                LAST_SAMPLE_STORE,
                SINK_RATES,
                SINK_DEAD_LETTERS,
                decoders(topics, serdes, config),
                new CounterSemantics(config.wrapPlausibleFraction())),
        parents);
    topology.addStateStore(lastSampleStore(inMemoryState), PROCESSOR);

    Serde<NodeRates> ratesSerde = serdes.forValues(NodeRates.class);
    Serde<DeadLetter> deadLetterSerde = serdes.forValues(DeadLetter.class);
    topology.addSink(
        SINK_RATES,
        topics.rates().name(),
        new StringSerializer(),
        ratesSerde.serializer(),
        PROCESSOR);
    topology.addSink(
        SINK_DEAD_LETTERS,
        topics.deadLetters().name(),
        new StringSerializer(),
        deadLetterSerde.serializer(),
        PROCESSOR);
    return topology;
  }

  /**
   * fabric.rates must have as many partitions as every raw topic the rate stage reads: its records
   * keep the raw key, and per-node detectors rely on rates partition p holding exactly the nodes of
   * raw partition p, written in order by one task.
   *
   * @throws IllegalArgumentException when the partition counts differ
   */
  static void requireCoPartitioned(FabricTopics topics) {
    for (TopicSpec raw :
        List.of(topics.portCounters(), topics.pfc(), topics.ecn(), topics.switchCounters())) {
      if (raw.partitions() != topics.rates().partitions()) {
        throw new IllegalArgumentException(
            topics.rates().name()
                + " has "
                + topics.rates().partitions()
                + " partitions but "
                + raw.name()
                + " has "
                + raw.partitions()
                + ": the rate stage keeps the raw key, so both need the same count");
      }
    }
  }

  /**
   * The per-node store of the last accepted samples, changelogged for fail-over; offline ({@code
   * inMemory}) in memory and without a changelog.
   */
  static StoreBuilder<KeyValueStore<String, NodeLastSamples>> lastSampleStore(boolean inMemory) {
    return StreamsSettings.keyValueStore(LAST_SAMPLE_STORE, LastSampleSerde.serde(), inMemory);
  }

  private static void addSource(Topology topology, String name, String topic) {
    topology.addSource(name, new StringDeserializer(), new ByteArrayDeserializer(), topic);
  }

  /**
   * One decoder per raw topic, made per processor instance (deserializers are per task). Each
   * accepts the 0.2 {@link NodeCounters} (a node's cycle) and the 0.1 per-port record of its topic,
   * so collectors can be upgraded node by node while the rate stage already runs 0.2.
   */
  private static Map<String, RateProcessor.SampleDecoder> decoders(
      FabricTopics topics, ValueSerdes serdes, RateConfig config) {
    Map<String, RateProcessor.SampleDecoder> decoders = new HashMap<>();
    if (config.sources().contains(RateSource.PORT)) {
      decoders.put(topics.portCounters().name(), decoder(serdes, PortCounters.class));
    }
    if (config.sources().contains(RateSource.PFC)) {
      decoders.put(topics.pfc().name(), decoder(serdes, PfcPauseFrames.class));
    }
    if (config.sources().contains(RateSource.ECN)) {
      decoders.put(topics.ecn().name(), decoder(serdes, EcnMarks.class));
    }
    if (config.sources().contains(RateSource.PERFQUERY)) {
      // switch ports have no 0.1 per-port record: the topic carries NodeCounters PERFQUERY only
      Deserializer<SpecificRecord> switches = serdes.oneOf(List.of(NodeCounters.class));
      decoders.put(
          topics.switchCounters().name(),
          (topic, bytes) -> (NodeCounters) switches.deserialize(topic, bytes));
    }
    return decoders;
  }

  private static RateProcessor.SampleDecoder decoder(
      ValueSerdes serdes, Class<? extends SpecificRecord> legacy) {
    Deserializer<SpecificRecord> values = serdes.oneOf(List.of(NodeCounters.class, legacy));
    return (topic, bytes) -> asNode(values.deserialize(topic, bytes));
  }

  /** A 0.2 node record as it is; a 0.1 per-port record as the node record of its one port. */
  static NodeCounters asNode(SpecificRecord value) {
    if (value == null || value instanceof NodeCounters) {
      return (NodeCounters) value;
    }
    if (value instanceof PortCounters p) {
      return NodeRecords.ofPorts(
          new NodeRecords.Cycle(
              p.getCluster(), p.getNode(), p.getBootId(), p.getSeq(), p.getTime()),
          RateSource.PORT,
          List.of(p));
    }
    if (value instanceof PfcPauseFrames p) {
      return NodeRecords.ofPfc(
          new NodeRecords.Cycle(
              p.getCluster(), p.getNode(), p.getBootId(), p.getSeq(), p.getTime()),
          List.of(p));
    }
    if (value instanceof EcnMarks e) {
      return NodeRecords.ofEcn(
          new NodeRecords.Cycle(
              e.getCluster(), e.getNode(), e.getBootId(), e.getSeq(), e.getTime()),
          List.of(e));
    }
    throw new SerializationException("not a counter sample: " + value.getSchema().getFullName());
  }
}
