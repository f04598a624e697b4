package io.fabricpulse.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaBrokerIT {

  @Test
  void startsOnLoopbackAndCreatesEveryTopicWithItsSettingsIdempotently(@TempDir Path dir)
      throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60))) {
      assertTrue(broker.bootstrapServers().startsWith("127.0.0.1:"));
      Properties props = new Properties();
      props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      try (Admin admin = Admin.create(props)) {
        FabricTopics topics = FabricTopics.defaults("", 4);
        List<String> created = TopicBootstrap.ensure(admin, topics, (short) 1);
        assertEquals(topics.all().size() + 1, created.size()); // and the bridges' counters
        assertEquals(List.of(), TopicBootstrap.ensure(admin, topics, (short) 1));

        Map<String, TopicDescription> described =
            admin
                .describeTopics(List.of(FabricTopics.PORT_COUNTERS, FabricTopics.ALERTS_ACTIVE))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS);
        assertEquals(4, described.get(FabricTopics.PORT_COUNTERS).partitions().size());
        // ensure hands out topics only once every partition has a leader (KAFKA-14359)
        described.values().stream()
            .flatMap(d -> d.partitions().stream())
            .forEach(p -> assertTrue(p.leader() != null && !p.leader().isEmpty(), p.toString()));
        ConfigResource active =
            new ConfigResource(ConfigResource.Type.TOPIC, FabricTopics.ALERTS_ACTIVE);
        String policy =
            admin
                .describeConfigs(List.of(active))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(active)
                .get("cleanup.policy")
                .value();
        assertEquals("compact", policy);
      }
    }
  }

  @Test
  void waitingForTheLeadersOfATopicThatNeverComesTimesOutNamingIt(@TempDir Path dir)
      throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60))) {
      Properties props = new Properties();
      props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      try (Admin admin = Admin.create(props)) {
        java.util.concurrent.TimeoutException timeout =
            org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.TimeoutException.class,
                () ->
                    io.fabricpulse.schemas.topics.TopicLeaders.await(
                        admin, List.of("never.created"), Duration.ofSeconds(1)));
        assertTrue(timeout.getMessage().contains("without a leader"), timeout.getMessage());
      }
    }
  }
}
