package io.fabricpulse.app.cli;

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
      description =
          "Kafka bootstrap servers (or bootstrap.servers in --kafka-config / KAFKA_BOOTSTRAP_SERVERS).")
  String bootstrapServers;

  @Option(
      names = "--schema-registry-url",
      description =
          "Confluent-compatible schema registry URL (mock://scope for an in-process one).")
  String registryUrl;

  @Option(
      names = "--kafka-config",
      description = "Properties file of Kafka client settings (TLS, SASL, compression, ...).")
  Path kafkaConfig;

  /** The merged client settings, registry keys included. */
  Properties clientProperties(Map<String, String> env) throws IOException {
    Properties props = new Properties();
    if (kafkaConfig != null) {
      try (Reader in = Files.newBufferedReader(kafkaConfig)) {
        props.load(in);
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
      throw new IllegalArgumentException(
          "no Kafka: give --bootstrap-servers, bootstrap.servers in --kafka-config, or KAFKA_BOOTSTRAP_SERVERS");
    }
    if (!props.containsKey(AvroSerdeConfig.SCHEMA_REGISTRY_URL)) {
      throw new IllegalArgumentException(
          "no schema registry: give --schema-registry-url or schema.registry.url in --kafka-config");
    }
    return props;
  }
}
