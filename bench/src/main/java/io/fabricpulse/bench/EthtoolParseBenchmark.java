package io.fabricpulse.bench;

import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import io.fabricpulse.collectors.ethtool.EthtoolStat;
import io.fabricpulse.collectors.ethtool.EthtoolStatsParser;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.time.Instant;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One {@code ethtool -S} sample of one netdev: the real 751-line ConnectX-4 capture parsed and
 * turned into a {@link PfcPauseFrames} record (57 counters). A RoCE node does this once per netdev
 * per interval. One op = one netdev sample.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class EthtoolParseBenchmark {

  static final String SAMPLE = "ethtool/ethq-mlx5_core-cx4-kernel4.15.txt";
  private static final String NETDEV = "enp1s0f0";
  private static final String DRIVER = "mlx5_core";
  private static final int PFC_COUNTERS = 57;

  private final EthtoolStatsParser parser = new EthtoolStatsParser();
  private final NodeIdentity identity = new NodeIdentity("bench", "gpu001", "boot-1");
  private final Instant time = Instant.parse("2025-01-23T17:07:40Z");
  private final AtomicLong sequence = new AtomicLong();
  private String text;
  private Serializer<PfcPauseFrames> serializer;

  @Setup(Level.Trial)
  public void setUp() {
    text = BenchSamples.text(SAMPLE);
    serializer = AvroSerde.forValues(PfcPauseFrames.class, "mock://bench-ethtool").serializer();
    int counters = parseAndBuild().getCounters().size();
    if (counters != PFC_COUNTERS) {
      throw new IllegalStateException("expected 57 PFC counters from " + SAMPLE + ": " + counters);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    serializer.close();
  }

  /** Parse the whole dump and build the record. */
  @Benchmark
  public PfcPauseFrames parseAndBuild() {
    ParseResult<EthtoolStat> stats = parser.parse(SAMPLE, text);
    return EthtoolRecords.pfcPauseFrames(
        new SampleContext(identity, time, sequence), NETDEV, DRIVER, null, stats.records());
  }

  /** Parse, build and encode in the Confluent wire format: the agent's full work per netdev. */
  @Benchmark
  public byte[] parseBuildEncode() {
    return serializer.serialize(FabricTopics.PFC, parseAndBuild());
  }
}
