package io.fabricpulse.bridges;

import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.BridgeConfigException;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.SecretRef;
import io.fabricpulse.bridges.delivery.AlertBridge;
import io.fabricpulse.bridges.delivery.BridgeTopics;
import io.fabricpulse.bridges.delivery.DeliveryLedger;
import io.fabricpulse.bridges.delivery.Robot;
import io.fabricpulse.bridges.delivery.RobotDispatcher;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.dingtalk.DingTalkRobot;
import io.fabricpulse.bridges.render.MessagePacker;
import io.fabricpulse.bridges.render.MessageRenderer;
import io.fabricpulse.bridges.wecom.WeComRobot;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Builds the robots, dispatchers and the Kafka bridge of one robot type from bridge.yaml. */
public final class Bridges {
  /** The consumer group (and transactional id) of a bridge type, unless given. */
  public static String defaultGroupId(RobotType type) {
    return "fabricpulse-bridge-" + type.configName();
  }

  private Bridges() {}

  /** The secrets of one robot, resolved from the environment or files. */
  public record Secrets(String key, String signSecret) {
    @Override
    public String toString() {
      return "Secrets[***]";
    }
  }

  /**
   * Resolves every robot's secrets of {@code type}.
   *
   * @throws BridgeConfigException naming the robot's line and key for each one missing
   */
  public static Map<String, Secrets> secrets(
      BridgeConfig config, RobotType type, Map<String, String> env) throws BridgeConfigException {
    Map<String, Secrets> out = new HashMap<>();
    List<String> problems = new ArrayList<>();
    for (RobotConfig r : config.robotsOf(type)) {
      String key = resolve(r, r.key(), type == RobotType.WECOM ? "key" : "token", env, problems);
      String sign =
          r.signSecret() == null ? null : resolve(r, r.signSecret(), "secret", env, problems);
      out.put(r.name(), new Secrets(key, sign));
    }
    if (!problems.isEmpty()) {
      throw new BridgeConfigException(problems);
    }
    return out;
  }

  private static String resolve(
      RobotConfig robot,
      SecretRef ref,
      String what,
      Map<String, String> env,
      List<String> problems) {
    try {
      return ref.resolve(env);
    } catch (IOException e) {
      String source = ref.env() != null ? what + "_env" : what + "_file";
      String setting =
          ref.origin() != null ? ref.origin() : robot.where() + ": " + robot.name() + "." + source;
      problems.add(setting + ": " + e.getMessage());
      return null;
    }
  }

  /** This host's name, for the published counters of a bridge without a client.id. */
  static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      String env = System.getenv("HOSTNAME");
      return env == null || env.isBlank() ? "unknown" : env;
    }
  }

  /** The robot client of one configured robot. */
  public static Robot robot(RobotConfig r, Secrets secrets, Clock clock, WebhookClient client) {
    return switch (r.type()) {
      case WECOM -> new WeComRobot(r.name(), r.url(), secrets.key(), r.wecomText(), client);
      case DINGTALK ->
          new DingTalkRobot(
              r.name(), r.url(), secrets.key(), secrets.signSecret(), r.keyword(), clock, client);
    };
  }

  public static MessagePacker packer(BridgeConfig config) {
    return new MessagePacker(
        new MessageRenderer(
            config.language(), config.zone(), config.grafanaUrl(), config.templates()));
  }

  public static RobotDispatcher dispatcher(
      BridgeConfig config, RobotConfig r, Robot robot, Clock clock) {
    return new RobotDispatcher(
        r, robot, packer(config), clock, config.giveUpAfter(), config.zone());
  }

  /**
   * The Kafka bridge for {@code dispatchers}: a read_committed consumer in {@code groupId}, a
   * transactional producer with the same id, and the ledger reader.
   *
   * @param client Kafka client settings and the serde's {@code schema.registry.*} keys
   */
  public static AlertBridge kafka(
      RobotType type,
      List<RobotDispatcher> dispatchers,
      Map<String, Object> client,
      String groupId,
      String alertsTopic,
      String deadLetterTopic,
      Clock clock) {
    Map<String, Object> kafka = new HashMap<>(client);
    kafka
        .keySet()
        .removeIf(
            k ->
                k.startsWith("schema.registry.")
                    || k.contains(".avro.")
                    || k.equals("auto.register.schemas")
                    || k.equals("use.latest.version")
                    || k.equals("basic.auth.user.info"));
    Map<String, Object> consumer = new HashMap<>(kafka);
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    consumer.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    Map<String, Object> reader = new HashMap<>(consumer);
    reader.remove(ConsumerConfig.GROUP_ID_CONFIG);
    Map<String, Object> producer = new HashMap<>(kafka);
    producer.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, groupId);
    producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    producer.put(ProducerConfig.ACKS_CONFIG, "all");
    producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
    producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    Object clientId = client.get("client.id");
    return new AlertBridge(
        alertsTopic,
        deadLetterTopic,
        type.configName(),
        clientId == null ? hostName() : clientId.toString(),
        dispatchers,
        new KafkaConsumer<>(consumer),
        new KafkaProducer<>(producer),
        new DeliveryLedger(new KafkaConsumer<>(reader), BridgeTopics.DELIVERED),
        client,
        clock);
  }
}
