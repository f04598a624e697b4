package io.fabricpulse.bench;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.rates.CounterDelta;
import io.fabricpulse.streams.rates.CounterId;
import io.fabricpulse.streams.rates.CounterReading;
import io.fabricpulse.streams.rates.CounterSemantics;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@link CounterSemantics#derive} over the 60 counters of two consecutive 1 s samples of a RoCE
 * port (widths, units and the octets/4 scaling included). One op = one counter.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CounterSemanticsBenchmark {

  private final CounterSemantics semantics = CounterSemantics.defaults();
  private CounterId[] ids;
  private CounterReading[] previous;
  private CounterReading[] current;

  @Setup(Level.Trial)
  public void setUp() {
    List<PortCounters> samples = SixtyCounterPort.samples(2);
    int n = SixtyCounterPort.COUNTERS;
    ids = new CounterId[n];
    previous = new CounterReading[n];
    current = new CounterReading[n];
    for (int i = 0; i < n; i++) {
      Counter before = samples.get(0).getCounters().get(i);
      Counter after = samples.get(1).getCounters().get(i);
      ids[i] = new CounterId(after.getName(), after.getGroup(), after.getWidth());
      previous[i] = reading(samples.get(0), before);
      current[i] = reading(samples.get(1), after);
    }
    for (int i = 0; i < n; i++) {
      RateTag tag = semantics.derive(ids[i], previous[i], current[i]).tag();
      if (tag != RateTag.normal) {
        throw new IllegalStateException(ids[i] + " derived as " + tag + ", expected normal");
      }
    }
  }

  private static CounterReading reading(PortCounters sample, Counter counter) {
    return new CounterReading(
        counter.getValue(), sample.getTime().toEpochMilli(), sample.getBootId());
  }

  @Benchmark
  @OperationsPerInvocation(SixtyCounterPort.COUNTERS)
  public void derivePortSample(Blackhole blackhole) {
    for (int i = 0; i < ids.length; i++) {
      CounterDelta delta = semantics.derive(ids[i], previous[i], current[i]);
      blackhole.consume(delta);
    }
  }
}
