package io.fabricpulse.sinks.influx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * The points fabricpulse writes about itself (measurements {@value InfluxSchema#PIPELINE_TOPICS}
 * and {@value InfluxSchema#PIPELINE_SINK}), read through the sink's own consumer: the end offset of
 * every pipeline topic (records appended so far, so its derivative is the records in or out of a
 * stage per second, and fabric.dlq's is the dead-letter count), the sink's counters and its
 * consumer lag. Time is the wall clock of the sink: these points describe the running pipeline, not
 * the fabric's event time.
 */
final class PipelineHealth {

  private PipelineHealth() {}

  /**
   * One point per existing topic of {@code topics} (a topic that does not exist writes nothing) and
   * one for the sink, at {@code nowMs}.
   */
  static List<SinkPoint> points(
      Consumer<?, ?> consumer, List<String> topics, SinkMetrics metrics, long nowMs) {
    List<SinkPoint> points = new ArrayList<>();
    for (String topic : topics) {
      List<PartitionInfo> partitions = consumer.partitionsFor(topic);
      if (partitions == null || partitions.isEmpty()) {
        continue;
      }
      List<TopicPartition> tps =
          partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      long end = 0;
      for (Long offset : consumer.endOffsets(tps).values()) {
        end += offset == null ? 0 : offset;
      }
      SortedMap<String, String> tags = new TreeMap<>();
      tags.put(InfluxSchema.TAG_TOPIC, topic);
      points.add(
          new SinkPoint(
              InfluxSchema.PIPELINE_TOPICS, tags, Map.of(InfluxSchema.END_OFFSET, end), nowMs));
    }
    points.add(sinkPoint(consumer, metrics, nowMs));
    return points;
  }

  private static SinkPoint sinkPoint(Consumer<?, ?> consumer, SinkMetrics metrics, long nowMs) {
    Map<String, Object> fields = new HashMap<>();
    fields.put(InfluxSchema.RECORDS_CONSUMED, metrics.recordsConsumed());
    fields.put(InfluxSchema.MALFORMED_RECORDS, metrics.malformedRecords());
    fields.put(InfluxSchema.POINTS_WRITTEN, metrics.pointsWritten());
    fields.put(InfluxSchema.WRITE_REQUESTS, metrics.writeRequests());
    fields.put(InfluxSchema.WRITE_FAILURES, metrics.writeFailures());
    fields.put(InfluxSchema.POINTS_REJECTED, metrics.pointsRejected());
    fields.put(InfluxSchema.LATE_SAMPLES, metrics.lateSamples());
    fields.put(InfluxSchema.REWRITTEN_BUCKETS, metrics.rewrittenBuckets());
    fields.put(InfluxSchema.OFFSET_COMMITS, metrics.offsetCommits());
    fields.put(InfluxSchema.CONSUMER_LAG, lag(consumer));
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(InfluxSchema.TAG_GROUP, consumer.groupMetadata().groupId());
    return new SinkPoint(InfluxSchema.PIPELINE_SINK, tags, new TreeMap<>(fields), nowMs);
  }

  /** Records after the consumer's position, summed over its assigned partitions. */
  private static long lag(Consumer<?, ?> consumer) {
    Set<TopicPartition> assigned = consumer.assignment();
    if (assigned.isEmpty()) {
      return 0;
    }
    long lag = 0;
    for (Map.Entry<TopicPartition, Long> end : consumer.endOffsets(assigned).entrySet()) {
      if (end.getValue() != null) {
        lag += Math.max(0, end.getValue() - consumer.position(end.getKey()));
      }
    }
    return lag;
  }
}
