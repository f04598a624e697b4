package io.fabricpulse.app.cli;

import io.fabricpulse.app.bench.AgentFootprint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricpulse bench agent}: the node agent's CPU per cycle and resident memory. */
@Command(
    name = "agent",
    mixinStandardHelpOptions = true,
    description = {
      "Measure the node agent's own CPU and memory on a real in-process broker.",
      "",
      "Writes the sysfs tree of one simulated 8-HCA node to a directory, runs",
      "'fabricpulse collect' on it in a child JVM with the systemd unit's JVM options",
      "(or --java-options), sampling every second, and after --warmup reads the",
      "child's CPU time and resident set from /proc for --measure. CPU per cycle is",
      "the CPU time over the cycles that reached the broker. The last line sums it up:",
      "bench agent: cpu_per_cycle=MS rss=MB rss_peak=MB cycles=N threads=N"
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse bench agent",
      "  fabricpulse bench agent --java-options='-Xmx32m -XX:+UseSerialGC'"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the agent was measured (the figures are printed)",
      "1:the agent exited, published nothing or could not be measured (named)",
      "2:usage error"
    })
public final class BenchAgentCommand implements Callable<Integer> {

  @Option(
      names = "--warmup",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description = "Time the agent runs before it is measured (default ${DEFAULT-VALUE}).")
  Duration warmup;

  @Option(
      names = "--measure",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description = "Time measured (default ${DEFAULT-VALUE}).")
  Duration measure;

  @Option(
      names = "--java-options",
      description =
          "JVM options of the agent, space-separated (default: the systemd unit's, "
              + "collectors/fabricpulse-collect.service).")
  String javaOptions;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (measure.compareTo(Duration.ofSeconds(5)) < 0) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--measure must be at least 5s");
    }
    if (warmup.isNegative()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--warmup must not be negative");
    }
    List<String> options =
        javaOptions == null
            ? AgentFootprint.UNIT_JAVA_OPTIONS
            : Arrays.stream(javaOptions.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    Path dir = Files.createTempDirectory("fabricpulse-bench-agent-");
    try {
      AgentFootprint.Result result =
          new AgentFootprint(new AgentFootprint.Settings(warmup, measure, options), System.out)
              .run(dir);
      System.out.println(result.summaryLine());
      ScratchDirectory.delete(dir); // a failed run keeps its tree, broker and log for reading
      return 0;
    } catch (AgentFootprint.Failed e) {
      System.out.println("bench agent: " + e.getMessage());
      return 1;
    }
  }
}
