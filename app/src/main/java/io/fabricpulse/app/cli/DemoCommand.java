package io.fabricpulse.app.cli;

import io.fabricpulse.app.demo.Demo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fabricpulse demo}: the whole pipeline in one JVM on a simulated cluster. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the whole pipeline in one JVM on a simulated cluster with injected faults.",
      "",
      "Starts an in-process Kafka broker (KRaft), an in-process schema registry, an",
      "embedded QuestDB (or a real InfluxDB), the streams application and the sink,",
      "and feeds them from the node agents of a seeded simulated cluster. Prints live",
      "throughput, the busiest ports and alerts; ends with a summary that checks data",
      "flowed end to end and every injected fault was detected exactly (nothing",
      "missed, nothing extra)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse demo",
      "  fabricpulse demo --duration 60s --nodes 32 --seed 7",
      "  INFLUX_TOKEN=... fabricpulse demo --influx-url http://influxdb:8086"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:data flowed end to end and detection was exact",
      "1:findings: data did not flow, detection was not exact, or the pipeline did not catch up",
      "2:usage error"
    })
public final class DemoCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--duration",
      converter = DurationConverter.class,
      description = "Run this long (e.g. 60s, 10m), then print the summary. Default: until Ctrl-C.")
  Duration duration;

  @Option(
      names = "--nodes",
      defaultValue = "16",
      description = "Simulated nodes, 8 HCAs each (default ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the simulation (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--speed",
      defaultValue = "20",
      description = "Simulated seconds per real second (default ${DEFAULT-VALUE}).")
  double speed;

  @Option(
      names = "--cluster",
      defaultValue = "demo",
      description = "Cluster name (default ${DEFAULT-VALUE}).")
  String cluster;

  @Option(
      names = "--data-dir",
      description =
          "Where Kafka, Streams and QuestDB keep state. Default: a temporary directory, removed at exit.")
  Path dataDir;

  @Option(
      names = "--influx-url",
      description =
          "Write to this InfluxDB 2.x/3.x instead of the embedded QuestDB (token from INFLUX_TOKEN).")
  String influxUrl;

  @Option(
      names = "--influx-org",
      defaultValue = "fabricpulse",
      description = "InfluxDB organisation (default ${DEFAULT-VALUE}).")
  String influxOrg;

  @Option(
      names = "--influx-bucket",
      defaultValue = "fabricpulse",
      description = "InfluxDB bucket (default ${DEFAULT-VALUE}).")
  String influxBucket;

  @Option(
      names = "--status-port",
      defaultValue = "8090",
      description = {
        "Serve the live status page on 127.0.0.1,",
        "port PORT (default ${DEFAULT-VALUE}; 0: no page)."
      })
  int statusPort;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--nodes must be at least 1");
    }
    if (!(speed > 0) || speed > 1000) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--speed must be in (0, 1000]");
    }
    Demo.Settings settings =
        new Demo.Settings(
            cluster,
            nodes,
            seed,
            speed,
            duration,
            dataDir,
            influxUrl,
            influxOrg,
            influxBucket,
            System.getenv("INFLUX_TOKEN"),
            statusPort);
    return new Demo(settings, System.out).run();
  }
}
