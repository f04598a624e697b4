package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.deadletters.DecodeOrDeadLetter;
import io.fabricpulse.streams.deadletters.DecodedValue;
import io.fabricpulse.streams.order.RatesInNodeOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The input streams of the detectors in one {@link StreamsBuilder}. Kafka Streams allows one source
 * per topic in a topology, so every detector asks this object for its input and all detectors
 * reading e.g. fabric.rates share one source node, named {@code source-<topic>}. Every input is
 * read as bytes and decoded in a processor ({@link DecodeOrDeadLetter}), so a record that cannot be
 * decoded becomes one dead letter, committed with its own offset.
 */
public final class DetectorInputs {

  private final StreamsBuilder builder;
  private final FabricTopics topics;
  private final DetectorSerdes serdes;
  private final boolean inMemoryStores;
  private final Map<String, KStream<String, ?>> streams = new HashMap<>();
  private KStream<String, SpecificRecord> ratesRecords;
  private KStream<String, CounterRates> ratesPerPort;
  private KStream<String, CounterRates> ratesInNodeOrder;
  private final Map<String, KStream<String, ?>> shared = new HashMap<>();

  public DetectorInputs(StreamsBuilder builder, FabricTopics topics, DetectorSerdes serdes) {
    this(builder, topics, serdes, false);
  }

  /**
   * @param inMemoryStores key-value stores in memory instead of RocksDB ({@link
   *     io.fabricpulse.streams.StreamsSettings#IN_MEMORY_STATE})
   */
  public DetectorInputs(
      StreamsBuilder builder, FabricTopics topics, DetectorSerdes serdes, boolean inMemoryStores) {
    this.inMemoryStores = inMemoryStores;
    this.builder = builder;
    this.topics = topics;
    this.serdes = serdes;
  }

  public StreamsBuilder builder() {
    return builder;
  }

  public FabricTopics topics() {
    return topics;
  }

  public DetectorSerdes serdes() {
    return serdes;
  }

  /**
   * Registers a persistent (RocksDB), changelogged key-value store with String keys (every detector
   * store is one), named {@code name} so its changelog name is stable; for an offline run ({@link
   * #offlineState}) an in-memory store without a changelog.
   */
  public <V> void addStore(String name, Serde<V> valueSerde) {
    builder.addStateStore(StreamsSettings.keyValueStore(name, valueSerde, inMemoryStores));
  }

  /**
   * Whether this topology runs offline ({@link StreamsSettings#IN_MEMORY_STATE}): one task that
   * starts empty and throws its state away, so its stores need no changelog.
   */
  public boolean offlineState() {
    return inMemoryStores;
  }

  /**
   * fabric.rates as one {@link CounterRates} per port (key {@code cluster/node} like the raw topics
   * and co-partitioned with them: one node's rates are in one partition, in the order its rate task
   * wrote them). The topic carries one 0.2 {@link NodeRates} per node cycle (or a 0.1 CounterRates
   * from a rate stage not yet upgraded); processor {@code rates-per-port} splits each into its
   * ports, in order, in memory.
   */
  public KStream<String, CounterRates> rates() {
    if (ratesPerPort == null) {
      ratesPerPort =
          ratesRecords().flatMapValues(NodeRecords::portRates, Named.as("rates-per-port"));
    }
    return ratesPerPort;
  }

  /**
   * fabric.rates as it is on the topic: one {@link NodeRates} per node cycle (or a 0.1 {@link
   * CounterRates}), from the shared source {@code source-fabric-rates}.
   */
  public KStream<String, SpecificRecord> ratesRecords() {
    if (ratesRecords == null) {
      ratesRecords =
          decoded(
              topics.rates().name(), serdes.oneOf(List.of(NodeRates.class, CounterRates.class)));
    }
    return ratesRecords;
  }

  /**
   * fabric.rates with each node's records in event-time order across its sources ({@link
   * RatesInNodeOrder}), for detectors whose condition spans a node's sources; created on first use
   * and shared.
   */
  public KStream<String, CounterRates> ratesInNodeOrder() {
    if (ratesInNodeOrder == null) {
      ratesInNodeOrder = RatesInNodeOrder.addTo(this);
    }
    return ratesInNodeOrder;
  }

  /**
   * Offers {@code stream} to the families added after this one under {@code name} (e.g. the link
   * detector's alerts, which NCCL_ERROR attaches), within the topology: no round trip through an
   * output topic.
   */
  public void share(String name, KStream<String, ?> stream) {
    if (shared.putIfAbsent(name, stream) != null) {
      throw new IllegalStateException("a stream is shared as " + name + " already");
    }
  }

  private final Map<String, Object> built = new HashMap<>();

  /**
   * The part of the topology named {@code name} that several families use (e.g. the topology join's
   * table), built by {@code make} on first use and the same object afterwards.
   */
  @SuppressWarnings("unchecked")
  public <T> T once(String name, java.util.function.Supplier<T> make) {
    Object part = built.get(name);
    if (part == null) {
      part = make.get();
      built.put(name, part);
    }
    return (T) part;
  }

  /** The stream shared as {@code name}, or empty when no family of this topology shares it. */
  @SuppressWarnings("unchecked")
  public <V> Optional<KStream<String, V>> shared(String name) {
    return Optional.ofNullable((KStream<String, V>) shared.get(name));
  }

  /** The stream of {@code topic}, created on first use with its Avro value serde. */
  @SuppressWarnings("unchecked")
  public <T extends SpecificRecord> KStream<String, T> stream(TopicSpec topic, Class<T> type) {
    if (!type.equals(topic.valueType())) {
      throw new IllegalArgumentException(topic.name() + " carries " + topic.valueType());
    }
    return (KStream<String, T>)
        streams.computeIfAbsent(
            topic.name(), name -> decoded(name, serdes.value(type).deserializer()));
  }

  /**
   * The source {@code source-<topic>} of {@code topic}, read as bytes and decoded by {@code
   * decode-<topic>} ({@link DecodeOrDeadLetter}): the records it cannot decode go to fabric.dlq
   * through {@code decode-<topic>-refused}, {@code dead-letter-of-<topic>} and the sink {@code
   * dead-letters-<topic>}; the rest come out of {@code decoded-<topic>}.
   */
  private <T> KStream<String, T> decoded(String topic, Deserializer<T> deserializer) {
    String name = topic.replace('.', '-');
    String decode = "decode-" + name;
    KStream<String, DecodedValue<T>> decoded =
        builder.stream(
                topic,
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("source-" + name))
            .processValues(() -> new DecodeOrDeadLetter<>(decode, deserializer), Named.as(decode));
    Map<String, KStream<String, DecodedValue<T>>> branches =
        decoded
            .split(Named.as(decode + "-"))
            .branch((key, value) -> value.isRefused(), Branched.as("refused"))
            .defaultBranch(Branched.as("records"));
    branches
        .get(decode + "-refused")
        .mapValues(DecodedValue::deadLetter, Named.as("dead-letter-of-" + name))
        .to(
            topics.deadLetters().name(),
            Produced.with(Serdes.String(), serdes.value(DeadLetter.class))
                .withName("dead-letters-" + name));
    return branches
        .get(decode + "-records")
        .mapValues(DecodedValue::value, Named.as("decoded-" + name));
  }
}
