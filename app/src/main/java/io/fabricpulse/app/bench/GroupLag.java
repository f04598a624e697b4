package io.fabricpulse.app.bench;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a consumer group is behind on the topics it reads: the sum over its partitions of end
 * offset minus committed offset. Used by the benchmark to tell when a stage has carried everything.
 * End offsets count transaction markers too, so an exactly-once group is caught up when every
 * partition's committed offset reaches its end offset (Streams commits past the marker), not when a
 * record count matches.
 */
public final class GroupLag {

  private final Admin admin;

  public GroupLag(Admin admin) {
    this.admin = admin;
  }

  /**
   * Lag of {@code group} over {@code topics} and every other topic it has committed offsets on (its
   * repartition topics); a partition the group has not committed yet counts as its whole end
   * offset.
   */
  public long lag(String group, Collection<String> topics) throws InterruptedException {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      Set<String> all = new HashSet<>(topics);
      committed.keySet().forEach(tp -> all.add(tp.topic()));
      Map<String, TopicDescription> described = admin.describeTopics(all).allTopicNames().get();
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      described.forEach(
          (topic, d) ->
              d.partitions()
                  .forEach(
                      p ->
                          request.put(
                              new TopicPartition(topic, p.partition()), OffsetSpec.latest())));
      Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
          admin.listOffsets(request).all().get();
      long lag = 0;
      for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : ends.entrySet()) {
        OffsetAndMetadata at = committed.get(e.getKey());
        lag += e.getValue().offset() - (at == null ? 0 : at.offset());
      }
      return lag;
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot read the lag of " + group + ": " + e.getCause(), e);
    }
  }

  /**
   * Waits until {@code group} has no lag on {@code topics}; false when {@code stall} passes without
   * the lag going down. Reports the lag to {@code progress} every few seconds.
   */
  public boolean awaitCaughtUp(
      String group, Collection<String> topics, Duration stall, Consumer<Long> progress)
      throws InterruptedException {
    long best = Long.MAX_VALUE;
    long bestAt = System.nanoTime();
    long reportAt = System.nanoTime();
    while (true) {
      long lag = lag(group, topics);
      if (lag == 0) {
        return true;
      }
      long now = System.nanoTime();
      if (lag < best) {
        best = lag;
        bestAt = now;
      } else if (now - bestAt > stall.toNanos()) {
        return false;
      }
      if (now >= reportAt) {
        progress.accept(lag);
        reportAt = now + TimeUnit.SECONDS.toNanos(5);
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }
}
