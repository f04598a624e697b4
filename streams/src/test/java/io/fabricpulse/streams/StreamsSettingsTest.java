package io.fabricpulse.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.LogAndSkipOnInvalidTimestamp;
import org.junit.jupiter.api.Test;

class StreamsSettingsTest {

  @Test
  void baseEnforcesNamingExactlyOnceAcksAllAndRecordTime() {
    Properties props =
        StreamsSettings.base("fabricpulse-rates", "127.0.0.1:9092", Path.of("/var/lib/fp"));
    assertEquals("fabricpulse-rates", props.get("application.id"));
    assertEquals("127.0.0.1:9092", props.get("bootstrap.servers"));
    assertEquals("true", props.get("ensure.explicit.internal.resource.naming"));
    assertEquals("exactly_once_v2", props.get("processing.guarantee"));
    assertEquals("all", props.get("producer.acks"));
    assertEquals(
        LogAndSkipOnInvalidTimestamp.class.getName(), props.get("default.timestamp.extractor"));
    assertEquals("/var/lib/fp", props.get("state.dir"));
    // Kafka accepts the whole set
    StreamsConfig config = new StreamsConfig(props);
    assertEquals(
        Boolean.TRUE,
        config.getBoolean(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG));
  }

  @Test
  void atLeastOnceForSingleBrokerSetups() {
    Properties props =
        StreamsSettings.base(
            "demo", "127.0.0.1:9092", Path.of("/tmp/x"), StreamsSettings.Guarantee.AT_LEAST_ONCE);
    assertEquals("at_least_once", props.get("processing.guarantee"));
  }
}
