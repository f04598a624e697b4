package io.fabricpulse.app.cli;

import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.app.interactive.QueryApi;
import io.fabricpulse.app.run.BrokerWatch;
import io.fabricpulse.app.run.BundledRules;
import io.fabricpulse.app.run.StreamsRunner;
import io.fabricpulse.app.status.HealthCheck;
import io.fabricpulse.app.status.LiveStatus;
import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.GrafanaLinks;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fabricpulse streams}: the rate stage and every detector as one Kafka Streams application
 * against a real cluster. Scale out by starting more instances with the same application id.
 */
@Command(
    name = "streams",
    mixinStandardHelpOptions = true,
    customSynopsis = {
      "fabricpulse streams",
      "    " + KafkaOptions.SYNOPSIS,
      "    [--kafka-config=FILE] [--state-dir=DIR] [--rules=DIR] [OPTIONS...]"
    },
    description = {
      "Run the rate stage and every detector against a Kafka cluster until SIGTERM.",
      "",
      "Creates the pipeline's topics if missing (idempotent), loads and validates the",
      "rules first. Kafka client settings, lowest first: --kafka-config file <",
      "KAFKA_<NAME> environment (KAFKA_SASL_JAAS_CONFIG -> sasl.jaas.config) < options.",
      "Scale out by starting more instances with the same --application-id.",
      "",
      "State directory, when --state-dir is not given: $STATE_DIRECTORY/streams (set",
      "by systemd for StateDirectory=fabricpulse), else /var/lib/fabricpulse/streams",
      "when writable (a service user, root), else",
      "$${XDG_STATE_HOME:-~/.local/state}/fabricpulse/streams."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse streams --bootstrap-servers kafka-1:9092 \\",
      "      --schema-registry-url http://registry:8081",
      "  KAFKA_BOOTSTRAP_SERVERS=kafka-1:9092 fabricpulse streams \\",
      "      --kafka-config /etc/fabricpulse/kafka.properties \\",
      "      --rules /etc/fabricpulse/rules"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:stopped by SIGTERM or Ctrl-C",
      "1:Kafka did not answer at start, or a stream thread failed while running",
      "2:a missing or bad option, unreadable --kafka-config, invalid rules"
    })
public final class StreamsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin KafkaOptions kafka;

  @Option(
      names = "--application-id",
      defaultValue = FabricTopology.APPLICATION_ID,
      description = "Kafka Streams application id (default ${DEFAULT-VALUE}).")
  String applicationId;

  @Option(
      names = "--state-dir",
      paramLabel = "DIR",
      description = "Local state of the stores (default: see above).")
  Path stateDir;

  @Option(
      names = "--rules",
      paramLabel = "DIR",
      description = "Rules directory (default: the bundled alert-rules/).")
  Path rulesDir;

  @Option(
      names = "--partitions",
      defaultValue = "6",
      description =
          "Partitions of the high-volume topics when creating them (default ${DEFAULT-VALUE}).")
  int partitions;

  @Option(
      names = "--replication-factor",
      defaultValue = "3",
      description = "Replication factor of topics created here (default ${DEFAULT-VALUE}).")
  short replicationFactor;

  @Option(
      names = "--guarantee",
      defaultValue = "EXACTLY_ONCE_V2",
      description = "EXACTLY_ONCE_V2 or AT_LEAST_ONCE (default ${DEFAULT-VALUE}).")
  StreamsSettings.Guarantee guarantee;

  @Option(
      names = "--threads",
      defaultValue = "2",
      description = "Stream threads (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--status-port",
      paramLabel = "PORT",
      description = {
        "Also serve the live status page on",
        "127.0.0.1, port PORT (0: any free port);",
        "default: no page."
      })
  Integer statusPort;

  @Option(
      names = "--status-bind",
      paramLabel = "ADDRESS",
      defaultValue = "127.0.0.1",
      description = {
        "Address of the status page (default",
        "${DEFAULT-VALUE}); any other than a loopback",
        "address needs --status-token-file."
      })
  String statusBind;

  @Option(
      names = "--status-token-file",
      paramLabel = "FILE",
      description = {
        "File holding the token every status page",
        "request must carry (Authorization: Bearer",
        "TOKEN, or a browser opens /?token=TOKEN once)."
      })
  Path statusTokenFile;

  @Option(
      names = "--grafana-url",
      paramLabel = "URL",
      description = {
        "Grafana's base URL: every alert then carries",
        "label grafana_url, its dashboard with the",
        "time range and node of the incident."
      })
  String grafanaUrl;

  @Option(
      names = "--query-port",
      paramLabel = "PORT",
      description = {
        "Serve the interactive-query API (JSON: rates,",
        "top-N, alerts, NCCL verdicts of the whole",
        "application) on --query-bind, port PORT",
        "(0: any free port); default: no API."
      })
  Integer queryPort;

  @Option(
      names = "--query-bind",
      paramLabel = "ADDR",
      defaultValue = "127.0.0.1",
      description = {
        "Address of the query API (default ${DEFAULT-VALUE});",
        "other instances call this address."
      })
  String queryBind;

  @Option(
      names = "--query-token-file",
      paramLabel = "FILE",
      description = {
        "Require this bearer token (the file's content)",
        "of every query (default: $FABRICPULSE_QUERY_TOKEN,",
        "else none); 401 without it."
      })
  Path queryTokenFile;

  /** Counted down by SIGTERM/Ctrl-C (or a test) to stop the application. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    Properties client = kafka.clientProperties(System.getenv());
    FabricTopics topics = FabricTopics.defaults("", partitions);
    StatusAccess statusAccess = statusPort != null ? statusAccess() : null;
    if (rulesDir != null) {
      RulesDirectory.require(rulesDir);
    }
    Path state = stateDir != null ? stateDir : StateDirectory.forStreams();
    try {
      Files.createDirectories(state);
    } catch (IOException e) {
      throw new CliFailure(
          ExitCodes.USAGE, state + ": cannot create the state directory: " + IoReason.of(e));
    }
    RuleSet rules;
    try {
      rules = BundledRules.load(rulesDir, state);
    } catch (RuleValidationException e) {
      e.problems().forEach(spec.commandLine().getErr()::println);
      return ExitCodes.USAGE;
    }
    String servers = client.getProperty("bootstrap.servers");
    // warns within seconds while Kafka does not answer, at start and later
    try (BrokerWatch watch = BrokerWatch.start(client)) {
      return run(client, topics, state, rules, servers, statusAccess, watch);
    }
  }

  private int run(
      Properties client,
      FabricTopics topics,
      Path state,
      RuleSet rules,
      String servers,
      StatusAccess statusAccess,
      BrokerWatch watch)
      throws Exception {
    spec.commandLine().getOut().println("connecting to " + servers + " to check the topics...");
    spec.commandLine().getOut().flush();
    Admin admin = Admin.create(client);
    boolean answered = false;
    int ratesPartitions;
    try {
      TopicBootstrap.ensure(admin, topics, replicationFactor);
      ratesPartitions = TopicBootstrap.partitionsOf(admin, topics.rates().name());
      answered = true;
    } catch (TimeoutException e) {
      throw new CliFailure(
          ExitCodes.PARTIAL,
          servers + ": Kafka did not answer in time (is --bootstrap-servers right and reachable?)");
    } finally {
      // without an answer, do not wait for the pending request's own 60 s timeout
      admin.close(answered ? Duration.ofSeconds(30) : Duration.ZERO);
    }
    Properties settings =
        StreamsSettings.base(
            applicationId, client.getProperty("bootstrap.servers"), state, guarantee);
    settings.put(StreamsSettings.RATES_PARTITIONS, Integer.toString(ratesPartitions));
    client.forEach(
        (k, v) -> {
          if (!AvroSerdeConfig.isSerdeSetting(k.toString()) && !settings.containsKey(k)) {
            settings.put(k, v);
          }
        });
    settings.put("num.stream.threads", threads);
    settings.put(StreamsSettings.QUERY_STORES, "true");
    if (grafanaUrl != null) {
      settings.put(GrafanaLinks.BASE_URL, grafanaUrl);
    }
    QueryApi queryApi = startQueryApi(topics);
    if (queryApi != null) {
      settings.put(StreamsConfig.APPLICATION_SERVER_CONFIG, queryApi.applicationServer());
    }
    LiveStatus status = null;
    Thread hook = new Thread(stop::countDown, "streams-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (StreamsRunner runner =
        new StreamsRunner(
            FabricTopology.build(
                topics,
                AvroSerdeConfig.serdeSettings(client),
                rules,
                RateConfig.defaults(),
                settings),
            settings)) {
      if (queryApi != null) {
        queryApi.attach(runner::streams);
      }
      runner.start(Duration.ofMinutes(2));
      if (queryApi != null) {
        spec.commandLine().getOut().println("query API: " + queryApi.url());
      }
      if (statusPort != null) {
        status =
            startStatusPage(topics, client, statusAccess, List.of(watch.health(), runner.health()));
      }
      spec.commandLine()
          .getOut()
          .printf(
              "%s RUNNING against %s with %d rules, state in %s; Ctrl-C or SIGTERM stops%n",
              applicationId, client.getProperty("bootstrap.servers"), rules.all().size(), state);
      spec.commandLine().getOut().flush();
      while (!stop.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
        if (runner.failure() != null) {
          spec.commandLine().getErr().println("stream thread failed: " + runner.failure());
          return ExitCodes.PARTIAL;
        }
      }
    } finally {
      if (status != null) {
        status.close();
      }
      if (queryApi != null) {
        queryApi.close();
      }
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is what stopped us
      }
    }
    return 0;
  }

  private QueryApi startQueryApi(FabricTopics topics) {
    if (queryPort == null) {
      return null;
    }
    char[] token = QueryToken.read(queryTokenFile, "--query-token-file", System.getenv());
    try {
      return QueryApi.start(InetAddress.getByName(queryBind), queryPort, token, topics);
    } catch (IOException e) {
      throw new CliFailure(
          ExitCodes.USAGE,
          "--query-port " + queryPort + ": cannot serve on " + queryBind + ": " + e.getMessage());
    } finally {
      Arrays.fill(token, '\0');
    }
  }

  /** Where the status page listens and the token it requires (null: none). */
  private record StatusAccess(
      java.net.InetAddress address, io.fabricpulse.schemas.http.BearerToken token) {}

  /** Checks the status page's settings before anything starts. */
  private StatusAccess statusAccess() {
    java.net.InetAddress address;
    try {
      address = java.net.InetAddress.getByName(statusBind);
    } catch (java.net.UnknownHostException e) {
      throw new CliFailure(ExitCodes.USAGE, "--status-bind " + statusBind + ": unknown address");
    }
    io.fabricpulse.schemas.http.BearerToken token = null;
    if (statusTokenFile != null) {
      try {
        token = io.fabricpulse.schemas.http.BearerToken.fromFile(statusTokenFile);
      } catch (IOException e) {
        throw new CliFailure(
            ExitCodes.USAGE,
            "--status-token-file " + statusTokenFile + ": cannot read: " + describe(e));
      }
    }
    if (!address.isLoopbackAddress() && token == null) {
      throw new CliFailure(
          ExitCodes.USAGE,
          "--status-bind "
              + statusBind
              + ": not a loopback address, so it needs --status-token-file (the page would be"
              + " open to the network)");
    }
    return new StatusAccess(address, token);
  }

  private LiveStatus startStatusPage(
      FabricTopics topics, Properties client, StatusAccess access, List<HealthCheck> checks) {
    try {
      LiveStatus status =
          LiveStatus.start(topics, client, access.address(), statusPort, access.token(), checks);
      spec.commandLine().getOut().println("status page: " + status.url());
      return status;
    } catch (IOException e) {
      throw new CliFailure(
          ExitCodes.USAGE,
          "--status-port "
              + statusPort
              + ": cannot serve on "
              + statusBind
              + ": "
              + e.getMessage());
    }
  }

  private static String describe(IOException e) {
    return e instanceof java.nio.file.NoSuchFileException
        ? "No such file or directory"
        : e.getMessage();
  }
}
