package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rules.RuleSet;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The one TopologyTestDriver harness of the detector tests: a detector family (its {@code
 * addTo(inputs, rules)}) built as production builds it, with explicit-naming enforcement, or a
 * whole topology; the input topics of every family (records piped with their own event time), both
 * alert topics, fabric.dlq, and the stores' changelogs for restart stories. A family with its own
 * input or output (NCCL, PFC) extends it with those.
 */
public class DetectorDriver implements AutoCloseable {

  public final FabricTopics topics = FabricTopics.defaults();
  public final String appId;
  public final DetectorSerdes serdes;
  public final Topology topology;
  public final TopologyTestDriver driver;
  public final TestInputTopic<String, CounterRates> rates;
  public final TestOutputTopic<String, Alert> alerts;
  public final TestOutputTopic<String, Alert> active;
  private final TestOutputTopic<String, DeadLetter> deadLetters;
  private final Map<String, TestInputTopic<String, SpecificRecord>> inputs = new LinkedHashMap<>();

  /** Family {@code family} alone, the driver's wall clock at {@link RoceRates#T0}. */
  public DetectorDriver(
      String appId,
      BiConsumer<DetectorInputs, RuleSet> family,
      RuleSet rules,
      Path stateDir,
      String registryScope) {
    this(appId, family, rules, stateDir, registryScope, Instant.ofEpochMilli(RoceRates.T0));
  }

  /** Family {@code family} alone; {@code start} is the driver's (unused) wall clock. */
  public DetectorDriver(
      String appId,
      BiConsumer<DetectorInputs, RuleSet> family,
      RuleSet rules,
      Path stateDir,
      String registryScope,
      Instant start) {
    this(
        appId,
        stateDir,
        registryScope,
        start,
        (props, serdes) -> {
          StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
          family.accept(new DetectorInputs(builder, FabricTopics.defaults(), serdes), rules);
          return builder.build();
        });
  }

  /** What builds the topology under test from the driver's settings and serdes. */
  @FunctionalInterface
  public interface TopologyFactory {
    Topology build(Properties props, DetectorSerdes serdes);
  }

  /**
   * The topology {@code factory} builds (e.g. the whole pipeline's), with the settings the tests
   * run with: explicit naming enforced, no broker.
   */
  public DetectorDriver(
      String appId, Path stateDir, String registryScope, Instant start, TopologyFactory factory) {
    this.appId = appId;
    Properties props = DriverSettings.of(appId, stateDir.toString());
    serdes = DetectorSerdes.forRegistry("mock://" + registryScope);
    topology = factory.build(props, serdes);
    driver = new TopologyTestDriver(topology, props, start);
    rates =
        driver.createInputTopic(
            topics.rates().name(), new StringSerializer(), serdes.rates().serializer());
    alerts = output(topics.alerts().name(), serdes.alert().deserializer());
    active = output(topics.alertsActive().name(), serdes.alert().deserializer());
    deadLetters =
        output(topics.deadLetters().name(), serdes.value(DeadLetter.class).deserializer());
  }

  /** An output topic of the topology, read with {@code values}. */
  public final <V> TestOutputTopic<String, V> output(String topic, Deserializer<V> values) {
    return driver.createOutputTopic(topic, new StringDeserializer(), values);
  }

  /** The input topic {@code topic} with its Avro value serde, created on first use. */
  @SuppressWarnings("unchecked")
  public final <T extends SpecificRecord> TestInputTopic<String, T> input(TopicSpec topic) {
    return (TestInputTopic<String, T>)
        (TestInputTopic<String, ?>)
            inputs.computeIfAbsent(
                topic.name(),
                name ->
                    driver.createInputTopic(
                        name,
                        new StringSerializer(),
                        serdes.value((Class<SpecificRecord>) topic.valueType()).serializer()));
  }

  /** A fabric.rates record at its own time. */
  public final void pipe(RatesSample sample) {
    rates.pipeInput(sample.key(), sample.build(), sample.time());
  }

  /** A fabric.rates record as built, at its own time. */
  public final void pipe(String key, CounterRates value) {
    rates.pipeInput(key, value, value.getTime().toEpochMilli());
  }

  public final void pipe(SmSweep r) {
    this.<SmSweep>input(topics.sm())
        .pipeInput(nodeKey(r.getCluster(), r.getNode()), r, r.getTime());
  }

  public final void pipe(GpuEcc r) {
    this.<GpuEcc>input(topics.gpu())
        .pipeInput(nodeKey(r.getCluster(), r.getNode()), r, r.getTime());
  }

  public final void pipe(GpuXid r) {
    this.<GpuXid>input(topics.xid())
        .pipeInput(nodeKey(r.getCluster(), r.getNode()), r, r.getTime());
  }

  private static String nodeKey(String cluster, String node) {
    return cluster + "/" + node;
  }

  public final List<Alert> readAlerts() {
    return alerts.readValuesToList();
  }

  public final List<TestRecord<String, Alert>> readAlertRecords() {
    return alerts.readRecordsToList();
  }

  /** What the detectors sent to fabric.dlq since the last read. */
  public final List<DeadLetter> readDeadLetters() {
    return deadLetters.readValuesToList();
  }

  /** A store's changelog records, as a restore would replay them. */
  public final <V> List<KeyValue<String, V>> changelog(String store, Deserializer<V> values) {
    return output(appId + "-" + store + "-changelog", values).readKeyValuesToList();
  }

  /** The changelogs of {@code stores} (name -> value deserializer), by store name. */
  public final Map<String, List<KeyValue<String, Object>>> changelogs(
      Map<String, ? extends Deserializer<?>> stores) {
    Map<String, List<KeyValue<String, Object>>> out = new LinkedHashMap<>();
    stores.forEach(
        (store, values) ->
            out.put(
                store,
                changelog(store, values).stream()
                    .map(r -> KeyValue.<String, Object>pair(r.key, r.value))
                    .toList()));
    return out;
  }

  /** Replays changelog records into a store, as Kafka Streams restores state after a restart. */
  public final <V> void restore(String store, List<KeyValue<String, V>> records) {
    var kv = driver.<String, V>getKeyValueStore(store);
    for (KeyValue<String, V> r : records) {
      if (r.value == null) {
        kv.delete(r.key);
      } else {
        kv.put(r.key, r.value);
      }
    }
  }

  /** Restores every store of {@link #changelogs}. */
  public final void restoreAll(Map<String, List<KeyValue<String, Object>>> changelogs) {
    changelogs.forEach(this::restore);
  }

  @Override
  public void close() {
    driver.close();
  }
}
