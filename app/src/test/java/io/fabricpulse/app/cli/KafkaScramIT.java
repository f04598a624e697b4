package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, security: the embedded broker with a SASL_PLAINTEXT listener (SCRAM-SHA-512) on
 * 127.0.0.1. A Kafka client with the settings README.md documents ("Kafka client settings: TLS and
 * SASL/SCRAM") produces and consumes; the command line reads the same settings from {@code
 * --kafka-config}; a wrong password is refused with one line and exit 2, and the line does not
 * carry the password.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaScramIT {
  private static final String USER = "fabricpulse";
  private static final String PASSWORD = "scram-it-password-6b1f";

  @TempDir static Path tmp;
  private EmbeddedKafkaBroker broker;

  @BeforeAll
  void startBroker() throws Exception {
    broker =
        EmbeddedKafkaBroker.startWithScram(
            tmp.resolve("broker"), Duration.ofMinutes(2), USER, PASSWORD.toCharArray());
  }

  @AfterAll
  void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  /** The documented client settings for SASL/SCRAM, as a properties file would hold them. */
  private Properties scram(String password) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.saslBootstrapServers());
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", EmbeddedKafkaBroker.SCRAM_MECHANISM);
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + USER
            + "\" password=\""
            + password
            + "\";");
    return p;
  }

  private Path kafkaConfig(String name, String password) throws Exception {
    Path file = tmp.resolve(name);
    try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      Properties p = scram(password);
      p.put("schema.registry.url", "mock://scram-it");
      p.store(out, null);
    }
    return file;
  }

  @Test
  void aClientWithTheDocumentedSettingsProducesAndConsumes() throws Exception {
    try (Admin admin = Admin.create(scram(PASSWORD))) {
      admin
          .createTopics(List.of(new NewTopic("scram.check", 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      io.fabricpulse.schemas.topics.TopicLeaders.await(
          admin, List.of("scram.check"), java.time.Duration.ofSeconds(30));
    }
    Properties producer = scram(PASSWORD);
    producer.put("key.serializer", StringSerializer.class.getName());
    producer.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
      p.send(new ProducerRecord<>("scram.check", "k", "over SCRAM")).get(30, TimeUnit.SECONDS);
    }
    Properties consumer = scram(PASSWORD);
    consumer.put("key.deserializer", StringDeserializer.class.getName());
    consumer.put("value.deserializer", StringDeserializer.class.getName());
    consumer.put("group.id", "scram-it");
    consumer.put("auto.offset.reset", "earliest");
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumer)) {
      c.subscribe(List.of("scram.check"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      String value = null;
      while (value == null && System.nanoTime() < deadline) {
        ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(500));
        for (var r : records) {
          value = r.value();
        }
      }
      assertEquals("over SCRAM", value);
    }
  }

  @Test
  void theCommandLineConnectsWithAKafkaConfigFile() throws Exception {
    CliRun run =
        CliRun.of(
            "export",
            "--kafka-config",
            kafkaConfig("good.properties", PASSWORD).toString(),
            "--from",
            "2026-12-01T00:00:00Z",
            "--to",
            "2026-12-01T00:01:00Z");
    assertFalse(run.stderr().contains("refused the credentials"), run.stderr());
    assertEquals(ExitCodes.OK, run.exit(), run.stderr());
  }

  @Test
  void aWrongPasswordIsOneClearLine() throws Exception {
    String wrong = "not-the-password-0e0e";
    for (String[] command :
        List.of(
            new String[] {
              "export", "--from", "2026-12-01T00:00:00Z", "--to", "2026-12-01T00:01:00Z"
            },
            new String[] {"streams", "--state-dir", tmp.resolve("state").toString()})) {
      String[] args = java.util.Arrays.copyOf(command, command.length + 2);
      args[command.length] = "--kafka-config";
      args[command.length + 1] = kafkaConfig("wrong.properties", wrong).toString();
      CliRun run = CliRun.of(args);
      String err = run.stderr();
      assertEquals(ExitCodes.USAGE, run.exit(), String.join(" ", command) + ":\n" + err);
      List<String> lines = err.lines().filter(l -> l.contains("credentials")).toList();
      assertEquals(1, lines.size(), err);
      assertTrue(
          lines.get(0).contains("Kafka refused the credentials: ")
              && lines.get(0).contains(EmbeddedKafkaBroker.SCRAM_MECHANISM),
          lines.get(0));
      assertFalse(err.contains("\tat "), err);
      assertFalse(err.contains(wrong) || run.stdout().contains(wrong), err);
      System.out.println(String.join(" ", command) + " with a wrong password: " + lines.get(0));
    }
  }
}
