package io.fabricpulse.streams.deadletters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.schemas.SampleRecords;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A detector input decodes its bytes in a processor: bad bytes are a dead letter, in order. */
class DecodeOrDeadLetterTest {

  private static final String REGISTRY = "mock://" + DecodeOrDeadLetterTest.class.getName();
  private static final Instant T0 = Instant.parse("2025-03-10T06:06:02Z");
  private static final String KEY = "demo/sm01";
  private static final String OUT = "test.sm.decoded";

  @TempDir Path stateDir;

  private final FabricTopics topics = FabricTopics.defaults();
  private final DetectorSerdes serdes = DetectorSerdes.forRegistry(REGISTRY);

  @Test
  void badBytesBetweenTwoSweepsAreOneDeadLetterAndBothSweepsGoOn() {
    StreamsBuilder builder = new StreamsBuilder();
    DetectorInputs inputs = new DetectorInputs(builder, topics, serdes, true);
    inputs.stream(topics.sm(), SmSweep.class)
        .to(OUT, Produced.with(Serdes.String(), serdes.value(SmSweep.class)).withName("test-out"));

    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            builder.build(), StreamsSettings.base("decode-test", "127.0.0.1:9", stateDir), T0)) {
      TestInputTopic<String, byte[]> sm =
          driver.createInputTopic(
              topics.sm().name(), new StringSerializer(), new ByteArraySerializer());
      TestOutputTopic<String, SmSweep> out =
          driver.createOutputTopic(
              OUT, new StringDeserializer(), serdes.value(SmSweep.class).deserializer());
      TestOutputTopic<String, DeadLetter> dlq =
          driver.createOutputTopic(
              topics.deadLetters().name(),
              new StringDeserializer(),
              serdes.value(DeadLetter.class).deserializer());

      SmSweep sweep = SampleRecords.smSweep();
      byte[] good = serdes.value(SmSweep.class).serializer().serialize(topics.sm().name(), sweep);
      byte[] garbage = "not avro at all".getBytes(StandardCharsets.UTF_8);
      sm.pipeInput(KEY, good, T0);
      sm.pipeInput(KEY, garbage, T0.plusSeconds(10));
      sm.pipeInput(KEY, good, T0.plusSeconds(20));
      sm.pipeInput(new TestRecord<>(KEY, (byte[]) null, T0.plusSeconds(30)));

      List<TestRecord<String, SmSweep>> decoded = out.readRecordsToList();
      assertEquals(3, decoded.size(), "two sweeps and the tombstone: " + decoded);
      assertEquals(sweep, decoded.get(0).value());
      assertEquals(sweep, decoded.get(1).value());
      assertNull(decoded.get(2).value(), "a tombstone passes as one");

      List<DeadLetter> letters = dlq.readValuesToList();
      assertEquals(1, letters.size(), letters.toString());
      DeadLetter letter = letters.get(0);
      assertEquals(topics.sm().name(), letter.getTopic());
      assertEquals(0, letter.getPartition());
      assertEquals(1L, letter.getOffset());
      assertEquals("decode-" + topics.sm().name().replace('.', '-'), letter.getProcessor());
      assertEquals(ByteBuffer.wrap(garbage), letter.getValue());
      assertEquals(ByteBuffer.wrap(KEY.getBytes(StandardCharsets.UTF_8)), letter.getKey());
      assertEquals(T0.plusSeconds(10), letter.getTime());
      assertTrue(letter.getException().contains("Exception"), letter.getException());
    }
  }

  @Test
  void anUnreachableRegistryFailsTheTaskInsteadOfDeadLetteringTheRecord() {
    Deserializer<SmSweep> registryDown =
        (topic, bytes) -> {
          throw new SchemaRegistryException(503, "schema registry: service unavailable");
        };
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(
            topics.sm().name(),
            org.apache.kafka.streams.kstream.Consumed.with(Serdes.String(), Serdes.ByteArray()))
        .processValues(() -> new DecodeOrDeadLetter<>("decode-test", registryDown))
        .filter((key, value) -> value.isRefused())
        .mapValues(DecodedValue::deadLetter)
        .to(
            topics.deadLetters().name(),
            Produced.with(Serdes.String(), serdes.value(DeadLetter.class)));

    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            builder.build(), StreamsSettings.base("decode-outage", "127.0.0.1:9", stateDir), T0)) {
      TestInputTopic<String, byte[]> sm =
          driver.createInputTopic(
              topics.sm().name(), new StringSerializer(), new ByteArraySerializer());
      TestOutputTopic<String, DeadLetter> dlq =
          driver.createOutputTopic(
              topics.deadLetters().name(),
              new StringDeserializer(),
              serdes.value(DeadLetter.class).deserializer());
      StreamsException failed =
          assertThrows(StreamsException.class, () -> sm.pipeInput(KEY, new byte[] {0, 0, 0, 0, 1}));
      Throwable cause = failed;
      while (cause != null && !(cause instanceof SchemaRegistryException)) {
        cause = cause.getCause();
      }
      assertInstanceOf(SchemaRegistryException.class, cause, "the registry's failure is named");
      assertTrue(dlq.isEmpty(), "an outage is not the record's fault: no dead letter");
    }
  }
}
