package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.alerts.TrackerState;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.PfcRates;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
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

/** The PFC detector topology, built as production builds it, under a TopologyTestDriver. */
final class PfcDriver implements AutoCloseable {

  static final String APP_ID = "pfc-test";

  final FabricTopics topics = FabricTopics.defaults();
  final DetectorSerdes serdes;
  final Topology topology;
  final TopologyTestDriver driver;
  final TestInputTopic<String, CounterRates> rates;
  final TestOutputTopic<String, Alert> alerts;
  final TestOutputTopic<String, Alert> active;

  /** The PFC detectors alone. */
  PfcDriver(RuleSet rules, Path stateDir, String registryScope) {
    this(rules, stateDir, registryScope, false);
  }

  /** The whole pipeline topology (every detector and the rate stage), as production builds it. */
  static PfcDriver inFabricTopology(RuleSet rules, Path stateDir, String registryScope) {
    return new PfcDriver(rules, stateDir, registryScope, true);
  }

  private PfcDriver(RuleSet rules, Path stateDir, String registryScope, boolean wholePipeline) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    String registry = "mock://" + registryScope;
    serdes = DetectorSerdes.forRegistry(registry);
    if (wholePipeline) {
      topology = FabricTopology.build(topics, registry, rules, RateConfig.defaults(), props);
    } else {
      StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
      PauseStormDetector.addTo(new DetectorInputs(builder, topics, serdes), rules);
      topology = builder.build();
    }
    driver = new TopologyTestDriver(topology, props, Instant.ofEpochMilli(PfcRates.T0));
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

  void pipe(PfcRates sample) {
    rates.pipeInput(sample.key(), sample.build(), sample.time());
  }

  /**
   * A sysfs port sample in fabric.rates (which the PFC detectors must not take as PFC progress).
   */
  void pipe(io.fabricpulse.streams.testing.PortRates sample) {
    rates.pipeInput(sample.key(), sample.build(), sample.time());
  }

  List<Alert> readAlerts() {
    return alerts.readValuesToList();
  }

  List<TestRecord<String, Alert>> readAlertRecords() {
    return alerts.readRecordsToList();
  }

  /** The tracker store's changelog records, as a restore would replay them. */
  List<KeyValue<String, TrackerState>> trackerChangelog() {
    return changelog(PauseStormDetector.TRACKER_STORE, new TrackerStateSerde().deserializer());
  }

  /** Every PFC store's changelog, by store name, as a restart would restore them. */
  Map<String, List<KeyValue<String, Object>>> pfcChangelogs() {
    Map<String, List<KeyValue<String, Object>>> out = new LinkedHashMap<>();
    Deserializer<TrackerState> trackers = new TrackerStateSerde().deserializer();
    Deserializer<Alert> alerts = serdes.alert().deserializer();
    out.put(
        PauseStormDetector.TRACKER_STORE,
        untyped(changelog(PauseStormDetector.TRACKER_STORE, trackers)));
    out.put(
        PauseStormDetector.HELD_STORMS_STORE,
        untyped(changelog(PauseStormDetector.HELD_STORMS_STORE, alerts)));
    out.put(
        PauseStormDetector.PROPAGATION_STORMS_STORE,
        untyped(changelog(PauseStormDetector.PROPAGATION_STORMS_STORE, alerts)));
    out.put(
        PauseStormDetector.PROPAGATION_TRACKER_STORE,
        untyped(changelog(PauseStormDetector.PROPAGATION_TRACKER_STORE, trackers)));
    out.put(
        PauseStormDetector.PROPAGATION_VICTIMS_STORE,
        untyped(changelog(PauseStormDetector.PROPAGATION_VICTIMS_STORE, strings())));
    out.put(
        PauseStormDetector.PROPAGATION_PENDING_STORE,
        untyped(changelog(PauseStormDetector.PROPAGATION_PENDING_STORE, alerts)));
    out.put(
        PauseStormDetector.PROPAGATION_PROGRESS_STORE,
        untyped(changelog(PauseStormDetector.PROPAGATION_PROGRESS_STORE, longs())));
    return out;
  }

  /** Restores every store of {@link #pfcChangelogs()}. */
  void restoreAll(Map<String, List<KeyValue<String, Object>>> changelogs) {
    changelogs.forEach(this::restore);
  }

  private static <V> List<KeyValue<String, Object>> untyped(List<KeyValue<String, V>> records) {
    return records.stream().map(r -> KeyValue.<String, Object>pair(r.key, r.value)).toList();
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

  Deserializer<Long> longs() {
    return Serdes.Long().deserializer();
  }

  Deserializer<String> strings() {
    return Serdes.String().deserializer();
  }

  @Override
  public void close() {
    driver.close();
  }
}
