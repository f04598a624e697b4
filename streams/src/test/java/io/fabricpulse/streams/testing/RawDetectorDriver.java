package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rules.RuleSet;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.function.BiConsumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
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
 * A detector family over the raw SM / GPU / Xid topics, built as production builds it (explicit
 * naming enforced), under a TopologyTestDriver. Records are piped with their own event time.
 */
public final class RawDetectorDriver implements AutoCloseable {

  public final FabricTopics topics = FabricTopics.defaults();
  public final DetectorSerdes serdes;
  public final Topology topology;
  public final TopologyTestDriver driver;
  private final String appId;
  private final TestInputTopic<String, SmSweep> sm;
  private final TestInputTopic<String, GpuEcc> gpu;
  private final TestInputTopic<String, GpuXid> xid;
  private final TestOutputTopic<String, Alert> alerts;
  private final TestOutputTopic<String, DeadLetter> deadLetters;

  public RawDetectorDriver(
      String appId,
      BiConsumer<DetectorInputs, RuleSet> family,
      RuleSet rules,
      Path stateDir,
      String registryScope,
      Instant start) {
    this.appId = appId;
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    serdes = DetectorSerdes.forRegistry("mock://" + registryScope);
    StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
    family.accept(new DetectorInputs(builder, topics, serdes), rules);
    topology = builder.build();
    driver = new TopologyTestDriver(topology, props, start);
    sm = input(topics.sm().name(), serdes.value(SmSweep.class));
    gpu = input(topics.gpu().name(), serdes.value(GpuEcc.class));
    xid = input(topics.xid().name(), serdes.value(GpuXid.class));
    alerts =
        driver.createOutputTopic(
            topics.alerts().name(), new StringDeserializer(), serdes.alert().deserializer());
    deadLetters =
        driver.createOutputTopic(
            topics.deadLetters().name(),
            new StringDeserializer(),
            serdes.value(DeadLetter.class).deserializer());
  }

  private <T> TestInputTopic<String, T> input(String topic, Serde<T> serde) {
    return driver.createInputTopic(topic, new StringSerializer(), serde.serializer());
  }

  public void pipe(SmSweep r) {
    sm.pipeInput(r.getCluster() + "/" + r.getNode(), r, r.getTime());
  }

  public void pipe(GpuEcc r) {
    gpu.pipeInput(r.getCluster() + "/" + r.getNode(), r, r.getTime());
  }

  public void pipe(GpuXid r) {
    xid.pipeInput(r.getCluster() + "/" + r.getNode(), r, r.getTime());
  }

  public List<Alert> readAlerts() {
    return alerts.readValuesToList();
  }

  /** What the detectors sent to fabric.dlq since the last read. */
  public List<DeadLetter> readDeadLetters() {
    return deadLetters.readValuesToList();
  }

  public List<TestRecord<String, Alert>> readAlertRecords() {
    return alerts.readRecordsToList();
  }

  /** A store's changelog records, as a restore would replay them. */
  public <V> List<KeyValue<String, V>> changelog(String store, Deserializer<V> values) {
    return driver
        .createOutputTopic(appId + "-" + store + "-changelog", new StringDeserializer(), values)
        .readKeyValuesToList();
  }

  /** Replays changelog records into a store, as Kafka Streams restores state after a restart. */
  public <V> void restore(String store, List<KeyValue<String, V>> records) {
    var kv = driver.<String, V>getKeyValueStore(store);
    for (KeyValue<String, V> r : records) {
      if (r.value == null) {
        kv.delete(r.key);
      } else {
        kv.put(r.key, r.value);
      }
    }
  }

  @Override
  public void close() {
    driver.close();
  }
}
