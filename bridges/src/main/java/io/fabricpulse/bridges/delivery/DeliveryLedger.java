package io.fabricpulse.bridges.delivery;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * The alert state changes already delivered (or given up on) per robot, kept in the compacted topic
 * {@value BridgeTopics#DELIVERED} (key {@link AlertChange#ledgerKey}, value what happened and
 * when). The bridge writes each entry in the same Kafka transaction as the offsets of the records
 * it settles, and reads the whole topic (read_committed) at start and on every rebalance, so a
 * restarted or new bridge sends nothing the group has already seen.
 */
public final class DeliveryLedger implements AutoCloseable {
  private final Consumer<String, byte[]> reader;
  private final String topic;
  private final Set<String> keys = new HashSet<>();

  /**
   * @param reader a consumer without a group (it is assigned every partition), read_committed
   */
  public DeliveryLedger(Consumer<String, byte[]> reader, String topic) {
    this.reader = reader;
    this.topic = topic;
  }

  /** Reads what was written since the last call (everything on the first), up to the end. */
  public void catchUp(Duration timeout) {
    List<TopicPartition> partitions =
        reader.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition()))
            .toList();
    Set<TopicPartition> added = new HashSet<>(partitions);
    added.removeAll(reader.assignment());
    if (!added.isEmpty()) {
      reader.assign(partitions);
      reader.seekToBeginning(added);
    }
    Map<TopicPartition, Long> end = reader.endOffsets(partitions);
    Instant deadline = Instant.now().plus(timeout);
    while (partitions.stream().anyMatch(p -> reader.position(p) < end.get(p))) {
      if (Instant.now().isAfter(deadline)) {
        throw new TimeoutException(
            "could not read the delivery ledger " + topic + " to its end within " + timeout);
      }
      for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(200))) {
        if (r.value() == null) {
          keys.remove(r.key());
        } else {
          keys.add(r.key());
        }
      }
    }
  }

  public boolean contains(String key) {
    return keys.contains(key);
  }

  /** Records a key this bridge is about to commit. */
  public void add(String key) {
    keys.add(key);
  }

  public int size() {
    return keys.size();
  }

  @Override
  public void close() {
    reader.close();
  }
}
