package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.TestAlerts;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.serde.AvroSerializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code fabricpulse bridge wecom} as an operator runs it: bridge.yaml with the key in a file, a
 * real broker, a local WeCom robot on 127.0.0.1; the alerts arrive, the key is never printed, and
 * SIGTERM (close) ends it with exit 0.
 */
class BridgeCommandIT {
  @Test
  void theWecomBridgeDeliversWhatArrivesOnFabricAlerts(@TempDir Path dir) throws Exception {
    String registry = "mock://bridge-command-it";
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60));
        FakeWeComServer robot = new FakeWeComServer(Clock.systemUTC(), "the-secret-key")) {
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
        TopicBootstrap.ensure(admin, FabricTopics.defaults("", 3), (short) 1);
      }
      Files.writeString(dir.resolve("wecom.key"), "the-secret-key\n");
      Path config = dir.resolve("bridge.yaml");
      Files.writeString(
          config,
          String.join(
              "\n",
              "language: en",
              "robots:",
              "  - name: oncall",
              "    type: wecom",
              "    url: " + robot.url(),
              "    key_file: wecom.key",
              "    routes: [{}]",
              ""));
      Path alive = config.resolveSibling("bridge-alive");
      BridgeCommand.Wecom command = new BridgeCommand.Wecom();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cli = new CommandLine(command);
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(err, true));
      CompletableFuture<Integer> exit =
          CompletableFuture.supplyAsync(
              () ->
                  cli.execute(
                      "--config", config.toString(),
                      "--bootstrap-servers", broker.bootstrapServers(),
                      "--schema-registry-url", registry,
                      "--alive-file", alive.toString()));
      try {
        AvroSerializer<Alert> serializer = new AvroSerializer<>();
        serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
        try (KafkaProducer<String, byte[]> producer =
            new KafkaProducer<>(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
          for (int i = 1; i <= 3; i++) {
            Alert a = TestAlerts.storm("cli-" + i, String.format("cli%03d", i));
            producer.send(
                new ProducerRecord<>(
                    FabricTopics.ALERTS,
                    a.getAlertId(),
                    serializer.serialize(FabricTopics.ALERTS, a)));
          }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (robot.accepted().stream()
                    .map(r -> r.body().toString())
                    .filter(b -> b.contains("ens9f0np0"))
                    .count()
                < 3
            && !exit.isDone()) {
          assertTrue(System.nanoTime() < deadline, "not delivered: " + out + err);
          LockSupport.parkNanos(50_000_000L);
        }
        // the deliveries were committed to Kafka, so the health check's file appears
        while (!Files.exists(alive)) {
          assertTrue(System.nanoTime() < deadline, "no alive file: " + out + err);
          LockSupport.parkNanos(50_000_000L);
        }
      } finally {
        if (command.bridge != null) {
          command.bridge.close();
        }
      }
      assertEquals(0, exit.get(60, TimeUnit.SECONDS), err.toString());
      assertEquals(3, robot.accepted().size());
      assertTrue(
          out.toString().contains("bridge wecom: robot oncall (1 routes, 20 messages a minute)"),
          out.toString());
      assertFalse((out.toString() + err).contains("the-secret-key"));
    }
  }
}
