package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
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
      }
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
