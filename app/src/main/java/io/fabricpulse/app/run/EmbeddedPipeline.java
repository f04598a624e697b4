package io.fabricpulse.app.run;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.RegistrySnapshot;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.sinks.influx.InfluxSink;
import io.fabricpulse.sinks.influx.InfluxSinkConfig;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline in one JVM on real parts: a KRaft broker, the in-process registry, the streams
 * application and the time-series sink writing to an embedded QuestDB (or a given InfluxDB). Used
 * by {@code demo} and by the end-to-end tests, so both run exactly the same wiring.
 */
public final class EmbeddedPipeline implements AutoCloseable {

  /** Where the sink writes when not to the embedded QuestDB. */
  public record InfluxTarget(String url, String org, String bucket, char[] token) {
    @Override
    public String toString() {
      return "InfluxTarget[url=" + url + ", org=" + org + ", bucket=" + bucket + ", token=***]";
    }
  }

  /**
   * @param rulesDir null for the bundled alert-rules/
   */
  public record Options(
      Path dataDir, String registryUrl, int partitions, InfluxTarget influx, Path rulesDir) {}

  private final Options options;
  private final FabricTopics topics;
  private RuleSet rules;
  private EmbeddedKafkaBroker broker;
  private EmbeddedQuestDb questDb;
  private StreamsRunner streams;
  private InfluxSink sink;
  private Thread sinkThread;
  private InfluxSinkConfig sinkConfig;
  private int ratesPartitions;

  private EmbeddedPipeline(Options options) {
    this.options = options;
    this.topics = FabricTopics.defaults("", options.partitions());
  }

  /** Starts every part, reporting each step to {@code progress} (one human line each). */
  public static EmbeddedPipeline start(Options options, Consumer<String> progress)
      throws IOException, InterruptedException {
    EmbeddedPipeline pipeline = new EmbeddedPipeline(options);
    try {
      pipeline.startParts(progress);
      return pipeline;
    } catch (IOException | InterruptedException | RuntimeException e) {
      pipeline.close();
      throw e;
    }
  }

  /**
   * Starts only the broker (with the topics), the store and the rules; {@link #startStreams} and
   * {@link #startSink} start the rest when the caller is ready, e.g. after {@code bench} has
   * preloaded the raw topics.
   */
  public static EmbeddedPipeline startBroker(Options options, Consumer<String> progress)
      throws IOException, InterruptedException {
    EmbeddedPipeline pipeline = new EmbeddedPipeline(options);
    try {
      pipeline.startBrokerAndStore(progress);
      return pipeline;
    } catch (IOException | InterruptedException | RuntimeException e) {
      pipeline.close();
      throw e;
    }
  }

  private void startParts(Consumer<String> progress) throws IOException, InterruptedException {
    startBrokerAndStore(progress);
    startStreams(progress);
    startSink(progress);
  }

  private void startBrokerAndStore(Consumer<String> progress)
      throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    // the records a previous run left in the data directory name their schemas by id
    if (inProcessRegistry() != null) {
      RegistrySnapshot.restore(inProcessRegistry(), options.dataDir());
    }
    broker = EmbeddedKafkaBroker.start(options.dataDir(), Duration.ofSeconds(60));
    try (Admin admin = Admin.create(adminConfig())) {
      TopicBootstrap.ensure(admin, topics, (short) 1);
      ratesPartitions = TopicBootstrap.partitionsOf(admin, topics.rates().name());
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("cannot create topics: " + e.getMessage(), e);
    }
    progress.accept(
        String.format(
            "kafka     %s (KRaft, in-process), %d topics ready in %.1f s",
            broker.bootstrapServers(), topics.all().size(), seconds(t0)));
    progress.accept("registry  " + options.registryUrl() + " (Confluent wire format)");

    long t1 = System.nanoTime();
    if (options.influx() == null) {
      questDb = EmbeddedQuestDb.start(options.dataDir().resolve("questdb"));
      sinkConfig = InfluxSinkConfig.of(questDb.url(), "fabricpulse", "fabricpulse", new char[0]);
      progress.accept(
          String.format(
              "store     QuestDB %s (in-process, InfluxDB v2 write API) ready in %.1f s",
              questDb.url(), seconds(t1)));
    } else {
      InfluxTarget t = options.influx();
      sinkConfig = InfluxSinkConfig.of(t.url(), t.org(), t.bucket(), t.token());
      progress.accept(
          "store     InfluxDB " + t.url() + " org " + t.org() + " bucket " + t.bucket());
    }

    try {
      rules = BundledRules.load(options.rulesDir(), options.dataDir());
    } catch (RuleValidationException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** Starts the streams application (every detector, exactly once) and waits for RUNNING. */
  public void startStreams(Consumer<String> progress) throws InterruptedException {
    long t2 = System.nanoTime();
    streams =
        newStreamsInstance(options.dataDir().resolve("streams")).start(Duration.ofSeconds(60));
    progress.accept(
        String.format(
            "streams   %s RUNNING in %.1f s", FabricTopology.APPLICATION_ID, seconds(t2)));
  }

  /**
   * Another instance of the same streams application (same id, topology and rules, its own state
   * directory), not started: the instance-loss test shares the work between two and stops one. The
   * caller closes it.
   */
  public StreamsRunner newStreamsInstance(Path stateDir) {
    Properties settings =
        StreamsSettings.base(
            FabricTopology.APPLICATION_ID,
            broker.bootstrapServers(),
            stateDir,
            StreamsSettings.Guarantee.EXACTLY_ONCE_V2);
    settings.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
    settings.put(StreamsSettings.RATES_PARTITIONS, Integer.toString(ratesPartitions));
    settings.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    return new StreamsRunner(
        FabricTopology.build(topics, options.registryUrl(), rules, RateConfig.defaults(), settings),
        settings);
  }

  /** Starts the time-series sink on its own thread, from the derived topics' beginning. */
  public void startSink(Consumer<String> progress) {
    Map<String, Object> consumer = new HashMap<>();
    consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    consumer.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, options.registryUrl());
    sink = InfluxSink.create(sinkConfig, consumer);
    sinkThread = new Thread(sink, "influx-sink");
    sinkThread.setDaemon(true);
    sinkThread.start();
    progress.accept("sink      fabric.rates + fabric.alerts -> time-series store");
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  public String bootstrapServers() {
    return broker.bootstrapServers();
  }

  /** The embedded broker (the fault tests stop and restart it). */
  public EmbeddedKafkaBroker broker() {
    return broker;
  }

  public String registryUrl() {
    return options.registryUrl();
  }

  /** The rules the streams application runs with. */
  public RuleSet rules() {
    return rules;
  }

  public FabricTopics topics() {
    return topics;
  }

  /** The embedded QuestDB, or null when writing to an external InfluxDB. */
  public EmbeddedQuestDb questDb() {
    return questDb;
  }

  public InfluxSink sink() {
    return sink;
  }

  public StreamsRunner streams() {
    return streams;
  }

  public Properties adminConfig() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    return p;
  }

  /** Producer settings for collectors publishing to this pipeline (serde keys included). */
  public Properties producerConfig() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, options.registryUrl());
    return p;
  }

  /** Consumer settings for watchers (serde keys included). */
  public Properties consumerConfig(String groupId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, options.registryUrl());
    return p;
  }

  /** The in-process registry of a {@code mock://} URL, else null. */
  private InMemorySchemaRegistry inProcessRegistry() {
    String url = options.registryUrl();
    return url.startsWith(AvroSerdeConfig.MOCK_SCHEME)
        ? InMemorySchemaRegistry.forScope(url.substring(AvroSerdeConfig.MOCK_SCHEME.length()))
        : null;
  }

  @Override
  public void close() {
    if (inProcessRegistry() != null && broker != null) {
      try {
        RegistrySnapshot.save(inProcessRegistry(), options.dataDir());
      } catch (IOException e) {
        LoggerFactory.getLogger(EmbeddedPipeline.class)
            .warn(
                "cannot keep the schemas beside the data in {}: {}",
                options.dataDir(),
                e.toString());
      }
    }
    if (sink != null) {
      sink.close();
      joinQuietly(sinkThread);
    }
    if (streams != null) {
      streams.close();
    }
    if (broker != null) {
      broker.close();
    }
    if (questDb != null) {
      questDb.close();
    }
  }

  private static void joinQuietly(Thread thread) {
    if (thread == null) {
      return;
    }
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
