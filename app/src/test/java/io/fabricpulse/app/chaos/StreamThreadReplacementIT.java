package io.fabricpulse.app.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.run.StreamsRunner;
import io.fabricpulse.app.run.ThreadReplacementPolicy;
import io.fabricpulse.streams.StreamsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * StreamsRunner's answer to a failing stream thread, on the real broker with exactly-once v2: a
 * thread that fails once is replaced and the record it failed on is processed once after all; a
 * record that fails every time stops the client after the policy's bound instead of looping.
 */
@Tag("chaos")
class StreamThreadReplacementIT {
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  @TempDir static Path dir;
  static EmbeddedKafkaBroker broker;

  /** Attempts per value: how often the processor was handed each one. */
  static final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

  @BeforeAll
  static void startBroker() throws Exception {
    broker = EmbeddedKafkaBroker.start(dir.resolve("kafka"), Duration.ofSeconds(90));
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aThreadThatFailsOnceIsReplacedAndItsRecordProcessedExactlyOnce() throws Exception {
    String in = "replace-in";
    String out = "replace-out";
    createTopics(in, out);
    try (StreamsRunner runner =
        new StreamsRunner(
            topology(in, out, "flaky"),
            settings("replace-once"),
            new ThreadReplacementPolicy(3, Duration.ofMinutes(10), System::nanoTime))) {
      runner.start(DEADLINE);
      produce(in, "a", "flaky", "b");
      List<String> seen = readUntil(out, 3);
      assertEquals(List.of("a", "flaky", "b"), seen, "every record once, in order");
      assertEquals(1, runner.replacedThreads());
      assertEquals(2, attempts.get("flaky").get(), "failed once, processed by the new thread");
      assertEquals(KafkaStreams.State.RUNNING, runner.streams().state());
      assertEquals(null, runner.failure());
    }
  }

  @Test
  void aRecordThatFailsEveryTimeStopsTheClientAfterTheBound() throws Exception {
    String in = "poison-in";
    String out = "poison-out";
    createTopics(in, out);
    try (StreamsRunner runner =
        new StreamsRunner(
            topology(in, out, "poison"),
            settings("replace-poison"),
            new ThreadReplacementPolicy(2, Duration.ofMinutes(10), System::nanoTime))) {
      runner.start(DEADLINE);
      produce(in, "poison");
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (runner.streams().state() != KafkaStreams.State.ERROR && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(100); // polling the client's state with a deadline
      }
      assertEquals(KafkaStreams.State.ERROR, runner.streams().state());
      assertEquals(2, runner.replacedThreads());
      assertEquals(3, attempts.get("poison").get(), "the first thread and its two replacements");
      assertNotNull(runner.failure());
    }
  }

  /** Passes values through; throws on {@code failing}: once for "flaky", always for "poison". */
  private static org.apache.kafka.streams.Topology topology(String in, String out, String failing) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(in, Consumed.with(Serdes.String(), Serdes.String()).withName("source-" + in))
        .mapValues(
            value -> {
              int attempt =
                  attempts.computeIfAbsent(value, v -> new AtomicInteger()).incrementAndGet();
              if (value.equals(failing) && (failing.equals("poison") || attempt == 1)) {
                throw new IllegalStateException("a bug hit by " + value + ", attempt " + attempt);
              }
              return value;
            },
            Named.as("maybe-fail"))
        .to(out, Produced.with(Serdes.String(), Serdes.String()).withName("sink-" + out));
    return builder.build();
  }

  private static Properties settings(String applicationId) {
    Properties settings =
        StreamsSettings.base(
            applicationId,
            broker.bootstrapServers(),
            dir.resolve("state-" + applicationId),
            StreamsSettings.Guarantee.EXACTLY_ONCE_V2);
    settings.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    settings.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    settings.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // A failed thread's consumer does not leave the group, so its replacement's rebalance waits for
    // the session timeout (45 s by default); the broker's minimum keeps the test short.
    settings.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
    settings.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
    return settings;
  }

  private static void createTopics(String... names) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      List<NewTopic> topics = new ArrayList<>();
      for (String name : names) {
        topics.add(new NewTopic(name, 1, (short) 1));
      }
      admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
      io.fabricpulse.schemas.topics.TopicLeaders.await(
          admin, List.of(names), java.time.Duration.ofSeconds(30));
    }
  }

  private static void produce(String topic, String... values) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (String value : values) {
        producer.send(new ProducerRecord<>(topic, "k", value));
      }
      producer.flush();
    }
  }

  /** What the application committed to {@code topic}, once {@code count} records are there. */
  private static List<String> readUntil(String topic, int count) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      org.apache.kafka.common.TopicPartition tp =
          new org.apache.kafka.common.TopicPartition(topic, 0);
      consumer.assign(Set.of(tp));
      consumer.seekToBeginning(Set.of(tp));
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (values.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
      // anything beyond count would be a duplicate: read what else is committed
      for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(2))) {
        values.add(r.value());
      }
    }
    assertTrue(values.size() >= count, "only " + values + " within " + DEADLINE);
    return values;
  }
}
