package io.fabricpulse.app.query;

import io.fabricpulse.app.replay.HistoryRecord;
import io.fabricpulse.app.replay.NodeFilter;
import io.fabricpulse.app.replay.TopicHistory;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Runs a {@link WhereClause} over a topic's rows. Without {@code follow}: what the topic holds from
 * {@code from} (or its beginning) to its end now, in event-time order; with it: records as they
 * arrive (from {@code from}, or from the end), until the limit or {@code stopped}. No consumer
 * group: nothing is committed.
 */
public final class TopicQuery {
  private static final Instant FAR_FUTURE = Instant.parse("9999-01-01T00:00:00Z");

  private final Properties client;
  private final TopicSpec topic;
  private final QueryVariables variables;
  private final WhereClause where;

  public TopicQuery(
      Properties client, TopicSpec topic, QueryVariables variables, WhereClause where) {
    this.client = client;
    this.topic = topic;
    this.variables = variables;
    this.where = where;
  }

  /** How many rows matched, and how many records could not be decoded. */
  public record Counts(long matched, long undecodable) {}

  /**
   * @param limit at most this many rows (0: no limit)
   */
  public Counts history(
      Instant from, long limit, Consumer<Map<String, Object>> out, Consumer<String> warn) {
    TopicHistory.Result result =
        new TopicHistory(client)
            .read(
                List.of(topic),
                from == null ? Instant.EPOCH : from,
                FAR_FUTURE,
                NodeFilter.ALL,
                (read, total) -> {});
    result.warnings().forEach(warn);
    long matched = 0;
    for (HistoryRecord r : result.records()) {
      for (Map<String, Object> row : variables.rows(r.value())) {
        if (where.matches(row)) {
          out.accept(row);
          matched++;
          if (limit > 0 && matched >= limit) {
            return new Counts(matched, result.undecodable());
          }
        }
      }
    }
    return new Counts(matched, result.undecodable());
  }

  private long undecodable;

  /** Records {@link #follow} could not decode (skipped). */
  public long undecodableFollowed() {
    return undecodable;
  }

  /**
   * Follows the topic until {@code limit} rows matched or {@code stopped} says so. {@code
   * positioned} runs once every partition's start offset is resolved: every record written after it
   * (and, with {@code from}, every record from that time) is read.
   */
  public long follow(
      Instant from,
      long limit,
      Consumer<Map<String, Object>> out,
      BooleanSupplier stopped,
      Runnable positioned) {
    Properties p = new Properties();
    client.forEach(
        (k, v) -> {
          if (!k.toString().startsWith("schema.registry.")) {
            p.put(k, v);
          }
        });
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Map<String, Object> serde = new HashMap<>();
    client.forEach((k, v) -> serde.put(k.toString(), v));
    AvroDeserializer<? extends SpecificRecord> values = new AvroDeserializer<>(topic.valueType());
    values.configure(serde, false);
    long matched = 0;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic.name())
          .forEach(info -> partitions.add(new TopicPartition(topic.name(), info.partition())));
      consumer.assign(partitions);
      if (from == null) {
        consumer.seekToEnd(partitions);
      } else {
        Map<TopicPartition, Long> query = new HashMap<>();
        partitions.forEach(tp -> query.put(tp, from.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> offsets = consumer.offsetsForTimes(query);
        for (TopicPartition tp : partitions) {
          if (offsets.get(tp) == null) {
            consumer.seekToEnd(List.of(tp));
          } else {
            consumer.seek(tp, offsets.get(tp).offset());
          }
        }
      }
      // seekToEnd is lazy: resolve the end offsets now, so "from now on" means from this point
      partitions.forEach(consumer::position);
      positioned.run();
      while (!stopped.getAsBoolean()) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          SpecificRecord value;
          try {
            value = values.deserialize(r.topic(), r.value());
          } catch (RuntimeException corrupt) {
            undecodable++;
            continue;
          }
          if (value == null) {
            continue;
          }
          for (Map<String, Object> row : variables.rows(value)) {
            if (where.matches(row)) {
              out.accept(row);
              matched++;
              if (limit > 0 && matched >= limit) {
                return matched;
              }
            }
          }
        }
      }
    }
    return matched;
  }
}
