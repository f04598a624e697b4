package io.fabricpulse.sinks.influx;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The consumer lag of other consumer groups of the pipeline (the streams application, the alert
 * bridges), read with the Admin API at every health write of the sink: for each group and topic,
 * the records after the group's committed offsets (measurement {@value
 * InfluxSchema#PIPELINE_CONSUMER_LAG}). A group that has committed nothing writes no point.
 */
public final class GroupLag implements AutoCloseable {
  private static final long TIMEOUT_SECONDS = 5;

  private final Admin admin;
  private final List<String> groups;

  /**
   * @param admin closed with this
   * @param groups consumer group ids, e.g. the streams application id
   */
  public GroupLag(Admin admin, List<String> groups) {
    this.admin = admin;
    this.groups = List.copyOf(groups);
  }

  public List<String> groups() {
    return groups;
  }

  /** One point per group and topic at {@code nowMs}. */
  List<SinkPoint> points(long nowMs) {
    List<SinkPoint> points = new java.util.ArrayList<>();
    try {
      for (String group : groups) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        committed.values().removeIf(o -> o == null);
        if (committed.isEmpty()) {
          continue;
        }
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResultInfo> ends =
            admin.listOffsets(latest).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<String, Long> lagByTopic = new TreeMap<>();
        committed.forEach(
            (tp, offset) -> {
              ListOffsetsResultInfo end = ends.get(tp);
              long lag = end == null ? 0 : Math.max(0, end.offset() - offset.offset());
              lagByTopic.merge(tp.topic(), lag, Long::sum);
            });
        lagByTopic.forEach(
            (topic, lag) -> {
              SortedMap<String, String> tags = new TreeMap<>();
              tags.put(InfluxSchema.TAG_GROUP, group);
              tags.put(InfluxSchema.TAG_TOPIC, topic);
              points.add(
                  new SinkPoint(
                      InfluxSchema.PIPELINE_CONSUMER_LAG,
                      tags,
                      Map.of(InfluxSchema.LAG, lag),
                      nowMs));
            });
      }
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the consumer groups' offsets: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading the consumer groups' offsets", e);
    }
    return points;
  }

  @Override
  public void close() {
    admin.close();
  }
}
