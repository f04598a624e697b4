package io.fabricpulse.app.cli;

import io.fabricpulse.app.demo.ThroughputRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricpulse bench}: end-to-end throughput on the real in-process broker. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Measure end-to-end throughput on a real in-process broker.",
      "",
      "A healthy simulated fleet publishes as fast as it can, through the rate stage",
      "and every detector into QuestDB. Microbenchmarks (parsers, serde, rate stage)",
      "are JMH: bench/run.sh."
    },
    footerHeading = "%nExamples:%n",
    footer = {"  fabricpulse bench", "  fabricpulse bench --nodes 128 --simulated 300s"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:everything published was drained through the pipeline",
      "1:the pipeline did not catch up (what is behind is printed)",
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
    return new ThroughputRun(
            new ThroughputRun.Settings(nodes, simulated, seed, dataDir), System.out)
        .run();
  }
}
