package io.fabricpulse.app.bench;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts the committed records of some topics by reading them once, undecoded, with read_committed:
 * end offsets alone overcount a transactional topic (each commit adds a marker, and aborted records
 * keep their offsets).
 */
final class CommittedRecords {

  private CommittedRecords() {}

  static long count(String bootstrap, Collection<String> topics) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          topics.stream()
              .flatMap(t -> consumer.partitionsFor(t).stream())
              .map((PartitionInfo i) -> new TopicPartition(i.topic(), i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long count = 0;
      while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        count += consumer.poll(Duration.ofMillis(200)).count();
      }
      return count;
    }
  }
}
