package io.fabricpulse.app.cli;

import io.fabricpulse.app.demo.SimulatedCluster;
import io.fabricpulse.app.run.AliveFile;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricpulse simulate}: the demo's simulated cluster publishing to a real Kafka. */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    customSynopsis = {
      "fabricpulse simulate",
      "    " + KafkaOptions.SYNOPSIS,
      "    [--kafka-config=FILE] [--nodes=N] [--speed=X] [OPTIONS...]"
    },
    description = {
      "Publish a simulated cluster's telemetry to Kafka until SIGTERM.",
      "",
      "The node agents of the demo's simulated cluster (every source through the",
      "collector's own parsers and Kafka output) with one fault of every kind in the",
      "first --fault-window, in real time from now (--speed 1). For trying the",
      "pipeline, the dashboards and the status page without a cluster: the",
      "'collect' service of docker-compose.yml. The topics must exist (streams or",
      "the compose init service create them)."
    },
    footerHeading = "%nExample:%n",
    footer = {
      "  fabricpulse simulate --bootstrap-servers kafka:9092 \\",
      "      --schema-registry-url http://schema-registry:8081 --nodes 16"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped by SIGTERM or Ctrl-C, or --duration reached",
      "1:records were lost (Kafka unreachable longer than the buffer holds)",
      "2:a missing or bad option, unreadable --kafka-config"
    })
public final class SimulateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin KafkaOptions kafka;

  @Option(
      names = "--nodes",
      defaultValue = "16",
      description =
          "Simulated nodes, 8 HCAs each (default ${DEFAULT-VALUE}; 16 or more get every fault kind).")
  int nodes;

  @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--speed",
      defaultValue = "1",
      description = "Simulated seconds per real second (default ${DEFAULT-VALUE}).")
  double speed;

  @Option(
      names = "--cluster",
      defaultValue = "demo",
      description = "Cluster name (default ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--fault-window",
      defaultValue = "14m",
      converter = DurationConverter.class,
      description = {
        "Inject the faults within this much",
        "simulated time (default ${DEFAULT-VALUE})."
      })
  Duration faultWindow;

  @Option(
      names = "--duration",
      converter = DurationConverter.class,
      description = "Stop after this much simulated time (default: until SIGTERM).")
  Duration duration;

  @Option(
      names = "--alive-file",
      paramLabel = "FILE",
      description = {
        "Rewrite FILE after every simulated second published",
        "with nothing lost, for a health check on its age."
      })
  Path aliveFile;

  /** Counted down by SIGTERM/Ctrl-C (or a test). */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    if (nodes < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be at least 1");
    }
    if (!(speed > 0)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--speed must be above 0");
    }
    if (faultWindow.compareTo(Duration.ofSeconds(60)) < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--fault-window must be at least 60s");
    }
    Properties client = kafka.clientProperties(System.getenv());
    AliveFile alive = aliveFile == null ? null : new AliveFile(aliveFile);
    Thread hook = new Thread(stop::countDown, "simulate-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    SimulatedCluster.Result result;
    try {
      result =
          SimulatedCluster.run(
              new SimulatedCluster.Settings(cluster, nodes, seed, speed, faultWindow, duration),
              client,
              FabricTopics.defaults(),
              stop,
              spec.commandLine().getOut(),
              alive == null ? () -> {} : () -> alive.touch(Instant.now()));
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is what stopped us
      }
    }
    return result.lost() > 0 ? ExitCodes.PARTIAL : ExitCodes.OK;
  }
}
