package io.fabricpulse.app.cli;

import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.app.run.BundledRules;
import io.fabricpulse.app.run.StreamsRunner;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fabricpulse streams}: the rate stage and every detector as one Kafka Streams application
 * against a real cluster. Scale out by starting more instances with the same application id.
 */
@Command(
    name = "streams",
    mixinStandardHelpOptions = true,
    description = {
      "Run the rate stage and every detector against a Kafka cluster until SIGTERM.",
      "Creates the pipeline's topics if missing (idempotent), loads and validates the rules first."
    })
public final class StreamsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin KafkaOptions kafka;

  @Option(
      names = "--application-id",
      defaultValue = FabricTopology.APPLICATION_ID,
      description = "Kafka Streams application id (default ${DEFAULT-VALUE}).")
  String applicationId;

  @Option(
      names = "--state-dir",
      defaultValue = "fabricpulse-state",
      description = "Local state of the stores (default ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(names = "--rules", description = "Rules directory (default: the bundled alert-rules/).")
  Path rulesDir;

  @Option(
      names = "--partitions",
      defaultValue = "6",
      description =
          "Partitions of the high-volume topics when creating them (default ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--replication-factor",
      defaultValue = "3",
      description = "Replication factor of topics created here (default ${DEFAULT-VALUE}).")
  short replicationFactor;

  @Option(
      names = "--guarantee",
      defaultValue = "EXACTLY_ONCE_V2",
      description = "EXACTLY_ONCE_V2 or AT_LEAST_ONCE (default ${DEFAULT-VALUE}).")
  StreamsSettings.Guarantee guarantee;

  @Option(
      names = "--threads",
      defaultValue = "2",
      description = "Stream threads (default ${DEFAULT-VALUE}).")
  int threads;

  /** Counted down by SIGTERM/Ctrl-C (or a test) to stop the application. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    Properties client = kafka.clientProperties(System.getenv());
    String registry = client.getProperty(AvroSerdeConfig.SCHEMA_REGISTRY_URL);
    FabricTopics topics = FabricTopics.defaults("", partitions);
    RuleSet rules;
    try {
      Files.createDirectories(stateDir);
      rules = BundledRules.load(rulesDir, stateDir);
    } catch (RuleValidationException e) {
      e.problems().forEach(spec.commandLine().getErr()::println);
      return 2;
    }
    int ratesPartitions;
    try (Admin admin = Admin.create(client)) {
      TopicBootstrap.ensure(admin, topics, replicationFactor);
      ratesPartitions = TopicBootstrap.partitionsOf(admin, topics.rates().name());
    }
    Properties settings =
        StreamsSettings.base(
            applicationId, client.getProperty("bootstrap.servers"), stateDir, guarantee);
    settings.put(StreamsSettings.RATES_PARTITIONS, Integer.toString(ratesPartitions));
    client.forEach(
        (k, v) -> {
          if (!k.toString().startsWith("schema.registry.") && !settings.containsKey(k)) {
            settings.put(k, v);
          }
        });
    settings.put("num.stream.threads", threads);
    Thread hook = new Thread(stop::countDown, "streams-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (StreamsRunner runner =
        new StreamsRunner(
            FabricTopology.build(topics, registry, rules, RateConfig.defaults(), settings),
            settings)) {
      runner.start(Duration.ofMinutes(2));
      spec.commandLine()
          .getOut()
          .printf(
              "%s RUNNING against %s with %d rules; Ctrl-C or SIGTERM stops%n",
              applicationId, client.getProperty("bootstrap.servers"), rules.all().size());
      spec.commandLine().getOut().flush();
      while (!stop.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
        if (runner.failure() != null) {
          spec.commandLine().getErr().println("stream thread failed: " + runner.failure());
          return 1;
        }
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is what stopped us
      }
    }
    return 0;
  }
}
