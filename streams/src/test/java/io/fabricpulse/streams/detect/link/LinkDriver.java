package io.fabricpulse.streams.detect.link;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.PortRates;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
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

/** The link detector topology, built as production builds it, under a TopologyTestDriver. */
final class LinkDriver implements AutoCloseable {

  static final String APP_ID = "link-test";

  final FabricTopics topics = FabricTopics.defaults();
  final DetectorSerdes serdes;
  final Topology topology;
  final TopologyTestDriver driver;
  final TestInputTopic<String, CounterRates> rates;
  final TestOutputTopic<String, Alert> alerts;
  final TestOutputTopic<String, Alert> active;

  LinkDriver(RuleSet rules, Path stateDir, String registryScope) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    serdes = DetectorSerdes.forRegistry("mock://" + registryScope);
    StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
    LinkHealthDetector.addTo(new DetectorInputs(builder, topics, serdes), rules);
    topology = builder.build();
    driver = new TopologyTestDriver(topology, props, Instant.ofEpochMilli(PortRates.T0));
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

  void pipe(PortRates sample) {
    rates.pipeInput(sample.key(), sample.build(), sample.time());
  }

  void pipe(String key, CounterRates value) {
    rates.pipeInput(key, value, value.getTime().toEpochMilli());
  }

  List<Alert> readAlerts() {
    return alerts.readValuesToList();
  }

  List<TestRecord<String, Alert>> readAlertRecords() {
    return alerts.readRecordsToList();
  }

  <V> List<KeyValue<String, V>> changelog(String store, Deserializer<V> values) {
    return driver
        .createOutputTopic(APP_ID + "-" + store + "-changelog", new StringDeserializer(), values)
        .readKeyValuesToList();
  }

  /** Replays changelog records into a store, as Kafka Streams restores state after a restart. */
  <V> void restore(String store, List<KeyValue<String, V>> records) {
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
