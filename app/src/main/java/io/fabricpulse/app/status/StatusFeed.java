package io.fabricpulse.app.status;

import io.fabricpulse.schemas.topics.FabricTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Keeps a {@link StatusBoard} up to date from Kafka: a consumer without a group (nothing is
 * committed, every page instance reads everything) assigned every partition of the active-alert,
 * alert, rates and NCCL transport topics, from the beginning for the compacted active alerts and
 * the transport verdicts, from the end for the rest (the page shows what happens from now on). A
 * record that cannot be decoded is counted and skipped.
 */
public final class StatusFeed implements Runnable, AutoCloseable {

  private final FabricTopics topics;
  private final KafkaConsumer<String, byte[]> consumer;
  private final StatusRecords records;
  private final AtomicBoolean stop = new AtomicBoolean();
  private volatile long read;
  private volatile String stoppedBy;

  /**
   * @param clientConfig Kafka client settings with {@code bootstrap.servers} and the serde's {@code
   *     schema.registry.url}
   */
  public StatusFeed(StatusBoard board, FabricTopics topics, Properties clientConfig) {
    this.topics = topics;
    Map<String, Object> serde = new HashMap<>();
    clientConfig.forEach((k, v) -> serde.put(k.toString(), v));
    this.records = new StatusRecords(board, topics, serde);
    Properties props = new Properties();
    clientConfig.forEach(
        (k, v) -> {
          String key = k.toString();
          if (!key.startsWith("schema.registry.") && !key.contains(".avro.")) {
            props.put(key, v);
          }
        });
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "fabricpulse-status-page");
    this.consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
  }

  @Override
  public void run() {
    try {
      List<TopicPartition> fromStart =
          partitions(topics.alertsActive().name(), topics.ncclTransport().name());
      List<TopicPartition> fromEnd = partitions(topics.alerts().name(), topics.rates().name());
      List<TopicPartition> all = new ArrayList<>(fromStart);
      all.addAll(fromEnd);
      consumer.assign(all);
      consumer.seekToBeginning(fromStart);
      consumer.seekToEnd(fromEnd);
      while (!stop.get()) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          records.apply(r.topic(), r.key(), r.value());
          read++;
        }
      }
    } catch (WakeupException e) {
      if (!stop.get()) {
        stoppedBy = e.getClass().getSimpleName();
        throw e;
      }
    } catch (RuntimeException | Error e) {
      stoppedBy = e.getClass().getSimpleName();
      throw e;
    } finally {
      consumer.close();
    }
  }

  /**
   * The feed's own health: reading (records read, records skipped as undecodable), or stopped by an
   * error (the page then shows stale tables, and says so).
   */
  public HealthCheck health() {
    return new HealthCheck(
        "status feed",
        () -> {
          String counts = read + " records read, " + records.skipped() + " undecodable skipped";
          String error = stoppedBy;
          return error == null
              ? HealthCheck.Result.ok(counts)
              : HealthCheck.Result.failing("stopped by " + error + " after " + counts);
        });
  }

  private List<TopicPartition> partitions(String... names) {
    List<TopicPartition> out = new ArrayList<>();
    for (String name : names) {
      List<PartitionInfo> infos = consumer.partitionsFor(name);
      if (infos != null) {
        infos.forEach(p -> out.add(new TopicPartition(p.topic(), p.partition())));
      }
    }
    return out;
  }

  @Override
  public void close() {
    stop.set(true);
    consumer.wakeup();
  }
}
