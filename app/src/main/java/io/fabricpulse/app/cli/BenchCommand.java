package io.fabricpulse.app.cli;

import io.fabricpulse.app.bench.EndToEndBench;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricpulse bench}: end-to-end throughput on the real in-process broker. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = BenchAgentCommand.class,
    description = {
      "Measure the pipeline end to end on a real in-process broker.",
      "",
      "Preloads --simulated seconds of a simulated fleet's raw records, then, one",
      "after the other on the same data: a plain consumer->producer pass-through",
      "(baseline), the full streams application (every detector, exactly once),",
      "the sink into QuestDB, alert latency with faults at 80%% of the streams rate,",
      "and offline detect over a file. The last line sums it up:",
      "bench: streams=N/s baseline=N/s ratio=R alert_p99=MS sink=N/s detect=N/s",
      "The node agent's own CPU and memory: 'fabricpulse bench agent'.",
      "Microbenchmarks (parsers, serde, rate stage) are JMH: bench/run.sh."
    },
    footerHeading = "%nExamples:%n",
    footer = {"  fabricpulse bench", "  fabricpulse bench --nodes 128 --simulated 300s"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every phase completed (the figures are printed)",
      "1:a phase made no progress for 2 minutes (named)",
      "2:usage error"
    })
public final class BenchCommand implements Callable<Integer> {

  @Option(
      names = "--nodes",
      defaultValue = "64",
      description = "Simulated nodes (default ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--simulated",
      defaultValue = "120s",
      converter = DurationConverter.class,
      description = "Simulated time to publish (default ${DEFAULT-VALUE}).")
  Duration simulated;

  @Option(
      names = "--latency",
      defaultValue = "90s",
      converter = DurationConverter.class,
      description =
          "Simulated time of the paced fleet with faults that alert latency is measured on"
              + " (default ${DEFAULT-VALUE}, at least 70s).")
  Duration latency;

  @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--data-dir", description = "Keep state here instead of a temporary directory.")
  Path dataDir;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--nodes must be at least 1");
    }
    if (simulated.isZero() || simulated.isNegative()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--simulated must be more than 0");
    }
    if (latency.compareTo(Duration.ofSeconds(70)) < 0) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--latency must be at least 70s (the faults need 60s)");
    }
    return new EndToEndBench(
            new EndToEndBench.Settings(nodes, simulated, latency, seed, dataDir), System.out)
        .run();
  }
}
