package io.fabricpulse.bench;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.nccl.NcclLineParser;
import io.fabricpulse.collectors.nccl.NcclLogLine;
import java.time.Instant;
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

/**
 * NCCL_DEBUG log parsing over the real 792-line slurmv4 capture (NCCL 2.27.5, 2 nodes x 8 GPUs,
 * RoCE): every line through a fresh {@link NcclLineParser}, as a tailer sees a new file. The score
 * is lines per second (one op = one line).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class NcclParseBenchmark {

  static final String SAMPLE = "nccl/slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5.txt";
  static final int LINES = 792;
  private static final int RECORDS = 752;

  private final SampleContext context =
      SampleContext.of(
          new NodeIdentity("bench", "gpu001", "boot-1"), Instant.parse("2025-01-23T17:07:40Z"));
  private List<NcclLogLine> lines;

  @Setup(Level.Trial)
  public void setUp() {
    List<String> texts = BenchSamples.lines(SAMPLE);
    if (texts.size() != LINES) {
      throw new IllegalStateException(SAMPLE + " has " + texts.size() + " lines, not " + LINES);
    }
    lines = NcclLineParser.linesOf(SAMPLE, texts, "bench-job");
    ParseResult<NcclLog> parsed = parseFile();
    if (parsed.records().size() != RECORDS || !parsed.malformed().isEmpty()) {
      throw new IllegalStateException(
          "expected "
              + RECORDS
              + " records and no malformed line, got "
              + parsed.records().size()
              + " and "
              + parsed.malformed());
    }
  }

  @Benchmark
  @OperationsPerInvocation(LINES)
  public ParseResult<NcclLog> parseFile() {
    return new NcclLineParser().parseAll(lines, context);
  }
}
