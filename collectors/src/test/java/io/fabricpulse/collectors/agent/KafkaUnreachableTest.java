package io.fabricpulse.collectors.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.schemas.health.OutageLog;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent against a Kafka that is not there (a closed port on 127.0.0.1), with the real producer:
 * it warns within seconds, names Kafka, the records waiting and the producer's error, and repeats
 * at a bounded rate. Delivery is observed at driven times, so the test does not wait on the clock
 * beyond the producer's own one-second metadata wait per cycle.
 */
@Tag("chaos")
class KafkaUnreachableTest {
  private static final long S = 1_000_000_000L;

  @Test
  void recordsWaitingWithoutAcknowledgementWarnWithinSecondsAndAtABoundedRate() throws IOException {
    String deadKafka = "127.0.0.1:" + closedPort();
    Properties config = new Properties();
    config.put("bootstrap.servers", deadKafka);
    config.put("schema.registry.url", "mock://kafka-unreachable");
    NodeIdentity node = new NodeIdentity("lab", "gpu001", "boot-1");
    List<OutageLog.Line> lines = new ArrayList<>();
    try (KafkaRecordOutput output =
        new KafkaRecordOutput(
            RecordPublisher.createProducer(config),
            FabricTopics.defaults(),
            100,
            "Kafka at " + deadKafka)) {
      // one collection cycle a second for two minutes of driven time; the real producer fails
      // each send after max.block.ms (1 s) without metadata
      for (long second = 0; second < 120; second++) {
        if (second < 3) {
          output.publish(node, List.of(cycle(second)));
        }
        Optional<OutageLog.Line> line = output.checkDelivery(second * S);
        line.ifPresent(lines::add);
      }
      assertTrue(output.kafkaDown());
    }
    assertFalse(lines.isEmpty(), "an unreachable Kafka must be reported");
    OutageLog.Line first = lines.get(0);
    assertTrue(first.warning());
    assertTrue(
        first.text().startsWith("Kafka at " + deadKafka + " unreachable for 5 s: "), first.text());
    assertTrue(first.text().contains("3 waiting"), first.text());
    assertTrue(first.text().contains("last error: "), first.text());
    // 120 s of outage: at 6 s, then every 30 s
    assertEquals(4, lines.size(), lines.toString());
  }

  private static SpecificRecord cycle(long seq) {
    NodeCounters counters =
        NodeRecords.ofPorts(
            new NodeRecords.Cycle(
                "lab", "gpu001", "boot-1", seq, Instant.parse("2026-01-01T00:00:00Z")),
            RateSource.PORT,
            List.of());
    return counters;
  }

  /** A port nothing listens on: bound, then closed. */
  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }
}
