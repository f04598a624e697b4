package io.fabricpulse.bench;

import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.sysfs.SysfsSnapshot;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.ValueSerdes;
import io.fabricpulse.streams.rates.CounterSemantics;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rates.RateTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The rate stage ({@link RateTopology}, exactly as production builds it, with its RocksDB store)
 * driven by {@link TopologyTestDriver}: Avro decode, store get/put, {@link CounterSemantics} on
 * every counter, CounterRates encode. No broker: no consumer fetch, producer send or replication.
 * TopologyTestDriver also commits after every record, which production does only every commit
 * interval.
 *
 * <p>{@code baselineOneSecond} drives {@link DriverBaselineTopology} (same shape, no work) with the
 * same samples: the difference between the two is what the rate stage itself costs.
 *
 * <p>Each invocation pipes one simulated second of 8 RoCE nodes (64 port samples, each 1 s after
 * the previous sample of its port); the samples are read and encoded in the untimed per-invocation
 * setup. The score is port samples per second (one op = one sample).
 *
 * <p>{@code layout} compares the two contracts on the same samples: {@code NODE} = contract 0.2,
 * one NodeCounters per node cycle (8 records per second here); {@code PORT} = contract 0.1, one
 * PortCounters per port (64 records per second).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
public class RateStageBenchmark {

  static final int NODES = 8;
  static final int SAMPLES_PER_SECOND = NODES * CollectionCycleBenchmark.HCAS;
  private static final Instant START = Instant.parse("2025-01-23T17:07:40Z");
  private static final String REGISTRY = "mock://bench-rate-stage";

  /** How the samples travel: one record per node cycle (0.2) or one per port (0.1). */
  public enum Layout {
    NODE,
    PORT
  }

  @Param({"NODE", "PORT"})
  public Layout layout;

  private final FabricTopics topics = FabricTopics.defaults();
  private FabricSimulator simulator;
  private final List<SysfsPortCounterReader> readers = new ArrayList<>();
  private final List<AtomicLong> sequences = new ArrayList<>();
  private Serializer<PortCounters> serializer;
  private Serializer<NodeCounters> nodeSerializer;
  private int recordsPerSecond;
  private Path stateDir;
  private TopologyTestDriver driver;
  private TestInputTopic<String, byte[]> portIn;
  private TestOutputTopic<String, byte[]> ratesOut;
  private TestOutputTopic<String, byte[]> deadLettersOut;
  private Path baselineStateDir;
  private TopologyTestDriver baselineDriver;
  private TestInputTopic<String, byte[]> baselineIn;
  private TestOutputTopic<String, byte[]> baselineOut;

  private Instant now;
  private final String[] keys = new String[SAMPLES_PER_SECOND];
  private long records;
  private final String[] subjects = new String[SAMPLES_PER_SECOND];
  private final byte[][] values = new byte[SAMPLES_PER_SECOND][];
  private long rated;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    simulator = new FabricSimulator(SimulatorConfig.roce("bench", NODES, 42L, START));
    for (String node : simulator.nodes()) {
      readers.add(new SysfsPortCounterReader(simulator.nodeTree(node)));
      sequences.add(new AtomicLong());
    }
    now = START;
    ValueSerdes serdes = ValueSerdes.registry(REGISTRY);
    serializer = serdes.forValues(PortCounters.class).serializer();
    nodeSerializer = serdes.forValues(NodeCounters.class).serializer();
    stateDir = Files.createTempDirectory("fabricpulse-bench-rates");
    RateConfig ports =
        new RateConfig(
            EnumSet.of(RateSource.PORT), CounterSemantics.DEFAULT_WRAP_PLAUSIBLE_FRACTION);
    driver =
        new TopologyTestDriver(
            RateTopology.build(topics, serdes, ports),
            StreamsSettings.base("fabricpulse-rates-bench", "127.0.0.1:9", stateDir),
            START);
    portIn =
        driver.createInputTopic(
            topics.portCounters().name(), new StringSerializer(), new ByteArraySerializer());
    ratesOut =
        driver.createOutputTopic(
            topics.rates().name(), new StringDeserializer(), new ByteArrayDeserializer());
    deadLettersOut =
        driver.createOutputTopic(
            topics.deadLetters().name(), new StringDeserializer(), new ByteArrayDeserializer());
    baselineStateDir = Files.createTempDirectory("fabricpulse-bench-baseline");
    baselineDriver =
        new TopologyTestDriver(
            DriverBaselineTopology.build(),
            StreamsSettings.base("fabricpulse-baseline-bench", "127.0.0.1:9", baselineStateDir),
            START);
    baselineIn =
        baselineDriver.createInputTopic(
            DriverBaselineTopology.INPUT, new StringSerializer(), new ByteArraySerializer());
    baselineOut =
        baselineDriver.createOutputTopic(
            DriverBaselineTopology.OUTPUT, new StringDeserializer(), new ByteArrayDeserializer());
  }

  /** The next simulated second of every node, read and encoded as the agent would publish it. */
  @Setup(Level.Invocation)
  public void nextSecond() {
    now = now.plusSeconds(1);
    simulator.advanceTo(now);
    int i = 0;
    int samples = 0;
    for (int n = 0; n < NODES; n++) {
      String node = simulator.nodes().get(n);
      SampleContext context = new SampleContext(simulator.identity(node), now, sequences.get(n));
      List<PortCounters> ports =
          readers.get(n).read(SampleContext.of(context.identity(), now)).records();
      samples += ports.size();
      if (layout == Layout.NODE) {
        keys[i] = context.identity().key();
        subjects[i] = keys[i];
        NodeCounters cycle =
            NodeRecords.ofPorts(
                new NodeRecords.Cycle(
                    context.cluster(), context.node(), context.bootId(), context.nextSeq(), now),
                RateSource.PORT,
                ports);
        values[i] = nodeSerializer.serialize(topics.portCounters().name(), cycle);
        i++;
        continue;
      }
      for (PortCounters port : ports) {
        PortCounters numbered = PortCounters.newBuilder(port).setSeq(context.nextSeq()).build();
        keys[i] = context.identity().key();
        subjects[i] = keys[i] + "/" + port.getDevice() + "/" + port.getPort();
        values[i] = serializer.serialize(topics.portCounters().name(), numbered);
        i++;
      }
    }
    if (samples != SAMPLES_PER_SECOND) {
      throw new IllegalStateException(
          "expected " + SAMPLES_PER_SECOND + " samples, got " + samples);
    }
    recordsPerSecond = i;
  }

  @Benchmark
  @OperationsPerInvocation(SAMPLES_PER_SECOND)
  public void rateOneSecond(Blackhole blackhole) {
    for (int i = 0; i < recordsPerSecond; i++) {
      portIn.pipeInput(keys[i], values[i], now);
    }
    records += recordsPerSecond;
    while (!ratesOut.isEmpty()) {
      blackhole.consume(ratesOut.readRecord());
      rated++;
    }
  }

  @Benchmark
  @OperationsPerInvocation(SAMPLES_PER_SECOND)
  public void baselineOneSecond(Blackhole blackhole) {
    for (int i = 0; i < recordsPerSecond; i++) {
      baselineIn.pipeInput(subjects[i], values[i], now);
    }
    records += recordsPerSecond;
    while (!baselineOut.isEmpty()) {
      blackhole.consume(baselineOut.readRecord());
      rated++;
    }
  }

  /** Every raw record must have come out (one rates record each) and none as a dead letter. */
  @TearDown(Level.Iteration)
  public void checkIteration() {
    if (!deadLettersOut.isEmpty()) {
      throw new IllegalStateException("dead letters: " + deadLettersOut.readKeyValuesToList());
    }
    if (rated != records) {
      throw new IllegalStateException("rated " + rated + " of " + records + " records");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    driver.close();
    baselineDriver.close();
    SysfsSnapshot.delete(baselineStateDir);
    serializer.close();
    SysfsSnapshot.delete(stateDir);
  }
}
