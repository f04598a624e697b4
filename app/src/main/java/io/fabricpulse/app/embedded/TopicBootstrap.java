package io.fabricpulse.app.embedded;

import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicLeaders;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the pipeline's topics with their partitions, retention and compaction, idempotently:
 * existing topics are left alone. Besides the layout, the bridges' counters topic ({@link
 * FabricTopics#bridgeCounters()}), which the sink reads, so that the sink never waits on a topic
 * that does not exist where no bridge runs yet. Brokers should run with auto-create off so a typo
 * never makes a topic with default settings.
 */
public final class TopicBootstrap {
  private static final Logger log = LoggerFactory.getLogger(TopicBootstrap.class);

  private TopicBootstrap() {}

  /**
   * @return the names of the topics that were created (empty if all existed)
   */
  public static List<String> ensure(Admin admin, FabricTopics topics, short replicationFactor)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
    List<NewTopic> missing = new ArrayList<>();
    List<TopicSpec> specs = new ArrayList<>(topics.all());
    specs.add(FabricTopics.bridgeCounters());
    for (TopicSpec spec : specs) {
      if (!existing.contains(spec.name())) {
        missing.add(
            new NewTopic(spec.name(), spec.partitions(), replicationFactor)
                .configs(spec.configs()));
      }
    }
    if (!missing.isEmpty()) {
      try {
        admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
          throw e;
        }
      }
      log.info("created topics {}", missing.stream().map(NewTopic::name).toList());
      TopicLeaders.await(admin, missing.stream().map(NewTopic::name).toList(), METADATA_WAIT);
    }
    return missing.stream().map(NewTopic::name).toList();
  }

  /**
   * The partition count {@code topic} really has (an existing topic keeps its own, whatever the
   * layout asked for). Right after {@link #ensure} created it, the broker that answers may not have
   * the topic in its metadata yet ("This server does not host this topic-partition", seen on a
   * loaded machine), so that answer is asked again for up to {@link #METADATA_WAIT}.
   */
  public static int partitionsOf(Admin admin, String topic)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + METADATA_WAIT.toNanos();
    while (true) {
      try {
        return admin
            .describeTopics(List.of(topic))
            .allTopicNames()
            .get(30, TimeUnit.SECONDS)
            .get(topic)
            .partitions()
            .size();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        log.debug("{} not in the broker's metadata yet; asking again", topic);
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
  }

  /** How long a topic just created may stay unknown to the broker's metadata. */
  static final Duration METADATA_WAIT = Duration.ofSeconds(30);
}
