package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Option;

/**
 * Kafka connection options shared by the long-running commands. Precedence, lowest first: the
 * properties file, then {@code KAFKA_*} environment variables ({@code KAFKA_SASL_JAAS_CONFIG} ->
 * {@code sasl.jaas.config}), then the explicit options. Secrets belong in the environment or the
 * file, never on the command line; they are never printed.
 */
public final class KafkaOptions {

  @Option(
      names = "--bootstrap-servers",
      paramLabel = "HOST:PORT,...",
      description = {
        "Required: the Kafka brokers; or bootstrap.servers",
        "in --kafka-config, or KAFKA_BOOTSTRAP_SERVERS."
      })
  String bootstrapServers;

  @Option(
      names = "--schema-registry-url",
      paramLabel = "URL",
      description = {
        "Required: a Confluent-compatible schema registry;",
        "or schema.registry.url in --kafka-config.",
        "mock://NAME is an in-process registry."
      })
  String registryUrl;

  @Option(
      names = "--kafka-config",
      paramLabel = "FILE",
      description = "Kafka client settings (TLS, SASL, ...) file.")
  Path kafkaConfig;

  /** The synopsis of a command with these options: they are required, from one place or another. */
  static final String SYNOPSIS = "--bootstrap-servers=HOST:PORT,... --schema-registry-url=URL";

  /** Kafka Streams' prefixes for settings of one of its clients, or of its internal topics. */
  private static final List<String> CLIENT_PREFIXES =
      List.of(
          StreamsConfig.MAIN_CONSUMER_PREFIX,
          StreamsConfig.RESTORE_CONSUMER_PREFIX,
          StreamsConfig.GLOBAL_CONSUMER_PREFIX,
          StreamsConfig.CONSUMER_PREFIX,
          StreamsConfig.PRODUCER_PREFIX,
          StreamsConfig.ADMIN_CLIENT_PREFIX);

  /**
   * A key of the file that no Kafka client (producer, consumer, admin, Streams) and not the
   * registry's serdes know is a typo that would be ignored (the clients only log unused settings):
   * refused with its line, e.g. {@code kafka.properties:4: sasl.mechansim: not a Kafka client or
   * schema registry setting}.
   */
  static void refuseUnknownKeys(Path file, Properties props) {
    for (String key : new java.util.TreeSet<>(props.stringPropertyNames())) {
      if (!knownKey(key)) {
        throw new CliFailure(
            ExitCodes.USAGE,
            file
                + ":"
                + lineOf(file, key)
                + ": "
                + key
                + ": not a Kafka client or schema registry setting");
      }
    }
  }

  static boolean knownKey(String key) {
    if (AvroSerdeConfig.isSerdeSetting(key) || key.startsWith(StreamsConfig.TOPIC_PREFIX)) {
      return true;
    }
    for (String prefix : CLIENT_PREFIXES) {
      if (key.startsWith(prefix)) {
        return clientKey(key.substring(prefix.length()));
      }
    }
    return clientKey(key) || StreamsConfig.configDef().names().contains(key);
  }

  private static boolean clientKey(String key) {
    return ProducerConfig.configNames().contains(key)
        || ConsumerConfig.configNames().contains(key)
        || AdminClientConfig.configNames().contains(key);
  }

  /**
   * The line of the file where {@code key} is set (the first; 0 when not found): the key of a
   * properties line ends at the first unescaped '=', ':' or blank (java.util.Properties#load).
   */
  private static int lineOf(Path file, String key) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, java.nio.charset.StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      return 0;
    }
    boolean continued = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).stripLeading();
      boolean startsEntry = !continued;
      int backslashes = 0;
      for (int j = line.length() - 1; j >= 0 && line.charAt(j) == '\\'; j--) {
        backslashes++;
      }
      continued = backslashes % 2 == 1;
      if (!startsEntry || line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
        continue;
      }
      StringBuilder name = new StringBuilder();
      for (int j = 0; j < line.length(); j++) {
        char c = line.charAt(j);
        if (c == '\\' && j + 1 < line.length()) {
          name.append(line.charAt(++j));
        } else if (c == '=' || c == ':' || Character.isWhitespace(c)) {
          break;
        } else {
          name.append(c);
        }
      }
      if (name.toString().equals(key)) {
        return i + 1;
      }
    }
    return 0;
  }

  /**
   * The merged client settings, registry keys included.
   *
   * @throws CliFailure when the file cannot be read or a required setting is missing
   */
  Properties clientProperties(Map<String, String> env) {
    Properties props = new Properties();
    if (kafkaConfig != null) {
      try (Reader in = Files.newBufferedReader(kafkaConfig)) {
        props.load(in);
      } catch (IOException e) {
        throw new CliFailure(ExitCodes.USAGE, kafkaConfig + ": cannot read: " + IoReason.of(e));
      } catch (IllegalArgumentException e) {
        // Properties#load: a malformed unicode escape
        throw new CliFailure(
            ExitCodes.USAGE, kafkaConfig + ": not a properties file: " + e.getMessage());
      }
      refuseUnknownKeys(kafkaConfig, props);
    }
    env.forEach(
        (name, value) -> {
          if (name.startsWith("KAFKA_")
              && name.length() > 6
              && !name.equals("KAFKA_HOME")
              && !name.equals("KAFKA_OPTS")
              && !name.equals("KAFKA_HEAP_OPTS")) {
            props.put(name.substring(6).toLowerCase(Locale.ROOT).replace('_', '.'), value);
          }
        });
    if (bootstrapServers != null) {
      props.put("bootstrap.servers", bootstrapServers);
    }
    if (registryUrl != null) {
      props.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl);
    }
    if (!props.containsKey("bootstrap.servers")) {
      throw new CliFailure(
          ExitCodes.USAGE,
          "--bootstrap-servers: required (or bootstrap.servers in --kafka-config, or"
              + " KAFKA_BOOTSTRAP_SERVERS)");
    }
    if (!props.containsKey(AvroSerdeConfig.SCHEMA_REGISTRY_URL)) {
      throw new CliFailure(
          ExitCodes.USAGE,
          "--schema-registry-url: required (or schema.registry.url in --kafka-config)");
    }
    return props;
  }
}
