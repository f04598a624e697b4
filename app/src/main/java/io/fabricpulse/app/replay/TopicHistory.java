package io.fabricpulse.app.replay;

import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads what topics hold for a time range, without a consumer group: every partition is assigned by
 * hand, sought by timestamp ({@code offsetsForTimes}) and read up to the first offset stamped
 * {@link #LATE_MARGIN} after the range (records a little out of order in a partition are still
 * found), so nothing is committed and no group of the live application is touched. Only records
 * stamped inside the range are kept; they come back merged in {@link
 * HistoryRecord#EVENT_TIME_ORDER}.
 */
public final class TopicHistory {

  /** How far past the range a partition is read for records that arrived late. */
  static final Duration LATE_MARGIN = Duration.ofMinutes(1);

  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration IDLE_LIMIT = Duration.ofSeconds(30);

  /** What a read found, besides the records. */
  public record Result(
      List<HistoryRecord> records, long undecodable, List<String> warnings, long filteredOut) {}

  /** Progress of a read: records read so far of the (approximate) total. */
  public interface Progress {
    void update(long read, long total);
  }

  private final Properties client;

  /**
   * @param client Kafka client settings with {@code schema.registry.url}; group settings are
   *     ignored
   */
  public TopicHistory(Properties client) {
    this.client = client;
  }

  /**
   * {@link #read} of {@code raw} over [{@code from}, {@code to}], plus fabric.topology as it stood
   * at {@code to}: every link record from the topic's start. The topic is compacted and a link is
   * published when it appears or changes, often long before the range, and the topology join and
   * the link capability check need the cabling the range ran on.
   */
  public Result readWithTopology(
      List<TopicSpec> raw, Instant from, Instant to, NodeFilter nodes, Progress progress) {
    Result counters = read(raw, from, to, nodes, progress);
    TopicSpec topology = FabricTopics.defaults().topology();
    Result links = read(List.of(topology), Instant.EPOCH, to, NodeFilter.ALL, progress);
    List<HistoryRecord> all = new ArrayList<>(links.records());
    all.addAll(counters.records());
    all.sort(HistoryRecord.EVENT_TIME_ORDER);
    List<String> warnings = new ArrayList<>(counters.warnings());
    warnings.addAll(links.warnings());
    return new Result(
        all,
        counters.undecodable() + links.undecodable(),
        warnings,
        counters.filteredOut() + links.filteredOut());
  }

  /**
   * The records of {@code topics} stamped in [{@code from}, {@code to}] whose node passes {@code
   * nodes}.
   */
  public Result read(
      List<TopicSpec> topics, Instant from, Instant to, NodeFilter nodes, Progress progress) {
    List<HistoryRecord> records = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    long undecodable = 0;
    long filtered = 0;
    Map<String, Object> serdeConfig = new HashMap<>();
    client.forEach((k, v) -> serdeConfig.put(k.toString(), v));
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            consumerConfig(), new StringDeserializer(), new ByteArrayDeserializer())) {
      Map<TopicPartition, Long> stops = new HashMap<>();
      Map<TopicPartition, Integer> order = new HashMap<>();
      Map<String, Deserializer<? extends SpecificRecord>> decoders = new HashMap<>();
      for (int i = 0; i < topics.size(); i++) {
        TopicSpec topic = topics.get(i);
        decoders.put(topic.name(), decoder(topic, serdeConfig));
        List<PartitionInfo> partitions = consumer.partitionsFor(topic.name());
        if (partitions == null || partitions.isEmpty()) {
          warnings.add(topic.name() + ": no such topic");
          continue;
        }
        for (PartitionInfo p : partitions) {
          order.put(new TopicPartition(topic.name(), p.partition()), i);
        }
      }
      List<TopicPartition> all = new ArrayList<>(order.keySet());
      all.sort(
          java.util.Comparator.comparing(TopicPartition::topic)
              .thenComparingInt(TopicPartition::partition));
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(all);
      Map<TopicPartition, Long> end = consumer.endOffsets(all);
      Map<TopicPartition, OffsetAndTimestamp> starts = consumer.offsetsForTimes(at(all, from));
      Map<TopicPartition, OffsetAndTimestamp> earliest =
          consumer.offsetsForTimes(at(all, Instant.EPOCH));
      long total = 0;
      for (TopicPartition tp : all) {
        OffsetAndTimestamp oldest = earliest.get(tp);
        if (begin.get(tp) > 0 && oldest != null && oldest.timestamp() > from.toEpochMilli()) {
          warnings.add(
              tp
                  + ": retention no longer covers "
                  + from
                  + ": the oldest record left is from "
                  + Instant.ofEpochMilli(oldest.timestamp()));
        }
        OffsetAndTimestamp start = starts.get(tp);
        if (start == null) {
          continue; // nothing at or after the range's start
        }
        // not offsetsForTimes(to): on a transactional topic (fabric.alerts) the commit markers
        // carry the broker's clock, not event time, and would end the read too early
        long stop = end.get(tp);
        if (stop > start.offset()) {
          stops.put(tp, stop);
          total += stop - start.offset();
        }
      }
      // only the partitions with records in the range: a position is needed for each one assigned
      consumer.assign(stops.keySet());
      for (TopicPartition tp : stops.keySet()) {
        consumer.seek(tp, starts.get(tp).offset());
      }
      long read = 0;
      long idleSince = System.nanoTime();
      while (!stops.isEmpty()) {
        var batch = consumer.poll(POLL);
        if (!batch.isEmpty()) {
          idleSince = System.nanoTime();
        } else if (System.nanoTime() - idleSince > IDLE_LIMIT.toNanos()) {
          throw new IllegalStateException(
              "no records for " + IDLE_LIMIT.toSeconds() + " s while reading " + stops.keySet());
        }
        for (ConsumerRecord<String, byte[]> r : batch) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          Long stop = stops.get(tp);
          if (stop == null || r.offset() >= stop) {
            continue;
          }
          read++;
          if (r.timestamp() > to.plus(LATE_MARGIN).toEpochMilli()) {
            stops.put(tp, r.offset()); // past the range and its late margin: this partition is done
            continue;
          }
          if (r.timestamp() < from.toEpochMilli() || r.timestamp() > to.toEpochMilli()) {
            continue;
          }
          SpecificRecord value;
          try {
            value = decoders.get(r.topic()).deserialize(r.topic(), r.value());
          } catch (RuntimeException e) {
            undecodable++;
            if (undecodable <= 5) {
              warnings.add(tp + "@" + r.offset() + ": cannot decode: " + e.getMessage());
            }
            continue;
          }
          if (value == null) {
            continue; // a tombstone
          }
          if (!nodes.accepts(nodeOf(value))) {
            filtered++;
            continue;
          }
          records.add(
              new HistoryRecord(
                  topicSpec(topics, r.topic()),
                  order.get(tp),
                  r.partition(),
                  r.offset(),
                  r.timestamp(),
                  r.key(),
                  value));
        }
        // by position, not by the last record seen: a transaction marker can be the last offset
        for (TopicPartition tp : List.copyOf(stops.keySet())) {
          if (consumer.position(tp) >= stops.get(tp)) {
            stops.remove(tp);
            consumer.pause(List.of(tp));
          }
        }
        progress.update(read, total);
      }
    }
    records.sort(HistoryRecord.EVENT_TIME_ORDER);
    return new Result(records, undecodable, warnings, filtered);
  }

  private Properties consumerConfig() {
    Properties p = new Properties();
    client.forEach(
        (k, v) -> {
          String key = k.toString();
          if (!key.startsWith("schema.registry.") && !key.equals(ConsumerConfig.GROUP_ID_CONFIG)) {
            p.put(key, v);
          }
        });
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    return p;
  }

  /**
   * The counter topics carry NodeCounters, or the 0.1 per-port record of a collector not yet
   * upgraded.
   */
  private static Deserializer<? extends SpecificRecord> decoder(
      TopicSpec topic, Map<String, Object> config) {
    if (topic.valueType() == NodeCounters.class) {
      Class<? extends SpecificRecord> legacy =
          topic.name().endsWith(FabricTopics.PFC)
              ? PfcPauseFrames.class
              : topic.name().endsWith(FabricTopics.ECN) ? EcnMarks.class : PortCounters.class;
      return AvroOneOfDeserializer.forValues(List.of(NodeCounters.class, legacy), config);
    }
    AvroDeserializer<? extends SpecificRecord> plain = new AvroDeserializer<>(topic.valueType());
    plain.configure(config, false);
    return plain;
  }

  private static TopicSpec topicSpec(List<TopicSpec> topics, String name) {
    return topics.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  private static Map<TopicPartition, Long> at(List<TopicPartition> partitions, Instant time) {
    Map<TopicPartition, Long> query = new HashMap<>();
    partitions.forEach(tp -> query.put(tp, time.toEpochMilli()));
    return query;
  }

  /** The record's node field, or null when it has none (cluster-wide records). */
  static String nodeOf(SpecificRecord record) {
    var field = record.getSchema().getField("node");
    if (field == null) {
      return null;
    }
    Object node = record.get(field.pos());
    return node == null ? null : node.toString();
  }
}
