package io.fabricpulse.app.bench;

import java.time.Duration;
import java.util.Collection;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What this machine can move through Kafka at all: one plain consumer reads every preloaded raw
 * record and one producer writes it unchanged (key, value, timestamp) to a topic of its own, with
 * the collectors' producer settings (lz4, idempotent, acks=all). No decoding, no state, no
 * transactions: the ceiling the streams application is compared with.
 */
final class PassThroughBaseline {

  static final String OUTPUT_TOPIC = "fabricpulse.bench.passthrough";
  static final String GROUP = "fabricpulse-bench-baseline";

  private PassThroughBaseline() {}

  /**
   * Copies {@code records} records from {@code topics}; returns the seconds from the first poll to
   * the last record acknowledged.
   *
   * @throws IllegalStateException when the copy stalls for {@code stall}
   */
  static double run(String bootstrap, Collection<String> topics, long records, Duration stall) {
    Properties consumer = new Properties();
    consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    Properties producer = new Properties();
    producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    producer.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    producer.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    producer.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaConsumer<byte[], byte[]> in =
            new KafkaConsumer<>(
                consumer, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> out =
            new KafkaProducer<>(producer, new ByteArraySerializer(), new ByteArraySerializer())) {
      in.subscribe(topics);
      long copied = 0;
      long t0 = System.nanoTime();
      long lastProgress = t0;
      while (copied < records) {
        ConsumerRecords<byte[], byte[]> batch = in.poll(Duration.ofMillis(200));
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          out.send(new ProducerRecord<>(OUTPUT_TOPIC, null, r.timestamp(), r.key(), r.value()));
        }
        if (!batch.isEmpty()) {
          copied += batch.count();
          lastProgress = System.nanoTime();
          in.commitAsync();
        } else if (System.nanoTime() - lastProgress > stall.toNanos()) {
          throw new IllegalStateException(
              "baseline pass-through stalled after " + copied + " of " + records + " records");
        }
      }
      out.flush();
      in.commitSync();
      return (System.nanoTime() - t0) / 1e9;
    }
  }
}
