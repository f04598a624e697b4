package io.fabricpulse.streams.rates;

import static io.fabricpulse.streams.rates.RateSamples.BOOT_A;
import static io.fabricpulse.streams.rates.RateSamples.NODE_KEY;
import static io.fabricpulse.streams.rates.RateSamples.pma;
import static io.fabricpulse.streams.rates.RateSamples.port;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.ValueSerdes;
import java.net.ConnectException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A registry outage is not the record's fault: retry (fail the task), never dead-letter. */
class RegistryOutageTest {

  private static final String REGISTRY = "mock://" + RegistryOutageTest.class.getName();
  private static final Instant T0 = Instant.parse("2025-01-23T17:07:40Z");

  @TempDir Path stateDir;

  /** Real serdes, except that reading port counters finds the registry unreachable. */
  private static final ValueSerdes REGISTRY_DOWN_FOR_READS =
      new ValueSerdes() {
        private final ValueSerdes real = ValueSerdes.registry(REGISTRY);

        @Override
        public <T extends SpecificRecord> Serde<T> forValues(Class<T> type) {
          return real.forValues(type);
        }

        @Override
        public Deserializer<SpecificRecord> oneOf(List<Class<? extends SpecificRecord>> types) {
          if (!types.contains(PortCounters.class)) {
            return real.oneOf(types);
          }
          return (topic, bytes) -> {
            throw new SerializationException(
                "topic " + topic + ": cannot decode PortCounters",
                new SchemaRegistryException(
                    "GET http://127.0.0.1:8081/schemas/ids/1 failed",
                    new ConnectException("Connection refused")));
          };
        }
      };

  @Test
  void unreachableRegistryFailsTheTaskInsteadOfDeadLetteringGoodRecords() {
    FabricTopics topics = FabricTopics.defaults();
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            RateTopology.build(topics, REGISTRY_DOWN_FOR_READS, RateConfig.defaults()),
            StreamsSettings.base("fabricpulse-rates-outage", "127.0.0.1:9", stateDir),
            T0)) {
      var in =
          driver.createInputTopic(
              topics.portCounters().name(),
              new StringSerializer(),
              ValueSerdes.registry(REGISTRY).forValues(PortCounters.class).serializer());
      TestOutputTopic<String, DeadLetter> dlq =
          driver.createOutputTopic(
              topics.deadLetters().name(),
              new StringDeserializer(),
              ValueSerdes.registry(REGISTRY).forValues(DeadLetter.class).deserializer());

      assertThrows(
          StreamsException.class,
          () -> in.pipeInput(NODE_KEY, port(BOOT_A, 0, T0, pma("symbol_error", 16, 0)), T0));
      assertTrue(dlq.isEmpty());
    }
  }

  @Test
  void onlyTransportAndServerSideRegistryErrorsCountAsAnOutage() {
    assertTrue(
        RateProcessor.registryUnavailable(
            new SerializationException(
                "x", new SchemaRegistryException("down", new ConnectException("refused")))));
    assertTrue(
        RateProcessor.registryUnavailable(
            new SerializationException("x", new SchemaRegistryException(50001, "store error"))));
    assertTrue(
        RateProcessor.registryUnavailable(
            new SerializationException("x", new SchemaRegistryException(503, "unavailable"))));
    assertFalse(
        RateProcessor.registryUnavailable(
            new SerializationException("x", new SchemaRegistryException(40403, "not found"))));
    assertFalse(RateProcessor.registryUnavailable(new SerializationException("bad magic byte")));
  }
}
