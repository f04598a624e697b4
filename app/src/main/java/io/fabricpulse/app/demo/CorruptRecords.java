package io.fabricpulse.app.demo;

import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Bad records written to the pipeline's input topics through the real broker, beside the good ones
 * ({@code demo --corrupt-rate} and the fault tests): random bytes (no wire-format magic byte), an
 * unknown schema id, truncated Avro (a good record of the topic cut short) and a record of another
 * type (a good record of another topic). Remembers where each landed (topic, partition, offset), so
 * the test can find its dead letter.
 */
final class CorruptRecords implements AutoCloseable {
  enum Kind {
    RANDOM_BYTES,
    UNKNOWN_SCHEMA_ID,
    TRUNCATED_AVRO,
    WRONG_RECORD_TYPE
  }

  /** Where one bad record landed. */
  record Landed(String topic, int partition, long offset) {}

  private static final Duration READ_DEADLINE = Duration.ofSeconds(120);

  private final String bootstrap;
  private final KafkaProducer<String, byte[]> producer;
  private final List<String> topics;
  private final Map<String, byte[]> good = new HashMap<>();
  private final Random random = new Random(12);
  private final Map<Landed, Kind> landed = new ConcurrentHashMap<>();
  private final List<Exception> failures = new ArrayList<>();
  private long sent;

  CorruptRecords(String bootstrap, List<String> topics) {
    Properties p = new Properties();
    this.bootstrap = bootstrap;
    p.put("bootstrap.servers", bootstrap);
    p.put("enable.idempotence", "true");
    p.put("acks", "all");
    this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    this.topics = List.copyOf(topics);
  }

  /** Takes the first record of every topic that has one as the good record to derive from. */
  void takeGoodRecords() {
    for (String topic : topics) {
      byte[] value = firstValue(topic);
      if (value != null) {
        good.put(topic, value);
      }
    }
  }

  /**
   * What fabric.dlq holds about the bad records written; {@code twice}: each bad record with more
   * than one dead letter, with the processors that wrote them.
   */
  record DeadLetterCheck(
      long deadLetters, long ofBadRecords, Set<Landed> missing, Map<Landed, List<String>> twice) {}

  /**
   * Reads {@code dlqTopic} (committed records) and matches each dead letter's topic, partition and
   * offset with the bad records written; call after the pipeline drained.
   */
  DeadLetterCheck check(String dlqTopic, String registry) {
    AvroDeserializer<DeadLetter> decoder = new AvroDeserializer<>(DeadLetter.class);
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
    Set<Landed> found = new HashSet<>();
    Map<Landed, List<String>> by = new HashMap<>();
    long deadLetters = 0;
    long ofBad = 0;
    for (byte[] value : readAll(dlqTopic)) {
      DeadLetter d = decoder.deserialize(dlqTopic, value);
      deadLetters++;
      if (d.getTopic() == null || d.getPartition() == null || d.getOffset() == null) {
        continue;
      }
      Landed at = new Landed(d.getTopic(), d.getPartition(), d.getOffset());
      if (landed.containsKey(at) && d.getReason() != null && !d.getReason().isEmpty()) {
        ofBad++;
        found.add(at);
        by.computeIfAbsent(at, k -> new ArrayList<>())
            .add(d.getProcessor() + " (" + landed.get(at) + ")");
      }
    }
    Set<Landed> missing = new HashSet<>(landed.keySet());
    missing.removeAll(found);
    by.values().removeIf(processors -> processors.size() < 2);
    return new DeadLetterCheck(deadLetters, ofBad, missing, by);
  }

  private byte[] firstValue(String topic) {
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = partitions(consumer, topic);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() != null) {
            return r.value();
          }
        }
      }
      return null;
    }
  }

  private List<byte[]> readAll(String topic) {
    List<byte[]> values = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = consumer()) {
      List<TopicPartition> partitions = partitions(consumer, topic);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("timed out reading " + topic);
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() != null) {
            values.add(r.value());
          }
        }
      }
    }
    return values;
  }

  private KafkaConsumer<String, byte[]> consumer() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", "read_committed");
    p.put("enable.auto.commit", "false");
    return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
  }

  private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    return partitions;
  }

  /** Writes {@code count} bad records, cycling over the topics and the kinds. */
  void write(int count, String key, long timestampMs) {
    for (int i = 0; i < count; i++) {
      String topic = topics.get((int) (sent % topics.size()));
      Kind kind = Kind.values()[(int) ((sent / topics.size()) % Kind.values().length)];
      byte[] value = value(kind, topic);
      sent++;
      producer.send(
          new ProducerRecord<>(topic, null, timestampMs, key, value),
          (metadata, error) -> {
            if (error != null) {
              synchronized (failures) {
                failures.add(error);
              }
            } else {
              landed.put(
                  new Landed(metadata.topic(), metadata.partition(), metadata.offset()), kind);
            }
          });
    }
  }

  private byte[] value(Kind kind, String topic) {
    byte[] template = good.get(topic);
    if (template == null && kind != Kind.RANDOM_BYTES) {
      kind = Kind.UNKNOWN_SCHEMA_ID;
      template = new byte[] {0, 0, 0, 0, 1, 2, 4, 6, 8};
    }
    switch (kind) {
      case RANDOM_BYTES -> {
        byte[] bytes = new byte[1 + random.nextInt(64)];
        random.nextBytes(bytes);
        bytes[0] = (byte) (1 + random.nextInt(100)); // not the magic byte 0
        return bytes;
      }
      case UNKNOWN_SCHEMA_ID -> {
        byte[] bytes = template.clone();
        ByteBuffer.wrap(bytes).put(0, (byte) 0).putInt(1, 987_654 + random.nextInt(1000));
        return bytes;
      }
      case TRUNCATED_AVRO -> {
        return Arrays.copyOf(template, 5 + (template.length - 5) / 3);
      }
      case WRONG_RECORD_TYPE -> {
        for (Map.Entry<String, byte[]> other : good.entrySet()) {
          if (!other.getKey().equals(topic) && !sameType(other.getKey(), topic)) {
            return other.getValue();
          }
        }
        return Arrays.copyOf(template, 5 + (template.length - 5) / 3);
      }
    }
    throw new AssertionError(kind);
  }

  /** The four counter topics share the record type NodeCounters. */
  private static boolean sameType(String a, String b) {
    List<String> counters =
        List.of(
            "fabric.raw.port-counters",
            "fabric.raw.pfc",
            "fabric.raw.ecn",
            "fabric.raw.switch-counters");
    return counters.contains(a) && counters.contains(b);
  }

  void flush() {
    producer.flush();
  }

  long sent() {
    return sent;
  }

  int topicCount() {
    return topics.size();
  }

  Map<Landed, Kind> landed() {
    return landed;
  }

  List<Exception> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  @Override
  public void close() {
    producer.close();
  }
}
