package io.fabricpulse.app.testing;

import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatedAgents;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.RecordKeys;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * A seeded fault scenario as the topics of a live pipeline would hold it: the demo's simulated
 * fleet ({@link DemoFaults#scheduleAll}, every source through the agent's own tasks and parsers)
 * run through the whole {@link FabricTopology} (rate stage and every detector) in a
 * TopologyTestDriver, plus one corrupt raw record the rate stage sends to the dead-letter topic.
 * The result is every record of every topic, in the wire format of the topics (Confluent Avro with
 * the {@code registry} scope's schema ids), ready to be produced to a broker.
 *
 * <p>Which raw topic a collector record goes to is decided in {@link #rawTopicOf} only (the counter
 * topics all carry NodeCounters, told apart by their source).
 */
public final class FaultScenario {

  public static final Instant START = Instant.parse("2025-03-01T03:00:00Z");

  /** The schema registry scope of the records' schema ids. */
  public static final String REGISTRY = "mock://seeded-fault-scenario";

  private static FaultScenario seeded;

  /**
   * The scenario the dashboard and status page tests share, run once per test JVM: 16 nodes, seed
   * 42, every fault in a 60 s window, 20 s after it.
   */
  public static synchronized FaultScenario seeded() throws IOException, RuleValidationException {
    if (seeded == null) {
      Path root = repoRoot();
      seeded =
          run(
              16,
              42,
              Duration.ofSeconds(60),
              Duration.ofSeconds(20),
              REGISTRY,
              root.resolve("alert-rules"),
              Files.createTempDirectory("seeded-fault-scenario"));
    }
    return seeded;
  }

  /** The reactor root (holding pom.xml and .mvn), found upwards from user.dir. */
  public static Path repoRoot() {
    Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (d != null) {
      if (Files.exists(d.resolve("pom.xml")) && Files.isDirectory(d.resolve(".mvn"))) {
        return d;
      }
      d = d.getParent();
    }
    throw new IllegalStateException("no reactor root above " + System.getProperty("user.dir"));
  }

  /** Records of every topic, raw inputs first, then what the topology wrote. */
  public final List<ProducerRecord<String, byte[]>> records = new ArrayList<>();

  public final List<InjectedFault> faults;
  public final Instant end;

  private FaultScenario(List<InjectedFault> faults, Instant end) {
    this.faults = faults;
    this.end = end;
  }

  /**
   * Runs {@code nodes} simulated nodes with one fault of every kind in {@code window}, sampled
   * every second until {@code tail} after it.
   */
  static FaultScenario run(
      int nodes,
      long seed,
      Duration window,
      Duration tail,
      String registry,
      Path rules,
      Path stateDir)
      throws IOException, RuleValidationException {
    FabricSimulator sim =
        new FabricSimulator(SimulatorConfig.infiniband("demo", nodes, seed, START));
    List<InjectedFault> faults = DemoFaults.scheduleAll(sim, START.plusSeconds(5), window);
    SimulatedAgents agents = new SimulatedAgents(sim);
    long lastSecond = 5 + window.toSeconds() + tail.toSeconds();
    FaultScenario scenario = new FaultScenario(faults, START.plusSeconds(lastSecond));

    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, FabricTopology.APPLICATION_ID);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir).toString());
    FabricTopics topics = FabricTopics.defaults();
    var topology =
        FabricTopology.build(topics, registry, RuleSet.load(rules), RateConfig.defaults(), props);
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, START)) {
      Map<String, TestInputTopic<String, byte[]>> inputs = new HashMap<>();
      List<TopicSpec> read = new ArrayList<>(topics.raw());
      read.add(topics.topology());
      for (TopicSpec spec : read) {
        inputs.put(
            spec.name(),
            driver.createInputTopic(
                spec.name(), new StringSerializer(), new ByteArraySerializer()));
      }
      Map<Class<?>, Serializer<SpecificRecord>> serializers = serializers(topics, registry);
      for (long s = 0; s <= lastSecond; s++) {
        for (SimulatedAgents.HostRecords host : agents.collect(START.plusSeconds(s))) {
          for (SpecificRecord r : host.records()) {
            if (r instanceof FabricLinkChange) {
              continue; // fabric.topology.changes: for people, no pipeline input
            }
            String topic = topics.topicOf(r).name();
            byte[] value = serializers.get(r.getClass()).serialize(topic, r);
            long time = timeOf(r);
            String key = RecordKeys.keyOf(r);
            inputs.get(topic).pipeInput(key, value, time);
            scenario.records.add(new ProducerRecord<>(topic, null, time, key, value));
          }
        }
        if (s == 30) {
          // a record no schema can read: the rate stage must dead-letter it, not stop
          byte[] corrupt = "not avro".getBytes(StandardCharsets.UTF_8);
          long time = START.plusSeconds(s).toEpochMilli();
          inputs.get(topics.portCounters().name()).pipeInput("demo/gpu001", corrupt, time);
          scenario.records.add(
              new ProducerRecord<>(
                  topics.portCounters().name(), null, time, "demo/gpu001", corrupt));
        }
      }
      if (agents.malformed() != 0 || agents.failures() != 0) {
        throw new IllegalStateException(
            "simulated agents: "
                + agents.malformed()
                + " malformed, "
                + agents.failures()
                + " failed");
      }
      scenario.records.addAll(outputs(driver, topics, Set.of()));
    }
    return scenario;
  }

  /**
   * What the topology of {@code driver} wrote to every topic that is neither raw nor in {@code
   * inputs}, topic by topic, ready to be produced to a broker.
   */
  public static List<ProducerRecord<String, byte[]>> outputs(
      TopologyTestDriver driver, FabricTopics topics, Set<TopicSpec> inputs) {
    List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
    for (TopicSpec spec : topics.all()) {
      if (topics.raw().contains(spec) || inputs.contains(spec)) {
        continue;
      }
      for (TestRecord<String, byte[]> out :
          driver
              .createOutputTopic(spec.name(), new StringDeserializer(), new ByteArrayDeserializer())
              .readRecordsToList()) {
        records.add(
            new ProducerRecord<>(
                spec.name(),
                null,
                out.getRecordTime().toEpochMilli(),
                out.getKey(),
                out.getValue()));
      }
    }
    return records;
  }

  /** Number of records of {@code topic}. */
  public long count(String topic) {
    return records.stream().filter(r -> r.topic().equals(topic)).count();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Map<Class<?>, Serializer<SpecificRecord>> serializers(
      FabricTopics topics, String registry) {
    Map<Class<?>, Serializer<SpecificRecord>> serializers = new HashMap<>();
    List<TopicSpec> written = new ArrayList<>(topics.raw());
    written.add(topics.topology());
    for (TopicSpec spec : written) {
      serializers.put(
          spec.valueType(),
          (Serializer) AvroSerde.forValues(spec.valueType(), registry).serializer());
    }
    return serializers;
  }

  private static long timeOf(SpecificRecord r) {
    Object time = r.get(r.getSchema().getField("time").pos());
    return time instanceof Instant i ? i.toEpochMilli() : (Long) time;
  }
}
