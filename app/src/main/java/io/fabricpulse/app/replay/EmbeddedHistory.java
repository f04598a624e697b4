package io.fabricpulse.app.replay;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.RegistrySnapshot;
import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;

/**
 * The history a {@code demo --data-dir D} left behind: the embedded broker started again on D
 * (127.0.0.1 only) and an in-process registry holding the schemas the demo saved beside its data,
 * so {@code export} and {@code replay} read it like any cluster.
 */
public final class EmbeddedHistory implements AutoCloseable {
  private final EmbeddedKafkaBroker broker;
  private final String registryUrl;

  private EmbeddedHistory(EmbeddedKafkaBroker broker, String registryUrl) {
    this.broker = broker;
    this.registryUrl = registryUrl;
  }

  /**
   * @throws IllegalArgumentException when {@code dataDir} holds no embedded broker's data
   */
  public static EmbeddedHistory open(Path dataDir) throws IOException {
    if (!Files.exists(dataDir.resolve("kafka").resolve("meta.properties"))) {
      throw new IllegalArgumentException(
          dataDir + ": no embedded Kafka data here (made by 'demo --data-dir " + dataDir + "')");
    }
    if (!Files.exists(dataDir.resolve(RegistrySnapshot.FILE))) {
      throw new IllegalArgumentException(
          dataDir
              + ": no "
              + RegistrySnapshot.FILE
              + " (the schemas of the records): was the demo stopped before it saved them?");
    }
    String scope = "history-" + UUID.randomUUID();
    RegistrySnapshot.restore(InMemorySchemaRegistry.forScope(scope), dataDir);
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dataDir, Duration.ofSeconds(60));
    return new EmbeddedHistory(broker, AvroSerdeConfig.MOCK_SCHEME + scope);
  }

  /** Client settings for the restarted broker, registry included. */
  public Properties clientProperties() {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    p.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl);
    return p;
  }

  @Override
  public void close() {
    broker.close();
  }
}
