package io.fabricpulse.sinks.influx;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's MockConsumer, assigned to partition 0 of the given topics from offset 0, that remembers
 * every offset committed (also readable after the sink closed it); its end offsets follow the
 * appended records, as a broker's do.
 */
final class RecordingConsumer extends MockConsumer<String, byte[]> {

  private final Map<TopicPartition, Long> commits = new HashMap<>();
  private final Map<TopicPartition, OffsetAndMetadata> commitsWithMetadata = new HashMap<>();
  private final Map<TopicPartition, Long> nextOffset = new HashMap<>();

  RecordingConsumer(String... topics) {
    super("earliest");
    List<TopicPartition> partitions =
        java.util.Arrays.stream(topics).map(t -> new TopicPartition(t, 0)).toList();
    assign(partitions);
    Map<TopicPartition, Long> beginning = new HashMap<>();
    partitions.forEach(p -> beginning.put(p, 0L));
    updateBeginningOffsets(beginning);
    updateEndOffsets(beginning);
  }

  /** Appends a record to partition 0 of {@code topic}; returns its offset. */
  synchronized long append(String topic, String key, byte[] value) {
    TopicPartition partition = new TopicPartition(topic, 0);
    long offset = nextOffset.merge(partition, 1L, Long::sum) - 1;
    addRecord(new ConsumerRecord<>(topic, 0, offset, key, value));
    updateEndOffsets(Map.of(partition, offset + 1));
    return offset;
  }

  @Override
  public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
    super.commitSync(offsets);
    offsets.forEach((partition, offset) -> commits.put(partition, offset.offset()));
    commitsWithMetadata.putAll(offsets);
  }

  /** Last commit (offset and metadata) of partition 0 of {@code topic}, or null. */
  synchronized OffsetAndMetadata lastCommit(String topic) {
    return commitsWithMetadata.get(new TopicPartition(topic, 0));
  }

  /**
   * Starts like a restarted consumer of the group: {@code commit} stored and the position at it.
   */
  synchronized void resumeFrom(String topic, OffsetAndMetadata commit) {
    TopicPartition partition = new TopicPartition(topic, 0);
    commitSync(Map.of(partition, commit));
    seek(partition, commit.offset());
  }

  /** Last committed offset of partition 0 of {@code topic}, or null if never committed. */
  synchronized Long committedOffset(String topic) {
    return commits.get(new TopicPartition(topic, 0));
  }
}
