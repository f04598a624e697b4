package io.fabricpulse.bench;

import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.Serde;
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
 * The registry-compatible Avro serde on one 60-counter {@link PortCounters} (Confluent wire format,
 * in-process {@code mock://} registry, so schema lookups are cached map hits as with a warm real
 * registry). One op = one record.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SerdeBenchmark {

  private static final String TOPIC = FabricTopics.PORT_COUNTERS;

  private Serde<PortCounters> serde;
  private PortCounters record;
  private byte[] encoded;

  @Setup(Level.Trial)
  public void setUp() {
    serde = AvroSerde.forValues(PortCounters.class, "mock://bench-serde");
    record = SixtyCounterPort.samples(1).get(0);
    encoded = serde.serializer().serialize(TOPIC, record);
    if (!record.equals(serde.deserializer().deserialize(TOPIC, encoded))) {
      throw new IllegalStateException("round trip changed the record");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    serde.close();
  }

  @Benchmark
  public byte[] encode() {
    return serde.serializer().serialize(TOPIC, record);
  }

  @Benchmark
  public PortCounters decode() {
    return serde.deserializer().deserialize(TOPIC, encoded);
  }
}
