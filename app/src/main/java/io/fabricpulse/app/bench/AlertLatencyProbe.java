package io.fabricpulse.app.bench;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.streams.LineageHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Measures alert latency as the issue defines it: from the append of the raw sample that completes
 * a fault's evidence to the append of its FIRING alert. One consumer reads the topics the agents
 * write (the raw topics and the fabric collector's topology), {@code fabric.rates} and {@code
 * fabric.alerts} with read_uncommitted, so every record is seen as soon as the broker has appended
 * it (a committed-only reader would add the transaction commit interval to every alert), and notes
 * when it first saw each one:
 *
 * <ul>
 *   <li>an alert names the record that fired it (source topic, partition, offset);
 *   <li>when that is a rates record, the rates record's lineage headers name its raw sample;
 *   <li>latency = first sight of the alert - first sight of that raw sample.
 * </ul>
 *
 * Both ends are seen by the same consumer, so its fetch delay cancels out. An alert id seen twice
 * (an aborted transaction's copy, then the committed one) counts once, at its first sight.
 */
final class AlertLatencyProbe implements Runnable, AutoCloseable {

  private record Coordinates(String topic, int partition, long offset) {}

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Set<String> rawTopics;
  private final String ratesTopic;
  private final String alertsTopic;
  private final String cluster;
  private final Deserializer<Alert> alerts;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Map<Coordinates, Long> rawSeen = new HashMap<>();
  private final Map<Coordinates, Coordinates> ratesToRaw = new HashMap<>();
  private final Set<String> firing = new HashSet<>();
  private final List<Seen> seenAlerts = new ArrayList<>();

  private record Seen(Coordinates source, long atNanos) {}

  AlertLatencyProbe(
      String bootstrap,
      Collection<String> rawTopics,
      String ratesTopic,
      String alertsTopic,
      String cluster,
      Deserializer<Alert> alerts) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "fabricpulse-bench-latency");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    this.consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.rawTopics = Set.copyOf(rawTopics);
    this.ratesTopic = ratesTopic;
    this.alertsTopic = alertsTopic;
    this.cluster = cluster;
    this.alerts = alerts;
    List<String> all = new ArrayList<>(rawTopics);
    all.add(ratesTopic);
    all.add(alertsTopic);
    consumer.subscribe(all);
  }

  /** Joins the group and waits for its partitions, so nothing produced afterwards is missed. */
  void awaitAssignment(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(100));
    }
    if (consumer.assignment().isEmpty()) {
      throw new IllegalStateException("the latency probe got no partitions in " + timeout);
    }
    consumer.seekToEnd(consumer.assignment());
    consumer.assignment().forEach(consumer::position);
  }

  @Override
  public void run() {
    try {
      poll();
    } catch (WakeupException e) {
      // close() asked the loop to end
    }
  }

  private void poll() {
    while (running.get()) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
        long now = System.nanoTime();
        Coordinates at = new Coordinates(r.topic(), r.partition(), r.offset());
        synchronized (this) {
          if (rawTopics.contains(r.topic())) {
            rawSeen.putIfAbsent(at, now);
          } else if (r.topic().equals(ratesTopic)) {
            String topic = LineageHeaders.topic(r.headers());
            Integer partition = LineageHeaders.partition(r.headers());
            Long offset = LineageHeaders.offset(r.headers());
            if (topic != null && partition != null && offset != null) {
              ratesToRaw.put(at, new Coordinates(topic, partition, offset));
            }
          } else if (r.topic().equals(alertsTopic) && r.value() != null) {
            alert(alerts.deserialize(r.topic(), r.value()), now);
          }
        }
      }
    }
  }

  private void alert(Alert alert, long seenAt) {
    if (alert.getState() != AlertState.FIRING
        || !cluster.equals(alert.getCluster())
        || !firing.add(alert.getAlertId())
        || alert.getSourceTopic() == null
        || alert.getSourcePartition() == null
        || alert.getSourceOffset() == null) {
      return;
    }
    seenAlerts.add(
        new Seen(
            new Coordinates(
                alert.getSourceTopic(), alert.getSourcePartition(), alert.getSourceOffset()),
            seenAt));
  }

  /**
   * Latencies of the alerts seen so far, milliseconds, in the order the alerts were seen. Matched
   * here rather than on arrival: the rates record an alert names may be fetched after the alert.
   */
  synchronized List<Double> latenciesMs() {
    List<Double> latencies = new ArrayList<>();
    for (Seen alert : seenAlerts) {
      Long rawAt = rawSeenAt(alert.source());
      if (rawAt != null) {
        latencies.add((alert.atNanos() - rawAt) / 1e6);
      }
    }
    return latencies;
  }

  /** FIRING alerts of the cluster whose raw sample the probe did not see. */
  synchronized long unmatched() {
    return seenAlerts.stream().filter(a -> rawSeenAt(a.source()) == null).count();
  }

  private Long rawSeenAt(Coordinates source) {
    Coordinates raw = source.topic().equals(ratesTopic) ? ratesToRaw.get(source) : source;
    return raw == null ? null : rawSeen.get(raw);
  }

  synchronized int firingAlerts() {
    return firing.size();
  }

  @Override
  public void close() {
    running.set(false);
    consumer.wakeup();
  }

  /** Closes the consumer, once the probe's thread has ended. */
  void release() {
    consumer.close(Duration.ofSeconds(5));
  }
}
