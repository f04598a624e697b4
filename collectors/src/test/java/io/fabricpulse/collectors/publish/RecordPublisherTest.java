package io.fabricpulse.collectors.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerializer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class RecordPublisherTest {

  static final Instant T0 = Instant.parse("2025-03-01T00:00:00Z");
  static final String TOPIC = "fabric.raw.port-counters";

  /** Real records: the sysfs reader over one simulated node. */
  static ParseResult<PortCounters> samples(FabricSimulator sim, long second) {
    sim.advanceTo(T0.plusSeconds(second));
    return new SysfsPortCounterReader(sim.nodeTree("gpu001"))
        .read(SampleContext.of(sim.identity("gpu001"), sim.now()));
  }

  static FabricSimulator sim() {
    return new FabricSimulator(SimulatorConfig.infiniband("lab", 1, 3, T0));
  }

  static AvroSerializer<SpecificRecord> serializer(String scope) {
    Properties config = new Properties();
    config.setProperty("schema.registry.url", "mock://" + scope);
    AvroSerializer<SpecificRecord> serializer = new AvroSerializer<>();
    serializer.configure(RecordPublisher.serdeConfig(config), false);
    return serializer;
  }

  @Test
  void keyIsClusterNodeTimestampIsEventTimeValueIsConfluentAvro() {
    AvroSerializer<SpecificRecord> values = serializer("publisher-wire");
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(true, null, new StringSerializer(), values);
    FabricSimulator sim = sim();
    NodeIdentity identity = sim.identity("gpu001");

    try (RecordPublisher publisher = new RecordPublisher(producer, TOPIC, 100)) {
      publisher.publishAll(identity, samples(sim, 7));
      publisher.flush();
      assertEquals(9, publisher.sent(), "8 InfiniBand HCAs and the RoCE storage NIC");
      assertEquals(0, publisher.buffered());
    }

    List<ProducerRecord<String, SpecificRecord>> history = producer.history();
    assertEquals(9, history.size());
    ProducerRecord<String, SpecificRecord> first = history.get(0);
    assertEquals(TOPIC, first.topic());
    assertEquals("lab/gpu001", first.key());
    assertEquals(T0.plusSeconds(7).toEpochMilli(), first.timestamp());
    PortCounters sent = (PortCounters) first.value();
    assertEquals("mlx5_0", sent.getDevice());

    byte[] bytes = values.serialize(TOPIC, sent);
    assertEquals(0, bytes[0], "Confluent magic byte");
    AvroDeserializer<PortCounters> reader = new AvroDeserializer<>(PortCounters.class);
    reader.configure(Map.of("schema.registry.url", "mock://publisher-wire"), false);
    assertEquals(sent, reader.deserialize(TOPIC, bytes));
    assertTrue(producer.closed());
  }

  @Test
  void boundedBufferDropsOldestWhileKafkaIsUnreachable() {
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(false, null, new StringSerializer(), serializer("publisher-buffer"));
    FabricSimulator sim = sim();
    NodeIdentity identity = sim.identity("gpu001");
    RecordPublisher publisher = new RecordPublisher(producer, TOPIC, 3);

    producer.sendException = new TimeoutException("Topic not present in metadata after 1000 ms");
    List<PortCounters> records = samples(sim, 1).records(); // seq 0..7
    for (PortCounters record : records.subList(0, 5)) {
      publisher.publish(identity, record);
    }
    assertEquals(3, publisher.buffered());
    assertEquals(2, publisher.dropped());
    assertEquals(0, publisher.sent());

    producer.sendException = null; // Kafka is back
    publisher.flush();

    assertEquals(3, publisher.sent());
    assertEquals(0, publisher.buffered());
    assertEquals(
        List.of(2L, 3L, 4L),
        producer.history().stream().map(r -> ((PortCounters) r.value()).getSeq()).toList(),
        "the two oldest were dropped");
    publisher.close();
  }

  /**
   * A delivery the producer gave up on may have been written (the broker wrote it, the answer was
   * lost): sent again it would be a second record, so it is counted, never resent. A record Kafka
   * will never take is dropped the same way.
   */
  @Test
  void aRecordTheProducerTookIsNeverSentAgain() {
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(false, null, new StringSerializer(), serializer("publisher-retry"));
    FabricSimulator sim = sim();
    NodeIdentity identity = sim.identity("gpu001");
    List<PortCounters> records = samples(sim, 1).records();
    RecordPublisher publisher = new RecordPublisher(producer, TOPIC, 10);

    publisher.publish(identity, records.get(0));
    assertTrue(producer.errorNext(new TimeoutException("Expiring 1 record(s): delivery timeout")));
    assertEquals(0, publisher.buffered(), "not put back: it may be on the topic already");
    assertEquals(1, publisher.rejected());

    publisher.publish(identity, records.get(1));
    assertTrue(producer.errorNext(new RecordTooLargeException("too large")));
    publisher.publish(identity, records.get(2));
    publisher.flush();

    assertEquals(2, publisher.rejected());
    assertEquals(1, publisher.sent());
    assertEquals(0, publisher.failed(), "nothing was refused before the producer took it");
    assertEquals(
        List.of(0L, 1L, 2L),
        producer.history().stream().map(r -> ((PortCounters) r.value()).getSeq()).toList(),
        "each record handed to the producer once");
    publisher.close();
  }

  /**
   * The first record of a topic meets a producer without the topic's metadata (Kafka down, or
   * slower than max.block.ms): it is put back, and goes out when retried, without waiting for the
   * topic's next record, which on fabric.raw.xid may come hours later.
   */
  @Test
  void aRecordPutBackGoesOutOnRetryWithoutANewRecordOfItsTopic() {
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(true, null, new StringSerializer(), serializer("publisher-parked"));
    FabricSimulator sim = sim();
    RecordPublisher publisher = new RecordPublisher(producer, TOPIC, 10);

    producer.sendException = new TimeoutException("Topic not present in metadata after 10 ms");
    publisher.publish(sim.identity("gpu001"), samples(sim, 1).records().get(0));
    assertEquals(1, publisher.buffered());
    assertEquals(1, publisher.failed());

    producer.sendException = null;
    publisher.retryWaiting();
    assertEquals(0, publisher.buffered());
    assertEquals(1, publisher.sent());
    assertEquals(1, producer.history().size());
    publisher.close();
  }

  @Test
  void producerConfigIsIdempotentWithAcksAllAndKeepsSerdeKeysApart() {
    Properties config = new Properties();
    config.setProperty("bootstrap.servers", "127.0.0.1:9092");
    config.setProperty("acks", "1");
    config.setProperty("enable.idempotence", "false");
    config.setProperty("compression.type", "zstd");
    config.setProperty("delivery.timeout.ms", "30000");
    config.setProperty("schema.registry.url", "http://127.0.0.1:8081");
    config.setProperty("basic.auth.user.info", "user:secret");

    Map<String, Object> producer = RecordPublisher.producerConfig(config);
    Map<String, Object> serde = RecordPublisher.serdeConfig(config);

    assertEquals("all", producer.get("acks"));
    assertEquals("true", producer.get("enable.idempotence"));
    assertEquals("zstd", producer.get("compression.type"));
    assertEquals(RecordPublisher.DEFAULT_MAX_BLOCK_MS, producer.get("max.block.ms"));
    assertEquals(Integer.toString(Integer.MAX_VALUE), producer.get("delivery.timeout.ms"));
    assertFalse(producer.containsKey("schema.registry.url"));
    assertFalse(producer.containsKey("basic.auth.user.info"));
    assertEquals(
        Map.of(
            "schema.registry.url", "http://127.0.0.1:8081", "basic.auth.user.info", "user:secret"),
        serde);
    config.setProperty("max.block.ms", "250");
    assertEquals("250", RecordPublisher.producerConfig(config).get("max.block.ms"));
  }

  @Test
  void realProducerWithoutBrokerBuffersInsteadOfFailing() {
    Properties config = new Properties();
    config.setProperty("bootstrap.servers", "127.0.0.1:1"); // nothing listens there
    config.setProperty("max.block.ms", "200");
    config.setProperty("schema.registry.url", "mock://publisher-nobroker");
    FabricSimulator sim = sim();
    ParseResult<PortCounters> samples = samples(sim, 1);

    RecordPublisher publisher = new RecordPublisher(config, TOPIC, 5);
    publisher.publishAll(sim.identity("gpu001"), samples);

    assertEquals(5, publisher.buffered(), "9 records, bound 5");
    assertEquals(4, publisher.dropped());
    assertEquals(1, publisher.failed(), "one metadata timeout ends the round");
    assertEquals(0, publisher.sent());
    publisher.close();
  }
}
