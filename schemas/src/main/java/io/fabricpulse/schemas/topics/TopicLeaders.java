package io.fabricpulse.schemas.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Waiting for topics just created to be writable. */
public final class TopicLeaders {
  private TopicLeaders() {}

  /**
   * Returns once every partition of {@code names} has a leader that serves it. An idempotent
   * producer that writes to a partition the broker has not opened yet can lose its first batch to a
   * retriable NOT_LEADER_OR_FOLLOWER while its second is appended, and then retries the first
   * forever with OUT_OF_ORDER_SEQUENCE_NUMBER (KAFKA-14359, KAFKA-15591): the agent's flush never
   * returns. Topics are therefore handed out only when they can be written.
   */
  public static void await(Admin admin, List<String> names, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> leaderless = new ArrayList<>();
      Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
      try {
        admin
            .describeTopics(names)
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .forEach(
                (name, description) ->
                    description
                        .partitions()
                        .forEach(
                            p -> {
                              partitions.put(
                                  new TopicPartition(name, p.partition()), OffsetSpec.latest());
                              if (p.leader() == null || p.leader().isEmpty()) {
                                leaderless.add(name + "-" + p.partition());
                              }
                            }));
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw e;
        }
        leaderless.add("(a topic not in the broker's metadata yet)");
      }
      if (leaderless.isEmpty()) {
        // The metadata can name a leader before that broker has opened the partition; a
        // ListOffsets is answered by the leader's partition itself, so it succeeds only then.
        try {
          admin.listOffsets(partitions).all().get(30, TimeUnit.SECONDS);
          return;
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof RetriableException)) {
            throw e;
          }
          leaderless.add("(a leader not serving its partition yet: " + e.getCause() + ")");
        }
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "partitions without a leader "
                + timeout.toSeconds()
                + " s after creation: "
                + leaderless);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }
}
