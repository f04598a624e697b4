package io.fabricpulse.app.cli;

import io.fabricpulse.app.run.AliveFile;
import io.fabricpulse.app.run.BrokerWatch;
import io.fabricpulse.app.run.KafkaCredentialsCheck;
import io.fabricpulse.sinks.influx.GroupLag;
import io.fabricpulse.sinks.influx.InfluxSink;
import io.fabricpulse.sinks.influx.InfluxSinkConfig;
import io.fabricpulse.sinks.influx.PointWriter;
import io.fabricpulse.streams.FabricTopology;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricpulse sink influx}: rates and alerts into an InfluxDB v2 write API. */
@Command(
    name = "sink",
    mixinStandardHelpOptions = true,
    description = "Write the derived topics to a store: see 'sink influx'.",
    subcommands = {SinkCommand.Influx.class},
    footerHeading = "%nExample:%n",
    footer = "  fabricpulse help sink influx")
public final class SinkCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "influx",
      mixinStandardHelpOptions = true,
      customSynopsis = {
        "fabricpulse sink influx --influx-url=URL",
        "    " + KafkaOptions.SYNOPSIS,
        "    [--kafka-config=FILE] [--influx-org=ORG] [--influx-bucket=BUCKET]",
        "    [OPTIONS...]"
      },
      description = {
        "Write fabric.rates and fabric.alerts to InfluxDB until SIGTERM.",
        "",
        "Any /api/v2/write server works: InfluxDB 2.x/3.x, QuestDB, VictoriaMetrics.",
        "Offsets are committed only after the points are written; a store outage",
        "pauses consumption (no loss). The token is read from INFLUX_TOKEN, or from the",
        "file INFLUX_TOKEN_FILE names (a Docker or systemd secret), never from the",
        "command line."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  INFLUX_TOKEN=... fabricpulse sink influx \\",
        "      --influx-url http://influxdb:8086 --bootstrap-servers kafka-1:9092 \\",
        "      --schema-registry-url http://registry:8081",
        "  fabricpulse sink influx --influx-url http://questdb:9000 \\",
        "      --kafka-config /etc/fabricpulse/kafka.properties"
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {
        "0:stopped by SIGTERM or Ctrl-C",
        "1:the sink failed while running",
        "2:a missing or bad option (e.g. --influx-url not http(s)://), unreadable --kafka-config",
        "  or INFLUX_TOKEN_FILE, Kafka refusing the credentials or its TLS certificate not",
        "  trusted, a store requiring a token when none is set"
      })
  static final class Influx implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin KafkaOptions kafka;

    @Option(
        names = "--influx-url",
        required = true,
        paramLabel = "URL",
        description = "Required: http(s)://host:port of the store.")
    String url;

    @Option(
        names = "--influx-org",
        defaultValue = "fabricpulse",
        description = "Organisation (default ${DEFAULT-VALUE}).")
    String org;

    @Option(
        names = "--influx-bucket",
        defaultValue = "fabricpulse",
        description = "Bucket (default ${DEFAULT-VALUE}).")
    String bucket;

    @Option(
        names = "--group-id",
        defaultValue = InfluxSink.DEFAULT_GROUP_ID,
        description = "Consumer group (default ${DEFAULT-VALUE}).")
    String groupId;

    @Option(
        names = "--lag-groups",
        split = ",",
        paramLabel = "GROUP",
        defaultValue = LAG_GROUPS,
        description = {
          "Consumer groups whose lag per topic goes to the store",
          "(fabricpulse_consumer_lag); default: the streams",
          "application and both bridges, fabricpulse-streams,",
          "fabricpulse-bridge-wecom, fabricpulse-bridge-dingtalk."
        })
    List<String> lagGroups;

    /** The streams application and both bridges, with their default ids. */
    static final String LAG_GROUPS =
        FabricTopology.APPLICATION_ID + ",fabricpulse-bridge-wecom,fabricpulse-bridge-dingtalk";

    @Option(
        names = "--alive-file",
        paramLabel = "FILE",
        description = {
          "Rewrite FILE whenever the store accepted the sink's",
          "health points (every 10 s while it writes), for a",
          "health check on its age."
        })
    Path aliveFile;

    /** How long the start waits for Kafka to accept or refuse the credentials. */
    static final java.time.Duration CREDENTIALS_WAIT = java.time.Duration.ofSeconds(10);

    /** The running sink; {@code close()} (SIGTERM, or a test) stops it after a final flush. */
    volatile InfluxSink sink;

    @Override
    public Integer call() throws Exception {
      Properties client = kafka.clientProperties(System.getenv());
      char[] token = InfluxToken.fromEnvironment(System.getenv());
      InfluxSinkConfig config;
      try {
        config = InfluxSinkConfig.of(url, org, bucket, token);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "bad store setting: " + e.getMessage());
      }
      Map<String, Object> consumer = new HashMap<>();
      client.forEach((k, v) -> consumer.put(k.toString(), v));
      consumer.put("group.id", groupId);
      KafkaCredentialsCheck.verify(client, CREDENTIALS_WAIT);
      sink = InfluxSink.create(config, consumer);
      if (!lagGroups.isEmpty()) {
        Map<String, Object> admin = new HashMap<>(consumer);
        admin.keySet().removeIf(k -> k.startsWith("schema.registry.") || k.contains(".avro."));
        admin.remove("group.id");
        sink.withGroupLag(new GroupLag(Admin.create(admin), lagGroups));
      }
      ScheduledExecutorService aliveTimer = aliveFile == null ? null : aliveTimer(sink);
      Thread hook = new Thread(sink::close, "sink-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      spec.commandLine()
          .getOut()
          .printf(
              "writing %s and %s to %s (org %s, bucket %s); Ctrl-C or SIGTERM stops%n",
              config.ratesTopic(), config.alertsTopic(), url, org, bucket);
      spec.commandLine().getOut().flush();
      // the consumer retries silently: this warns within seconds while Kafka does not answer
      try (BrokerWatch watch = BrokerWatch.start(client)) {
        sink.run();
      } catch (PointWriter.TokenRequiredException e) {
        throw new CliFailure(ExitCodes.USAGE, "sink influx: " + e.getMessage());
      } finally {
        if (aliveTimer != null) {
          aliveTimer.shutdownNow();
        }
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is what stopped us
        }
      }
      return 0;
    }

    /** Rewrites the alive file whenever the store accepted health points since the last look. */
    private ScheduledExecutorService aliveTimer(InfluxSink running) {
      return new AliveFile(aliveFile)
          .touchWhileGrowing(() -> running.metrics().healthPointsWritten(), "sink-alive-file");
    }
  }
}
