package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code simulate}, the compose file's {@code collect} service, publishes a simulated cluster to a
 * real broker: every node's raw records on the raw topics, keyed cluster/node.
 */
class SimulateCommandIT {

  @Test
  void publishesEveryNodesRecordsToTheRawTopics(@TempDir Path dir) throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60))) {
      FabricTopics topics = FabricTopics.defaults();
      Properties admin = new Properties();
      admin.put("bootstrap.servers", broker.bootstrapServers());
      try (Admin a = Admin.create(admin)) {
        TopicBootstrap.ensure(a, topics, (short) 1);
      }

      CliRun run =
          CliRun.of(
              "simulate",
              "--bootstrap-servers",
              broker.bootstrapServers(),
              "--schema-registry-url",
              "mock://simulate-command-it",
              "--nodes",
              "16",
              "--speed",
              "1000",
              "--duration",
              "10s",
              "--fault-window",
              "60s",
              "--alive-file",
              dir.resolve("collect-alive").toString());

      assertEquals(0, run.exit(), run.stdout() + run.stderr());
      assertTrue(run.stdout().contains("simulating 16 nodes of cluster demo"), run.stdout());
      assertTrue(run.stdout().contains("0 malformed, 0 source failures, 0 lost"), run.stdout());
      // every published second rewrote it: the compose health check's file
      assertTrue(
          java.time.Instant.parse(
                  java.nio.file.Files.readString(dir.resolve("collect-alive")).trim())
              .isAfter(java.time.Instant.now().minusSeconds(120)));
      Set<String> portCounterKeys = new HashSet<>();
      Set<String> rawTopicsWithRecords = new HashSet<>();
      Properties props = new Properties();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      props.put(ConsumerConfig.GROUP_ID_CONFIG, "simulate-command-it");
      props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      try (KafkaConsumer<String, byte[]> consumer =
          new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
        consumer.subscribe(topics.raw().stream().map(TopicSpec::name).toList());
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (portCounterKeys.size() < 16 || !rawTopicsWithRecords.containsAll(required())) {
          assertTrue(
              System.nanoTime() < deadline,
              "keys " + portCounterKeys + ", topics " + rawTopicsWithRecords);
          for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            rawTopicsWithRecords.add(r.topic());
            if (r.topic().equals(FabricTopics.PORT_COUNTERS)) {
              portCounterKeys.add(r.key());
            }
          }
        }
      }
      assertTrue(portCounterKeys.contains("demo/gpu016"), portCounterKeys.toString());
    }
  }

  private static List<String> required() {
    return List.of(
        FabricTopics.PORT_COUNTERS, FabricTopics.PFC, FabricTopics.ECN, FabricTopics.GPU);
  }
}
