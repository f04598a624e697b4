package io.fabricpulse.bench;

import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.sysfs.SysfsSnapshot;
import io.fabricpulse.collectors.sysfs.SysfsTree;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.Serializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One collection cycle of an 8-HCA node (issue 3): read and parse the sysfs counters of all 8 ports
 * with the production {@link SysfsPortCounterReader}, then encode the 8 {@link PortCounters} in the
 * Confluent wire format. One op = one node cycle.
 *
 * <p>{@code tree=SIMULATOR} reads the simulator's live in-memory tree (each read renders the file
 * text, as the kernel does); {@code tree=FILES} reads a snapshot of the same tree written to a
 * temporary directory, so every counter is a real open/read/close. Neither includes what the kernel
 * spends behind a real sysfs read (a PMA MAD or a firmware query for hw_counters).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CollectionCycleBenchmark {

  /** Link layer of the simulated node. */
  public enum Fabric {
    INFINIBAND,
    ROCE
  }

  /** Where the sysfs text comes from. */
  public enum Tree {
    SIMULATOR,
    FILES
  }

  static final int HCAS = 8;

  /** The 8 HCAs: an InfiniBand node of the simulator also has a RoCE storage NIC, mlx5_8. */
  private static final java.util.regex.Pattern HCAS_ONLY =
      java.util.regex.Pattern.compile("mlx5_[0-7]");

  private static final Instant START = Instant.parse("2025-01-23T17:07:40Z");
  private static final String TOPIC = FabricTopics.PORT_COUNTERS;

  @Param({"INFINIBAND", "ROCE"})
  public Fabric fabric;

  @Param({"SIMULATOR", "FILES"})
  public Tree tree;

  private SysfsPortCounterReader reader;
  private Serializer<PortCounters> serializer;
  private NodeIdentity identity;
  private Instant time;
  private final AtomicLong sequence = new AtomicLong();
  private Path snapshot;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    SimulatorConfig config =
        fabric == Fabric.INFINIBAND
            ? SimulatorConfig.infiniband("bench", 1, 42L, START)
            : SimulatorConfig.roce("bench", 1, 42L, START);
    FabricSimulator simulator = new FabricSimulator(config);
    time = START.plusSeconds(10);
    simulator.advanceTo(time);
    String node = simulator.nodes().get(0);
    identity = simulator.identity(node);
    SysfsTree live = simulator.nodeTree(node);
    SysfsTree source = live;
    if (tree == Tree.FILES) {
      snapshot = Files.createTempDirectory("fabricpulse-bench-sysfs");
      SysfsSnapshot.write(live, "", snapshot);
      source = new DirectorySysfsTree(snapshot);
    }
    reader = new SysfsPortCounterReader(source, HCAS_ONLY, null);
    serializer =
        AvroSerde.forValues(PortCounters.class, "mock://bench-collection-cycle").serializer();
    checkCycle(live);
  }

  /**
   * A cycle that read fewer ports, skipped input or differs from the simulator measures nothing.
   */
  private void checkCycle(SysfsTree live) {
    ParseResult<PortCounters> sample = reader.read(SampleContext.of(identity, time));
    List<PortCounters> expected =
        new SysfsPortCounterReader(live, HCAS_ONLY, null)
            .read(SampleContext.of(identity, time))
            .records();
    if (sample.records().size() != HCAS || !sample.malformed().isEmpty()) {
      throw new IllegalStateException(
          "expected "
              + HCAS
              + " clean port samples, got "
              + sample.records().size()
              + " and malformed "
              + sample.malformed());
    }
    if (!sample.records().equals(expected)) {
      throw new IllegalStateException(tree + " tree does not read what the simulator serves");
    }
    if (sample.records().get(0).getCounters().size() < 40) {
      throw new IllegalStateException("too few counters: " + sample.records().get(0));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    serializer.close();
    SysfsSnapshot.delete(snapshot);
  }

  private SampleContext context() {
    return new SampleContext(identity, time, sequence);
  }

  /** Read + parse + encode of all 8 ports: what the agent does every second. */
  @Benchmark
  public int cycle(Blackhole blackhole) {
    ParseResult<PortCounters> sample = reader.read(context());
    int bytes = 0;
    for (PortCounters port : sample.records()) {
      byte[] encoded = serializer.serialize(TOPIC, port);
      bytes += encoded.length;
      blackhole.consume(encoded);
    }
    return bytes;
  }

  /** Read + parse only, to split the cycle's cost between sysfs and Avro. */
  @Benchmark
  public ParseResult<PortCounters> readAndParse() {
    return reader.read(context());
  }
}
