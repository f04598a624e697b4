package io.fabricpulse.app.demo;

import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The collector sequence numbers on a counter topic or on fabric.rates, per node, source and boot
 * (a collector restart begins again at 0 under a new boot id): what the fault tests count as
 * produced, delivered, lost (a gap) and duplicated.
 */
final class Sequences {
  /** node/source/boot -> every seq read, in read order. */
  private final Map<String, List<Long>> seqs = new TreeMap<>();

  private Sequences() {}

  /**
   * Every NodeCounters of {@code topics} (committed records only); {@code skip} says which records
   * are not the collectors' (the bad ones a test wrote).
   */
  static Sequences ofRaw(
      String bootstrap,
      String registry,
      List<String> topics,
      java.util.function.Predicate<ConsumerRecord<String, byte[]>> skip) {
    Sequences s = new Sequences();
    AvroDeserializer<NodeCounters> decoder = new AvroDeserializer<>(NodeCounters.class);
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
    for (String topic : topics) {
      for (ConsumerRecord<String, byte[]> r : readAll(bootstrap, topic)) {
        if (skip.test(r)) {
          continue;
        }
        NodeCounters n = decoder.deserialize(topic, r.value());
        s.add(n.getNode() + "/" + n.getSource() + "/" + n.getBootId(), n.getSeq());
      }
    }
    return s;
  }

  /** Every NodeRates of {@code topic} (committed records only) but those {@code skip} names. */
  static Sequences ofRates(
      String bootstrap,
      String registry,
      String topic,
      java.util.function.Predicate<ConsumerRecord<String, byte[]>> skip) {
    Sequences s = new Sequences();
    AvroDeserializer<NodeRates> decoder = new AvroDeserializer<>(NodeRates.class);
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
    for (ConsumerRecord<String, byte[]> r : readAll(bootstrap, topic)) {
      if (skip.test(r)) {
        continue;
      }
      NodeRates n = decoder.deserialize(topic, r.value());
      s.add(n.getNode() + "/" + n.getSource() + "/" + n.getBootId(), n.getSeq());
    }
    return s;
  }

  private void add(String key, long seq) {
    seqs.computeIfAbsent(key, k -> new ArrayList<>()).add(seq);
  }

  /** Records read. */
  long count() {
    return seqs.values().stream().mapToLong(List::size).sum();
  }

  /** Records read more than once (same node, source, boot and seq). */
  long duplicated() {
    long dup = 0;
    for (List<Long> list : seqs.values()) {
      dup += list.size() - new TreeSet<>(list).size();
    }
    return dup;
  }

  /** Sequence numbers missing between each series' first and last. */
  long gaps() {
    long gaps = 0;
    for (List<Long> list : seqs.values()) {
      TreeSet<Long> distinct = new TreeSet<>(list);
      gaps += distinct.last() - distinct.first() + 1 - distinct.size();
    }
    return gaps;
  }

  /** Records of {@code produced} this one lacks (series by series, seq by seq). */
  long missingFrom(Sequences produced) {
    long missing = 0;
    for (Map.Entry<String, List<Long>> e : produced.seqs.entrySet()) {
      TreeSet<Long> here = new TreeSet<>(seqs.getOrDefault(e.getKey(), List.of()));
      for (long seq : new TreeSet<>(e.getValue())) {
        if (!here.contains(seq)) {
          missing++;
        }
      }
    }
    return missing;
  }

  /** Series (node/source/boot) read. */
  int series() {
    return seqs.size();
  }

  /**
   * Records of {@code topic} whose key and value bytes repeat an earlier record's (committed
   * records, {@code skip} left out): a record the collectors' output sent twice.
   */
  static long repeatedRecords(
      String bootstrap,
      String topic,
      java.util.function.Predicate<ConsumerRecord<String, byte[]>> skip) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    long repeated = 0;
    for (ConsumerRecord<String, byte[]> r : readAll(bootstrap, topic)) {
      if (!skip.test(r)
          && !seen.add(r.key() + "|" + java.util.Base64.getEncoder().encodeToString(r.value()))) {
        repeated++;
      }
    }
    return repeated;
  }

  /** Every committed record of {@code topic}, from the beginning to the end offsets of now. */
  static List<ConsumerRecord<String, byte[]>> readAll(String bootstrap, String topic) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("isolation.level", "read_committed");
    props.put("enable.auto.commit", "false");
    List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions));
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("timed out reading " + topic);
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.value() != null) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }
}
