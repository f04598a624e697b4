package io.fabricpulse.app.cli;

import io.fabricpulse.app.run.AliveFile;
import io.fabricpulse.app.run.KafkaCredentialsCheck;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.Bridges;
import io.fabricpulse.bridges.DryRun;
import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.BridgeConfigException;
import io.fabricpulse.bridges.config.BridgeConfigLoader;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.delivery.AlertBridge;
import io.fabricpulse.bridges.delivery.BridgeTopics;
import io.fabricpulse.bridges.delivery.RobotDispatcher;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.schemas.json.JsonRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricpulse bridge wecom|dingtalk}: fabric.alerts to group robots. */
@Command(
    name = "bridge",
    mixinStandardHelpOptions = true,
    description = "Deliver alerts to group robots: see 'bridge wecom' and 'bridge dingtalk'.",
    subcommands = {BridgeCommand.Wecom.class, BridgeCommand.Dingtalk.class},
    footerHeading = "%nExample:%n",
    footer = "  fabricpulse help bridge wecom")
public final class BridgeCommand implements Runnable {
  @Spec CommandSpec spec;

  /** Malformed input lines shown before "... and N more". */
  static final int MALFORMED_SHOWN = 5;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "wecom",
      mixinStandardHelpOptions = true,
      customSynopsis = {
        "fabricpulse bridge wecom --config=FILE",
        "    " + KafkaOptions.SYNOPSIS,
        "    [--kafka-config=FILE] [--group-id=ID]",
        "fabricpulse bridge wecom --config=FILE --dry-run [--alerts=FILE] [--now=TIME]"
      },
      description = {
        "Deliver fabric.alerts to WeChat Work group robots until SIGTERM.",
        "",
        "bridge.yaml says which robots get which alerts and who is mentioned; each",
        "robot's key comes from the environment variable (key_env) or file (key_file)",
        "it names, never from the command line. 20 messages a minute per robot at most:",
        "when alerts come faster they are digested, never dropped. Offsets are",
        "committed only after the robot accepted the message, with the delivery",
        "ledger (fabric.alerts.delivered) in the same transaction, so a restart sends",
        "nothing twice. --dry-run prints the requests it would make for JSON-lines",
        "alerts (the output of 'detect') instead, with the secrets masked."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  WECOM_FABRIC_KEY=... fabricpulse bridge wecom --config bridge.yaml \\",
        "      --bootstrap-servers kafka-1:9092 \\",
        "      --schema-registry-url http://registry:8081",
        "  fabricpulse parse --format nccl job.log | fabricpulse detect \\",
        "      | fabricpulse bridge wecom --config bridge.yaml --dry-run"
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {
        "0:stopped by SIGTERM or Ctrl-C; --dry-run: every alert line read",
        "1:the bridge failed while running; --dry-run: malformed lines skipped",
        "2:a bad bridge.yaml (file:line: key: problem), a missing secret or option"
      })
  static final class Wecom extends Base {
    @Override
    RobotType type() {
      return RobotType.WECOM;
    }
  }

  @Command(
      name = "dingtalk",
      mixinStandardHelpOptions = true,
      customSynopsis = {
        "fabricpulse bridge dingtalk --config=FILE",
        "    " + KafkaOptions.SYNOPSIS,
        "    [--kafka-config=FILE] [--group-id=ID]",
        "fabricpulse bridge dingtalk --config=FILE --dry-run [--alerts=FILE] [--now=TIME]"
      },
      description = {
        "Deliver fabric.alerts to DingTalk custom robots until SIGTERM.",
        "",
        "bridge.yaml says which robots get which alerts and who is mentioned; each",
        "robot's access token (token_env or token_file) and signing secret",
        "(secret_env or secret_file) come from the environment or a file, never from",
        "the command line. 20 messages a minute per robot at most (above that",
        "DingTalk locks the robot for 10 minutes): when alerts come faster they are",
        "digested, never dropped. Offsets are committed only after the robot",
        "accepted the message, with the delivery ledger in the same transaction.",
        "--dry-run prints the requests it would make for JSON-lines alerts instead."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  DINGTALK_OPS_TOKEN=... DINGTALK_OPS_SECRET=SEC... \\",
        "      fabricpulse bridge dingtalk --config bridge.yaml \\",
        "      --bootstrap-servers kafka-1:9092 \\",
        "      --schema-registry-url http://registry:8081",
        "  fabricpulse bridge dingtalk --config bridge.yaml --dry-run \\",
        "      --alerts alerts.jsonl"
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {
        "0:stopped by SIGTERM or Ctrl-C; --dry-run: every alert line read",
        "1:the bridge failed while running; --dry-run: malformed lines skipped",
        "2:a bad bridge.yaml (file:line: key: problem), a missing secret or option"
      })
  static final class Dingtalk extends Base {
    @Override
    RobotType type() {
      return RobotType.DINGTALK;
    }
  }

  abstract static class Base implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin KafkaOptions kafka;

    @Option(
        names = "--config",
        required = true,
        paramLabel = "FILE",
        description = "Required: the bridge configuration (bridge.yaml).")
    Path config;

    @Option(
        names = "--dry-run",
        description = "Print the requests for --alerts instead of consuming and sending.")
    boolean dryRun;

    @Option(
        names = "--alerts",
        paramLabel = "FILE",
        description = "--dry-run input: Alert JSON lines (default: stdin).")
    Path alerts;

    @Option(
        names = "--now",
        paramLabel = "TIME",
        description = "--dry-run: simulate from this ISO-8601 time (default: now).")
    String now;

    @Option(
        names = "--group-id",
        paramLabel = "ID",
        description = "Consumer group and transactional id (default fabricpulse-bridge-TYPE).")
    String groupId;

    @Option(
        names = "--alive-file",
        paramLabel = "FILE",
        description = {
          "Rewrite FILE whenever the bridge committed to Kafka",
          "(its counters at least every 10 s), for a health check",
          "on its age."
        })
    Path aliveFile;

    /** The running bridge; {@code close()} (SIGTERM, or a test) stops it. */
    volatile AlertBridge bridge;

    abstract RobotType type();

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      BridgeConfig loaded;
      try {
        loaded = BridgeConfigLoader.load(config);
      } catch (BridgeConfigException e) {
        e.problems().forEach(err::println);
        err.flush();
        return ExitCodes.USAGE;
      }
      if (loaded.robotsOf(type()).isEmpty()) {
        throw new CliFailure(
            ExitCodes.USAGE, config + ": robots: no robot of type " + type().configName());
      }
      if (dryRun) {
        return dryRun(loaded, out, err);
      }
      Map<String, Bridges.Secrets> secrets;
      try {
        secrets = Bridges.secrets(loaded, type(), System.getenv());
      } catch (BridgeConfigException e) {
        e.problems().forEach(err::println);
        err.flush();
        return ExitCodes.USAGE;
      }
      Properties props = kafka.clientProperties(System.getenv());
      Map<String, Object> client = new HashMap<>();
      props.forEach((k, v) -> client.put(k.toString(), v));
      Map<String, Object> adminConfig = new HashMap<>(client);
      adminConfig.keySet().removeIf(k -> !AdminClientConfig.configNames().contains(k));
      try (Admin admin = Admin.create(adminConfig)) {
        BridgeTopics.ensure(admin);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        var refused = KafkaCredentialsCheck.authentication(e);
        if (refused != null) {
          throw refused; // one line and exit 2, as for every command
        }
        throw new CliFailure(
            ExitCodes.PARTIAL,
            "bridge "
                + type().configName()
                + ": Kafka at "
                + client.get("bootstrap.servers")
                + " is not answering: "
                + e.getMessage());
      }
      Clock clock = Clock.systemUTC();
      WebhookClient http = new WebhookClient();
      List<RobotDispatcher> dispatchers = new ArrayList<>();
      for (RobotConfig r : loaded.robotsOf(type())) {
        dispatchers.add(
            Bridges.dispatcher(
                loaded, r, Bridges.robot(r, secrets.get(r.name()), clock, http), clock));
      }
      String group = groupId != null ? groupId : Bridges.defaultGroupId(type());
      bridge =
          Bridges.kafka(
              type(),
              dispatchers,
              client,
              group,
              FabricTopics.ALERTS,
              FabricTopics.DEAD_LETTERS,
              clock);
      bridge.start();
      Thread hook = new Thread(bridge::close, "bridge-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      for (RobotDispatcher d : dispatchers) {
        out.printf(
            "bridge %s: robot %s (%d routes, %d messages a minute)%n",
            type().configName(),
            d.name(),
            d.config().routes().size(),
            d.config().messagesPerMinute());
      }
      out.printf("delivering %s; Ctrl-C or SIGTERM stops%n", FabricTopics.ALERTS);
      out.flush();
      ScheduledExecutorService aliveTimer = aliveFile == null ? null : aliveTimer(bridge);
      try {
        bridge.run();
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
      return ExitCodes.OK;
    }

    /** Rewrites the alive file whenever the bridge committed to Kafka since the last look. */
    private ScheduledExecutorService aliveTimer(AlertBridge running) {
      return new AliveFile(aliveFile)
          .touchWhileGrowing(running::transactionsCommitted, "bridge-alive-file");
    }

    private int dryRun(BridgeConfig loaded, PrintWriter out, PrintWriter err) throws IOException {
      Instant start;
      try {
        start = now == null ? Instant.now() : Instant.parse(now);
      } catch (DateTimeParseException e) {
        throw new CliFailure(ExitCodes.USAGE, "--now: '" + now + "' is not an ISO-8601 time");
      }
      String name = alerts != null ? alerts.toString() : "<stdin>";
      List<Alert> read = new ArrayList<>();
      int bad = 0;
      int others = 0;
      try (BufferedReader in = open()) {
        String line;
        int lineNo = 0;
        while ((line = in.readLine()) != null) {
          lineNo++;
          if (line.isBlank()) {
            continue;
          }
          try {
            Object record = JsonRecords.fromJson(line);
            if (record instanceof Alert a) {
              read.add(a);
            } else {
              others++;
            }
          } catch (IllegalArgumentException e) {
            bad++;
            if (bad <= MALFORMED_SHOWN) {
              err.println(name + ":" + lineNo + ": " + e.getMessage());
            }
          }
        }
      }
      if (bad > MALFORMED_SHOWN) {
        err.println("  ... and " + (bad - MALFORMED_SHOWN) + " more");
      }
      if (others > 0) {
        err.println("bridge: " + others + " record(s) that are not alerts ignored");
      }
      int messages = DryRun.run(loaded, type(), read, start, out);
      err.println(
          "bridge "
              + type().configName()
              + " --dry-run: "
              + read.size()
              + " alert(s) read, "
              + messages
              + " message(s) would be sent"
              + (bad > 0 ? ", " + bad + " malformed line(s) skipped" : ""));
      err.flush();
      return bad > 0 ? ExitCodes.PARTIAL : ExitCodes.OK;
    }

    private BufferedReader open() {
      if (alerts == null) {
        return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      }
      if (Files.isDirectory(alerts)) {
        throw new CliFailure(ExitCodes.USAGE, alerts + ": cannot read: Is a directory");
      }
      try {
        return Files.newBufferedReader(alerts, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new CliFailure(ExitCodes.USAGE, alerts + ": cannot read: " + IoReason.of(e));
      }
    }
  }
}
