package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
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
 * One detector family (its {@code addTo(inputs, rules)}) built as production builds it, with
 * explicit-naming enforcement, under a TopologyTestDriver with fabric.rates in and both alert
 * topics out.
 */
public final class DetectorDriver implements AutoCloseable {

  public final FabricTopics topics = FabricTopics.defaults();
  public final String appId;
  public final Topology topology;
  public final TopologyTestDriver driver;
  public final TestInputTopic<String, CounterRates> rates;
  public final TestOutputTopic<String, Alert> alerts;
  public final TestOutputTopic<String, Alert> active;

  public DetectorDriver(
      String appId,
      BiConsumer<DetectorInputs, RuleSet> family,
      RuleSet rules,
      Path stateDir,
      String registryScope) {
    this.appId = appId;
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    DetectorSerdes serdes = DetectorSerdes.forRegistry("mock://" + registryScope);
    StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
    family.accept(new DetectorInputs(builder, topics, serdes), rules);
    topology = builder.build();
    driver = new TopologyTestDriver(topology, props, Instant.ofEpochMilli(RoceRates.T0));
    rates =
        driver.createInputTopic(
            topics.rates().name(), new StringSerializer(), serdes.rates().serializer());
    alerts =
        driver.createOutputTopic(
            topics.alerts().name(), new StringDeserializer(), serdes.alert().deserializer());
    active =
        driver.createOutputTopic(
            topics.alertsActive().name(), new StringDeserializer(), serdes.alert().deserializer());
  }

  public void pipe(RoceRates sample) {
    rates.pipeInput(sample.key(), sample.build(), sample.time());
  }

  public List<Alert> readAlerts() {
    return alerts.readValuesToList();
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
