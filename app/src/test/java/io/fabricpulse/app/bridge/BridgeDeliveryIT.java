package io.fabricpulse.app.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.bridges.Bridges;
import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.Route;
import io.fabricpulse.bridges.delivery.AlertBridge;
import io.fabricpulse.bridges.delivery.BridgeTopics;
import io.fabricpulse.bridges.delivery.RobotDispatcher;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.testing.FakeDingTalkServer;
import io.fabricpulse.bridges.testing.FakeRobotServer;
import io.fabricpulse.bridges.testing.FakeRobotServer.Request;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.ManualClock;
import io.fabricpulse.bridges.testing.TestAlerts;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.serde.AvroSerializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridges on a real in-process broker against local robots on 127.0.0.1: a burst of 200 alerts
 * arrives in digests within 20 a minute with none missing, a restart while one robot is down sends
 * nothing twice to the other, a 60 s outage loses nothing, and a locked DingTalk robot gets no
 * request until its 10-minute lockout ends. Robot time is an injected clock that the test moves to
 * each next send (so a 10-minute lockout takes a second); Kafka I/O waits on state with a deadline.
 */
class BridgeDeliveryIT {
  @TempDir static Path dir;
  static EmbeddedKafkaBroker broker;
  static final Map<String, Object> SERDE =
      Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://bridge-delivery-it");

  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T06:00:00Z"));

  @BeforeAll
  static void startBroker() throws Exception {
    broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(90));
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      TopicBootstrap.ensure(admin, FabricTopics.defaults("", 3), (short) 1);
      BridgeTopics.ensure(admin);
    }
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  /** A robot for one test: the tests share fabric.alerts, so each routes its own cluster. */
  private static RobotConfig robot(String name, String url, String cluster) {
    Route everything =
        new Route(Set.of(), Set.of(), Set.of(cluster), List.of(), Map.of(), List.of());
    return new RobotConfig(
        name, RobotType.WECOM, url, null, null, null, false, 20, List.of(everything), null, "it");
  }

  private AlertBridge bridge(String group, Map<String, FakeWeComServer> servers) {
    return bridge(group, servers, Duration.ofHours(1));
  }

  /** A bridge whose robots take the alerts of cluster {@code group}. */
  private AlertBridge bridge(String group, Map<String, FakeWeComServer> servers, Duration giveUp) {
    BridgeConfig config =
        new BridgeConfig(Language.EN, BridgeConfig.DEFAULT_ZONE, null, giveUp, Map.of(), List.of());
    List<RobotDispatcher> dispatchers = new ArrayList<>();
    servers.forEach(
        (name, server) -> {
          RobotConfig r = robot(name, server.url(), group);
          dispatchers.add(
              Bridges.dispatcher(
                  config,
                  r,
                  Bridges.robot(
                      r, new Bridges.Secrets("KEY-" + name, null), clock, new WebhookClient()),
                  clock));
        });
    Map<String, Object> client = new HashMap<>(SERDE);
    client.put("bootstrap.servers", broker.bootstrapServers());
    AlertBridge bridge =
        Bridges.kafka(
            RobotType.WECOM,
            dispatchers,
            client,
            group,
            FabricTopics.ALERTS,
            FabricTopics.DEAD_LETTERS,
            clock);
    bridge.start();
    return bridge;
  }

  private static void publish(List<Alert> alerts) {
    AvroSerializer<Alert> serializer = new AvroSerializer<>();
    serializer.configure(SERDE, false);
    Map<String, Object> props =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      for (Alert a : alerts) {
        producer.send(
            new ProducerRecord<>(
                FabricTopics.ALERTS, a.getAlertId(), serializer.serialize(FabricTopics.ALERTS, a)));
      }
      producer.flush();
    }
  }

  /** Polls, moving the robots' clock to each next send, until {@code done} or the deadline. */
  private void runUntil(AlertBridge bridge, BooleanSupplier done) {
    runUntil(bridge, done, Duration.ofSeconds(1));
  }

  /**
   * Polls until {@code done}, moving the clock to the next wake-up of a robot but at most {@code
   * maxStep} at a time (the time records on the topic need to reach the bridge).
   */
  private void runUntil(AlertBridge bridge, BooleanSupplier done, Duration maxStep) {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!done.getAsBoolean()) {
      assertTrue(
          System.nanoTime() < deadline,
          "not done within 90 s; robot clock "
              + clock.instant()
              + ", "
              + bridge.dispatchers().stream()
                  .map(
                      d -> d.name() + " " + d.pendingCount() + " pending " + d.metrics().snapshot())
                  .toList());
      bridge.pollOnce(Duration.ofMillis(100));
      Instant next = clock.instant().plus(maxStep);
      for (RobotDispatcher d : bridge.dispatchers()) {
        Instant wake = d.nextWakeAt();
        if (wake != null && wake.isAfter(clock.instant()) && wake.isBefore(next)) {
          next = wake;
        }
      }
      clock.set(next);
    }
  }

  /** {@code n} storms in cluster {@code cluster}. */
  private static List<Alert> storms(String cluster, String prefix, int n) {
    List<Alert> alerts = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      alerts.add(
          Alert.newBuilder(TestAlerts.storm(prefix + i, String.format("%s%03d", prefix, i)))
              .setCluster(cluster)
              .build());
    }
    return alerts;
  }

  /** How many accepted messages name each alert's subject. */
  private static Map<String, Long> deliveries(FakeRobotServer server, List<Alert> alerts) {
    return deliveries(server, alerts, "/markdown/content");
  }

  /** The same for the message text at {@code field} ({@code /markdown/text} for DingTalk). */
  private static Map<String, Long> deliveries(
      FakeRobotServer server, List<Alert> alerts, String field) {
    List<String> contents =
        server.accepted().stream().map(r -> r.body().at(field).asText()).toList();
    Map<String, Long> times = new HashMap<>();
    for (Alert a : alerts) {
      String subject = a.getNode() + " ens9f0np0";
      times.put(a.getAlertId(), contents.stream().filter(c -> c.contains(subject)).count());
    }
    return times;
  }

  private static void assertWithinBudget(List<Request> requests) {
    for (Request first : requests) {
      long inMinute =
          requests.stream()
              .filter(
                  r -> !r.at().isBefore(first.at()) && r.at().isBefore(first.at().plusSeconds(60)))
              .count();
      assertTrue(inMinute <= 20, inMinute + " requests in the minute from " + first.at());
    }
  }

  @Test
  void aBurstOf200ArrivesInDigestsWithinTheLimitNoneMissing() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY-burst")) {
      List<Alert> alerts = storms("it-burst", "bu", 200);
      AlertBridge bridge = bridge("it-burst", Map.of("burst", server));
      try {
        publish(alerts.subList(0, 100));
        runUntil(bridge, () -> server.accepted().size() >= 1);
        publish(alerts.subList(100, 200));
        runUntil(bridge, () -> deliveries(server, alerts).values().stream().allMatch(n -> n >= 1));
      } finally {
        bridge.close();
      }
      deliveries(server, alerts).forEach((id, n) -> assertEquals(1L, n, id));
      assertEquals(0, server.requests().stream().filter(r -> r.errcode() != 0).count());
      assertWithinBudget(server.requests());
      assertTrue(server.accepted().size() < 40, server.accepted().size() + " messages");
    }
  }

  @Test
  void aRestartWhileOneRobotIsDownSendsNothingTwice() throws Exception {
    try (FakeWeComServer up = new FakeWeComServer(clock, "KEY-up");
        FakeWeComServer down = new FakeWeComServer(clock, "KEY-down")) {
      List<Alert> alerts = storms("it-restart", "rs", 30);
      down.down(true);
      AlertBridge first = bridge("it-restart", Map.of("up", up, "down", down));
      try {
        publish(alerts);
        runUntil(first, () -> deliveries(up, alerts).values().stream().allMatch(n -> n >= 1));
      } finally {
        first.close(); // the "down" robot still waits: its offsets are not committed
      }
      assertTrue(down.accepted().isEmpty());
      down.down(false);
      AlertBridge second = bridge("it-restart", Map.of("up", up, "down", down));
      try {
        runUntil(second, () -> deliveries(down, alerts).values().stream().allMatch(n -> n >= 1));
        // a few more rounds: anything resent to "up" would show now
        Instant until = clock.instant().plusSeconds(120);
        runUntil(second, () -> !clock.instant().isBefore(until));
      } finally {
        second.close();
      }
      deliveries(up, alerts).forEach((id, n) -> assertEquals(1L, n, "up: " + id));
      deliveries(down, alerts).forEach((id, n) -> assertEquals(1L, n, "down: " + id));
    }
  }

  @Test
  void aSixtySecondOutageLosesNothing() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY-outage")) {
      List<Alert> alerts = storms("it-outage", "ou", 25);
      server.down(true);
      Instant upAt = clock.instant().plusSeconds(60);
      AlertBridge bridge = bridge("it-outage", Map.of("outage", server));
      try {
        publish(alerts);
        runUntil(bridge, () -> !clock.instant().isBefore(upAt));
        assertTrue(server.accepted().isEmpty());
        assertTrue(bridge.dispatchers().get(0).metrics().failures.get() > 0);
        server.down(false);
        runUntil(bridge, () -> deliveries(server, alerts).values().stream().allMatch(n -> n >= 1));
      } finally {
        bridge.close();
      }
      deliveries(server, alerts).forEach((id, n) -> assertEquals(1L, n, id));
      assertEquals(0, bridge.dispatchers().get(0).metrics().undelivered.get());
      assertTrue(server.accepted().stream().noneMatch(r -> r.at().isBefore(upAt)));
      assertWithinBudget(server.requests());
    }
  }

  /** What differs between the two robots in the outage story. */
  private record RobotKind(
      RobotType type,
      String path,
      int throttleErrcode,
      String textField,
      String secret,
      String keyword) {

    FakeRobotServer listenOn(ManualClock clock, String token, int port) throws Exception {
      return type == RobotType.WECOM
          ? new FakeWeComServer(clock, token, port)
          : new FakeDingTalkServer(clock, token, secret, keyword, port);
    }
  }

  private static final RobotKind WECOM =
      new RobotKind(RobotType.WECOM, FakeWeComServer.PATH, 45009, "/markdown/content", null, null);

  private static final RobotKind DINGTALK =
      new RobotKind(
          RobotType.DINGTALK,
          FakeDingTalkServer.PATH,
          130101,
          "/markdown/text",
          "SEC-it-long-outage",
          "fabricpulse");

  /**
   * A webhook down for minutes in every way it goes down: connection refused (nothing listens),
   * then HTTP 503, the bridge restarted in the middle, then the robot's throttling answer (45009,
   * its minute already used by others). Nothing is committed before delivery, so every alert
   * arrives once after the restart, and nothing is sent while the robot is locked.
   */
  @Test
  void anOutageRefusedThen5xxThenThrottledAcrossARestartDeliversEachAlertOnce() throws Exception {
    outageStory(WECOM, "it-long-outage");
  }

  /**
   * The same story on a DingTalk robot (signed, with its keyword): its throttling answer is 130101
   * and locks the robot for 10 minutes, during which the bridge sends nothing.
   */
  @Test
  void aDingTalkOutageRefusedThen5xxThenThrottledAcrossARestartDeliversEachAlertOnce()
      throws Exception {
    outageStory(DINGTALK, "it-long-outage-dt");
  }

  private void outageStory(RobotKind kind, String group) throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + kind.path();
    String token = "KEY-" + group;
    List<Alert> alerts = storms(group, group.endsWith("dt") ? "ld" : "lo", 40);
    long wallStart = System.nanoTime();
    Instant start = clock.instant();
    AlertBridge first = bridgeAt(kind, group, "long-outage", url, token);
    long refusedFailures;
    FakeRobotServer server = null;
    try {
      publish(alerts);
      Instant refusedUntil = start.plusSeconds(60);
      runUntil(first, () -> !clock.instant().isBefore(refusedUntil));
      refusedFailures = first.dispatchers().get(0).metrics().failures.get();
      assertTrue(refusedFailures > 0, "no failed send while nothing listened");
      server = kind.listenOn(clock, token, port);
      server.down(true);
      Instant restartAt = clock.instant().plusSeconds(60);
      runUntil(first, () -> !clock.instant().isBefore(restartAt));
    } finally {
      first.close(); // nothing delivered, so nothing committed
    }
    try (FakeRobotServer robot = server) {
      assertTrue(robot.accepted().isEmpty());
      AlertBridge second = bridgeAt(kind, group, "long-outage", url, token);
      Instant upAt;
      try {
        Instant throttleAt = clock.instant().plusSeconds(60);
        runUntil(second, () -> !clock.instant().isBefore(throttleAt));
        assertTrue(robot.accepted().isEmpty());
        // the fake records no request it answers 503: the bridge's failures count them
        long answered503 = second.dispatchers().get(0).metrics().failures.get();
        assertTrue(answered503 > 0, "no send answered 503");
        robot.down(false);
        robot.othersSent(20); // the robot's minute is used up: the next send is throttled
        upAt = clock.instant();
        runUntil(
            second,
            () ->
                deliveries(robot, alerts, kind.textField()).values().stream().allMatch(n -> n >= 1),
            Duration.ofSeconds(30));
        Instant recoveredAt = clock.instant();
        // a few more rounds: anything sent twice would show now
        Instant until = clock.instant().plusSeconds(120);
        runUntil(second, () -> !clock.instant().isBefore(until));
        Map<String, Long> times = deliveries(robot, alerts, kind.textField());
        long delivered = times.values().stream().filter(n -> n >= 1).count();
        long duplicated = times.values().stream().filter(n -> n > 1).count();
        long throttled =
            robot.requests().stream().filter(r -> r.errcode() == kind.throttleErrcode()).count();
        System.out.printf(
            "%s webhook outage: %d alerts produced, %d delivered, %d lost, %d duplicated;"
                + " %d sends refused, %d answered 503, %d answered %d, %d during the lockout;"
                + " %d messages; recovered %d s (robot time) after the robot came up;"
                + " %.1f s wall%n",
            kind.type(),
            alerts.size(),
            delivered,
            alerts.size() - delivered,
            duplicated,
            refusedFailures,
            answered503,
            throttled,
            kind.throttleErrcode(),
            robot.duringLockout().size(),
            robot.accepted().size(),
            Duration.between(upAt, recoveredAt).toSeconds(),
            (System.nanoTime() - wallStart) / 1e9);
        times.forEach((id, n) -> assertEquals(1L, n, id));
        assertTrue(throttled >= 1, "the robot never answered " + kind.throttleErrcode());
        assertTrue(robot.duringLockout().isEmpty(), robot.duringLockout() + " sent while locked");
        assertEquals(0, second.dispatchers().get(0).metrics().undelivered.get());
        assertTrue(robot.accepted().stream().noneMatch(r -> r.at().isBefore(upAt)));
        assertWithinBudget(robot.requests());
      } finally {
        second.close();
      }
    }
  }

  /** A bridge with one robot of {@code kind} at {@code url} taking the alerts of {@code group}. */
  private AlertBridge bridgeAt(RobotKind kind, String group, String name, String url, String key) {
    BridgeConfig config =
        new BridgeConfig(
            Language.EN, BridgeConfig.DEFAULT_ZONE, null, Duration.ofHours(1), Map.of(), List.of());
    Route everything = new Route(Set.of(), Set.of(), Set.of(group), List.of(), Map.of(), List.of());
    RobotConfig r =
        new RobotConfig(
            name,
            kind.type(),
            url,
            null,
            null,
            kind.keyword(),
            false,
            20,
            List.of(everything),
            null,
            "it");
    RobotDispatcher dispatcher =
        Bridges.dispatcher(
            config,
            r,
            Bridges.robot(r, new Bridges.Secrets(key, kind.secret()), clock, new WebhookClient()),
            clock);
    Map<String, Object> client = new HashMap<>(SERDE);
    client.put("bootstrap.servers", broker.bootstrapServers());
    AlertBridge bridge =
        Bridges.kafka(
            kind.type(),
            List.of(dispatcher),
            client,
            group,
            FabricTopics.ALERTS,
            FabricTopics.DEAD_LETTERS,
            clock);
    bridge.start();
    return bridge;
  }

  @Test
  void aLockedDingTalkRobotGetsNoRequestUntilItsLockoutEnds() throws Exception {
    String secret = "SEC-it-locked";
    try (FakeDingTalkServer server =
        new FakeDingTalkServer(clock, "TOKEN-locked", secret, "fabricpulse")) {
      server.othersSent(
          20); // someone else used the robot's minute: the bridge's first send locks it
      List<Alert> alerts = storms("it-locked", "lk", 25);
      Route everything =
          new Route(Set.of(), Set.of(), Set.of("it-locked"), List.of(), Map.of(), List.of());
      RobotConfig r =
          new RobotConfig(
              "locked",
              RobotType.DINGTALK,
              server.url(),
              null,
              null,
              "fabricpulse",
              false,
              20,
              List.of(everything),
              null,
              "it");
      BridgeConfig config =
          new BridgeConfig(
              Language.EN,
              BridgeConfig.DEFAULT_ZONE,
              null,
              Duration.ofHours(1),
              Map.of(),
              List.of());
      RobotDispatcher dispatcher =
          Bridges.dispatcher(
              config,
              r,
              Bridges.robot(
                  r, new Bridges.Secrets("TOKEN-locked", secret), clock, new WebhookClient()),
              clock);
      Map<String, Object> client = new HashMap<>(SERDE);
      client.put("bootstrap.servers", broker.bootstrapServers());
      AlertBridge bridge =
          Bridges.kafka(
              RobotType.DINGTALK,
              List.of(dispatcher),
              client,
              "it-locked",
              FabricTopics.ALERTS,
              FabricTopics.DEAD_LETTERS,
              clock);
      bridge.start();
      Instant start = clock.instant();
      try {
        publish(alerts);
        runUntil(bridge, () -> !server.requests().isEmpty());
        assertEquals(130101, server.requests().get(0).errcode());
        runUntil(
            bridge,
            () ->
                deliveries(server, alerts, "/markdown/text").values().stream()
                    .allMatch(n -> n >= 1),
            Duration.ofSeconds(30));
      } finally {
        bridge.close();
      }
      List<Request> requests = server.requests();
      assertEquals(List.of(), server.duringLockout());
      assertEquals(1, dispatcher.metrics().throttled.get());
      // nothing between the throttle answer and the end of the 10-minute lockout
      Instant lockedUntil = requests.get(0).at().plus(Duration.ofMinutes(10));
      assertTrue(requests.stream().skip(1).noneMatch(q -> q.at().isBefore(lockedUntil)));
      assertTrue(!requests.get(0).at().isBefore(start));
      deliveries(server, alerts, "/markdown/text").forEach((id, n) -> assertEquals(1L, n, id));
    }
  }

  /** Every DeadLetter on {@code topic} so far. */
  private static List<DeadLetter> deadLetters(String topic) {
    AvroDeserializer<DeadLetter> decoder = new AvroDeserializer<>(DeadLetter.class);
    decoder.configure(SERDE, false);
    Map<String, Object> props =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            StringDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class);
    List<DeadLetter> letters = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        assertTrue(System.nanoTime() < deadline, "could not read " + topic);
        consumer
            .poll(Duration.ofMillis(200))
            .forEach(r -> letters.add(decoder.deserialize(topic, r.value())));
      }
    }
    return letters;
  }

  @Test
  void alertsARobotNeverTakesGoToUndeliveredAndCorruptRecordsToTheDeadLetters() throws Exception {
    try (FakeWeComServer server = new FakeWeComServer(clock, "KEY-gone")) {
      server.down(true);
      List<Alert> alerts = storms("it-give-up", "gu", 3);
      AlertBridge bridge = bridge("it-give-up", Map.of("gone", server), Duration.ofMinutes(5));
      try {
        publish(alerts);
        publishRaw("not-an-alert", "garbage".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        runUntil(bridge, () -> bridge.dispatchers().get(0).metrics().undelivered.get() == 3);
        // one more round commits the last transaction
        bridge.pollOnce(Duration.ofMillis(100));
      } finally {
        bridge.close();
      }
      List<DeadLetter> undelivered =
          deadLetters(BridgeTopics.UNDELIVERED).stream()
              .filter(d -> "bridge-wecom:gone".equals(d.getProcessor()))
              .toList();
      assertEquals(3, undelivered.size());
      assertTrue(
          undelivered.get(0).getReason().contains("HTTP 503"), undelivered.get(0).getReason());
      assertEquals(FabricTopics.ALERTS, undelivered.get(0).getTopic());
      List<DeadLetter> corrupt =
          deadLetters(FabricTopics.DEAD_LETTERS).stream()
              .filter(d -> "bridge-wecom".equals(d.getProcessor()))
              .toList();
      // every bridge group reads the shared topic: each one dead-letters the same record once
      assertTrue(!corrupt.isEmpty());
      assertEquals(1, corrupt.stream().map(DeadLetter::getOffset).distinct().count());
      assertEquals("cannot decode an Alert", corrupt.get(0).getReason());
      // settled: a new bridge of the group sends nothing
      server.down(false);
      AlertBridge again = bridge("it-give-up", Map.of("gone", server), Duration.ofMinutes(5));
      try {
        Instant until = clock.instant().plusSeconds(30);
        runUntil(again, () -> !clock.instant().isBefore(until));
      } finally {
        again.close();
      }
      assertTrue(server.accepted().isEmpty());
    }
  }

  private static void publishRaw(String key, byte[] value) {
    Map<String, Object> props =
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      producer.send(new ProducerRecord<>(FabricTopics.ALERTS, key, value));
      producer.flush();
    }
  }
}
