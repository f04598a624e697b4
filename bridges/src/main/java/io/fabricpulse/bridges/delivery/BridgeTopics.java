package io.fabricpulse.bridges.delivery;

import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicLeaders;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The bridges' own topics, created at start-up if missing (idempotent): the ledger, the undelivered
 * alerts and the robots' counters ({@link FabricTopics#bridgeCounters()}).
 */
public final class BridgeTopics {
  /** The delivery ledger: compacted, key {@code robot|state|alert_id}, value UTF-8 text. */
  public static final String DELIVERED = "fabric.alerts.delivered";

  /** Alert changes given up on: {@code DeadLetter} records with the reason and the raw alert. */
  public static final String UNDELIVERED = "fabric.alerts.undelivered";

  static final Duration UNDELIVERED_RETENTION = Duration.ofDays(90);

  private BridgeTopics() {}

  public static void ensure(Admin admin)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
    List<NewTopic> missing = new ArrayList<>();
    if (!existing.contains(DELIVERED)) {
      missing.add(
          new NewTopic(DELIVERED, Optional.of(3), Optional.empty())
              .configs(Map.of("cleanup.policy", "compact")));
    }
    if (!existing.contains(UNDELIVERED)) {
      missing.add(
          new NewTopic(UNDELIVERED, Optional.of(3), Optional.empty())
              .configs(
                  Map.of(
                      "cleanup.policy",
                      "delete",
                      "retention.ms",
                      Long.toString(UNDELIVERED_RETENTION.toMillis()))));
    }
    TopicSpec counters = FabricTopics.bridgeCounters();
    if (!existing.contains(counters.name())) {
      missing.add(
          new NewTopic(counters.name(), Optional.of(counters.partitions()), Optional.empty())
              .configs(counters.configs()));
    }
    if (missing.isEmpty()) {
      return;
    }
    try {
      admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
    TopicLeaders.await(
        admin, missing.stream().map(NewTopic::name).toList(), Duration.ofSeconds(30));
  }
}
