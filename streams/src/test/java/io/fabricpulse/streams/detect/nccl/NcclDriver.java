package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rules.RuleSet;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
import org.apache.kafka.streams.state.KeyValueStore;

/** The NCCL detector topology, built as production builds it, under a TopologyTestDriver. */
final class NcclDriver implements AutoCloseable {

  static final String APP_ID = "nccl-test";

  /** Every store of the detector, for restart tests. */
  static final List<String> STORES =
      List.of(
          NcclTransportDetector.VERDICT_STORE,
          NcclTransportDetector.NODE_PORTS_STORE,
          NcclTransportDetector.PORT_STATE_STORE,
          NcclTransportDetector.TRACKER_STORE,
          NcclTransportDetector.JOB_INCIDENT_STORE);

  final FabricTopics topics = FabricTopics.defaults();
  final DetectorSerdes serdes;
  final Topology topology;
  final TopologyTestDriver driver;
  final TestInputTopic<String, NcclLog> nccl;
  final TestInputTopic<String, CounterRates> rates;
  final TestOutputTopic<String, NcclTransport> transports;
  final TestOutputTopic<String, Alert> alerts;
  final TestOutputTopic<String, Alert> active;

  NcclDriver(RuleSet rules, Path stateDir, String registryScope) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    serdes = DetectorSerdes.forRegistry("mock://" + registryScope);
    StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
    NcclTransportDetector.addTo(new DetectorInputs(builder, topics, serdes), rules);
    topology = builder.build();
    driver = new TopologyTestDriver(topology, props, Instant.ofEpochMilli(NcclLines.T0));
    nccl =
        driver.createInputTopic(
            topics.nccl().name(), new StringSerializer(), serdes.value(NcclLog.class).serializer());
    rates =
        driver.createInputTopic(
            topics.rates().name(), new StringSerializer(), serdes.rates().serializer());
    transports =
        driver.createOutputTopic(
            topics.ncclTransport().name(),
            new StringDeserializer(),
            serdes.value(NcclTransport.class).deserializer());
    alerts =
        driver.createOutputTopic(
            topics.alerts().name(), new StringDeserializer(), serdes.alert().deserializer());
    active =
        driver.createOutputTopic(
            topics.alertsActive().name(), new StringDeserializer(), serdes.alert().deserializer());
  }

  void pipe(NcclLines lines, NcclLog... logs) {
    for (NcclLog log : logs) {
      nccl.pipeInput(lines.key(), log, log.getTime());
    }
  }

  void pipe(CounterRates port) {
    rates.pipeInput(
        PortRates.key(port.getNode(), port.getDevice()), port, port.getTime().toEpochMilli());
  }

  /** Advances stream time with a tombstone on fabric.raw.nccl (the detector skips it). */
  void tick(int second) {
    nccl.pipeInput("c1/clock", null, NcclLines.T0 + second * 1000L);
  }

  List<Alert> readAlerts() {
    return alerts.readValuesToList();
  }

  /** The raw changelog records of every store, as a restore would replay them. */
  List<List<KeyValue<String, byte[]>>> changelogs() {
    List<List<KeyValue<String, byte[]>>> all = new ArrayList<>();
    for (String store : STORES) {
      all.add(
          driver
              .createOutputTopic(
                  APP_ID + "-" + store + "-changelog",
                  new StringDeserializer(),
                  new ByteArrayDeserializer())
              .readKeyValuesToList());
    }
    return all;
  }

  /** Replays changelog bytes into the stores, as Kafka Streams restores state after a restart. */
  void restore(List<List<KeyValue<String, byte[]>>> changelogs) {
    for (int i = 0; i < STORES.size(); i++) {
      KeyValueStore<String, Object> store = driver.getKeyValueStore(STORES.get(i));
      var deserializer = storeValueDeserializer(STORES.get(i));
      for (KeyValue<String, byte[]> r : changelogs.get(i)) {
        if (r.value == null) {
          store.delete(r.key);
        } else {
          store.put(r.key, deserializer.deserialize("restore", r.value));
        }
      }
    }
  }

  private org.apache.kafka.common.serialization.Deserializer<?> storeValueDeserializer(
      String store) {
    return switch (store) {
      case NcclTransportDetector.VERDICT_STORE -> VerdictSerde.serde().deserializer();
      case NcclTransportDetector.NODE_PORTS_STORE -> NodePorts.serde().deserializer();
      case NcclTransportDetector.PORT_STATE_STORE -> new StringDeserializer();
      case NcclTransportDetector.JOB_INCIDENT_STORE -> serdes.alert().deserializer();
      default -> new io.fabricpulse.streams.alerts.TrackerStateSerde().deserializer();
    };
  }

  @Override
  public void close() {
    driver.close();
  }
}
