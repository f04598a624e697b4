package io.fabricpulse.app.cli;

import io.fabricpulse.app.interactive.ApiClient;
import io.fabricpulse.app.interactive.ApiTables;
import io.fabricpulse.app.interactive.QueryApi;
import io.fabricpulse.app.query.QueryVariables;
import io.fabricpulse.app.query.TopicQuery;
import io.fabricpulse.app.query.WhereClause;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fabricpulse query}: a CEL predicate over the rows of a topic, or ({@code --api}) the
 * interactive-query API of the {@code streams} application rendered as tables.
 */
@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    customSynopsis = {
      "fabricpulse query --topic=TOPIC [--where=CEL] [--from=TIME | --follow]",
      "    [--fields=FIELD[,FIELD...]] [--limit=N] [--variables] " + KafkaOptions.SYNOPSIS,
      "fabricpulse query --api=URL (rates --node=CLUSTER/NODE [--port=PORT]",
      "    | top --by=RATE [--limit=N] | alerts [--node=N] [--kind=K] [--severity=S]",
      "    | nccl --job=JOB [--cluster=C]) [--format=table|json] [--api-token-file=FILE]"
    },
    description = {
      "Print a topic's rows matching a CEL expression, or ask the query API.",
      "",
      "With --topic: the rows that match, as JSON lines (below). With --api: ask the",
      "interactive-query API of a running `streams` application (any of its",
      "instances: it routes and merges) and print the answer as a table:",
      "  rates   the latest rates of a node's ports (--node CLUSTER/NODE, --port",
      "          DEVICE/PORT or NETDEV)",
      "  top     the --limit (default 10) ports with the highest --by: pause_ratio,",
      "          rx_pause_ratio, tx_pause_ratio (0..1) or a counter's rate per second",
      "          (port_xmit_wait, symbol_error, ...)",
      "  alerts  the open alerts, filtered by --node, --kind, --severity",
      "  nccl    the NCCL transport verdict of every host of --job",
      "The token, if the API needs one: --api-token-file, else $FABRICPULSE_QUERY_TOKEN.",
      "Which instances answered and their store lag are printed on stderr.",
      "",
      "--topic: a row is one record, or one port of a NodeCounters (counter topics) or",
      "NodeRates (fabric.rates) record. The variables are the row's fields, typed from",
      "its Avro schema (string, int, double, bool, timestamp, map, list); on",
      "fabric.rates also rates[\"counter\"] (per second), deltas[\"counter\"] and",
      "pause_ratio, rx_pause_ratio, tx_pause_ratio (0..1); on the counter topics",
      "counters[\"counter\"] (raw value). --variables lists them for a topic. The",
      "expression is checked before any record is read: a bad one is reported with",
      "its line and column (exit 2). A null field is absent: a row whose expression",
      "needs it does not match. Without --follow: the topic from --from (default: its",
      "beginning) to its end, in event-time order; with --follow: new records as they",
      "come, until --limit or Ctrl-C. No consumer group is used."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse query --bootstrap-servers kafka:9092 \\",
      "      --schema-registry-url http://registry:8081 --topic fabric.rates \\",
      "      --where 'node.startsWith(\"gpu1\") && pause_ratio > 0.5' --follow",
      "  fabricpulse query ... --topic fabric.alerts \\",
      "      --where 'kind == \"PAUSE_STORM\"' --from 2026-12-01T03:00:00Z \\",
      "      --fields started_at,node,netdev,summary",
      "  fabricpulse query --topic fabric.raw.gpu --variables",
      "  fabricpulse query --api http://127.0.0.1:8090 top --by pause_ratio --limit 5",
      "  fabricpulse query --api http://127.0.0.1:8090 alerts --severity critical"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the topic was read (matching rows or none); with --api, every instance answered",
      "1:some records could not be decoded (skipped, named on stderr); with --api, some",
      "  instances did not answer (the answer holds the others' rows)",
      "2:usage error: a bad expression (with its position), an unknown topic or field,",
      "  or Kafka could not be read; with --api, the API was unreachable, refused the",
      "  token (HTTP 401) or the query (the reason on stderr)"
    })
public final class QueryCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin KafkaOptions kafka;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "The topic.")
  String topicName;

  @Option(
      names = "--api",
      paramLabel = "URL",
      description = {"Query API of a streams instance,", "e.g. http://127.0.0.1:8090"})
  URI api;

  @Parameters(
      arity = "0..1",
      paramLabel = "VIEW",
      description = "With --api: rates, top, alerts or nccl.")
  String view;

  @Option(
      names = "--api-token-file",
      paramLabel = "FILE",
      description = "Bearer token for --api (default: $FABRICPULSE_QUERY_TOKEN).")
  Path apiTokenFile;

  @Option(
      names = "--node",
      paramLabel = "NODE",
      description = "--api rates: CLUSTER/NODE; alerts: NODE or CLUSTER/NODE.")
  String node;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "--api rates: only this port (DEVICE/PORT or NETDEV).")
  String port;

  @Option(
      names = "--by",
      paramLabel = "RATE",
      description = "--api top: pause_ratio, rx_pause_ratio, tx_pause_ratio or a counter.")
  String by;

  @Option(names = "--kind", paramLabel = "KIND", description = "--api alerts: alert kind.")
  String kind;

  @Option(
      names = "--severity",
      paramLabel = "SEVERITY",
      description = "--api alerts: info, warning or critical.")
  String severity;

  @Option(names = "--job", paramLabel = "JOB", description = "--api nccl: the job id.")
  String job;

  @Option(
      names = "--cluster",
      paramLabel = "CLUSTER",
      description = "--api nccl: only this cluster's hosts.")
  String cluster;

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "FORMAT",
      description = "--api: table or json (the API's answer) (default ${DEFAULT-VALUE}).")
  String format;

  @Option(
      names = "--where",
      paramLabel = "CEL",
      description = "The predicate, e.g. 'pause_ratio > 0.5' (default: every row).")
  String where;

  @Option(
      names = "--from",
      paramLabel = "TIME",
      description = "Rows from this event time on (ISO-8601 UTC).")
  Instant from;

  @Option(names = "--follow", description = "Keep reading new records.")
  boolean follow;

  @Option(
      names = "--fields",
      split = ",",
      paramLabel = "FIELD",
      description = "Print only these variables, in this order (default: all).")
  List<String> fields = new ArrayList<>();

  @Option(
      names = "--limit",
      defaultValue = "0",
      paramLabel = "N",
      description = {
        "Stop after N matching rows (default: no limit);",
        "--api top: the N highest ports (default 10)."
      })
  long limit;

  @Option(names = "--variables", description = "List the topic's variables and their types.")
  boolean listVariables;

  /** Counted down by Ctrl-C (or a test) to stop --follow. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (api != null) {
      if (topicName != null) {
        throw new CliFailure(ExitCodes.USAGE, "--api and --topic: give one of them");
      }
      if (where != null || from != null || follow || listVariables || !fields.isEmpty()) {
        throw new CliFailure(
            ExitCodes.USAGE,
            "--where, --from, --follow, --fields and --variables are for --topic, not --api");
      }
      return askApi(out, err);
    }
    if (topicName == null) {
      throw new CliFailure(ExitCodes.USAGE, "give --topic TOPIC (or --api URL VIEW)");
    }
    if (view != null) {
      throw new CliFailure(ExitCodes.USAGE, view + ": a VIEW is for --api only");
    }
    TopicSpec topic = topic(topicName);
    QueryVariables variables = QueryVariables.forTopic(topic);
    if (listVariables) {
      variables.variables().forEach((name, type) -> out.println(name + " " + type.name()));
      out.flush();
      return ExitCodes.OK;
    }
    for (String field : fields) {
      if (!variables.variables().containsKey(field)) {
        throw new CliFailure(
            ExitCodes.USAGE,
            "--fields: '"
                + field
                + "' is not a variable of "
                + topic.name()
                + " (one of "
                + String.join(", ", variables.variables().keySet())
                + ")");
      }
    }
    WhereClause clause;
    try {
      clause = WhereClause.compile(where == null ? "true" : where, variables);
    } catch (WhereClause.BadExpression e) {
      throw new CliFailure(ExitCodes.USAGE, e.getMessage().strip());
    }
    if (limit < 0) {
      throw new CliFailure(ExitCodes.USAGE, "--limit must be 0 or more");
    }
    Properties client = kafka.clientProperties(System.getenv());
    TopicQuery query = new TopicQuery(client, topic, variables, clause);
    java.util.function.Consumer<Map<String, Object>> print =
        row -> {
          out.println(io.fabricpulse.app.query.RowJson.of(row, fields));
          if (follow) {
            out.flush();
          }
        };
    long matched;
    long undecodable = 0;
    if (follow) {
      Thread hook = new Thread(stop::countDown, "query-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        matched =
            query.follow(
                from,
                limit,
                print,
                () -> stop.getCount() == 0,
                () -> {
                  err.println(
                      "query: following "
                          + topic.name()
                          + (from == null ? " from its end" : " from " + from));
                  err.flush();
                });
        undecodable = query.undecodableFollowed();
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // Ctrl-C stopped us
        }
      }
    } else {
      TopicQuery.Counts counts = query.history(from, limit, print, w -> err.println("query: " + w));
      matched = counts.matched();
      undecodable = counts.undecodable();
    }
    out.flush();
    err.println("query: " + matched + " matching row(s)");
    if (clause.unmatchedForMissing() > 0) {
      err.println(
          "query: "
              + clause.unmatchedForMissing()
              + " row(s) lacked a variable the expression needs (a null field), not matched; first: "
              + clause.firstMissing());
    }
    if (undecodable > 0) {
      err.println("query: " + undecodable + " record(s) could not be decoded: skipped");
      return ExitCodes.PARTIAL;
    }
    return ExitCodes.OK;
  }

  /** {@code --api URL VIEW}: one GET, its answer as a table (or JSON) and who answered. */
  private int askApi(PrintWriter out, PrintWriter err) {
    if (view == null) {
      throw new CliFailure(ExitCodes.USAGE, "--api: give a VIEW: rates, top, alerts or nccl");
    }
    if (!format.equals("table") && !format.equals("json")) {
      throw new CliFailure(ExitCodes.USAGE, "--format: table or json, not '" + format + "'");
    }
    Map<String, String> params = new LinkedHashMap<>();
    switch (view) {
      case "rates" -> {
        params.put("node", requiredFor("rates", "--node", node));
        params.put("port", port);
      }
      case "top" -> {
        params.put("by", requiredFor("top", "--by", by));
        params.put("n", Long.toString(limit == 0 ? 10 : limit));
      }
      case "alerts" -> {
        params.put("node", node);
        params.put("kind", kind);
        params.put("severity", severity);
      }
      case "nccl" -> {
        params.put("job", requiredFor("nccl", "--job", job));
        params.put("cluster", cluster);
      }
      default ->
          throw new CliFailure(
              ExitCodes.USAGE, view + ": not a view (one of rates, top, alerts, nccl)");
    }
    char[] token = QueryToken.read(apiTokenFile, "--api-token-file", System.getenv());
    ApiClient.Reply reply;
    try {
      reply = new ApiClient(api, token).get("/v1/" + view, params);
    } catch (ApiClient.Unreachable e) {
      throw new CliFailure(ExitCodes.USAGE, e.getMessage());
    } finally {
      java.util.Arrays.fill(token, '\0');
    }
    if (reply.status() == 401) {
      throw new CliFailure(
          ExitCodes.USAGE,
          api
              + ": the query API refused the token (HTTP 401): give --api-token-file or "
              + QueryApi.TOKEN_VARIABLE);
    }
    if (reply.status() != 200) {
      throw new CliFailure(
          ExitCodes.USAGE,
          api + ": HTTP " + reply.status() + ": " + reply.body().getOrDefault("error", ""));
    }
    if (format.equals("json")) {
      out.println(ApiClient.json(reply.body()));
    } else {
      ApiTables.render(view, reply.body()).forEach(out::println);
    }
    out.flush();
    err.println("query: " + ApiTables.instances(reply.body()));
    return Boolean.FALSE.equals(reply.body().get("complete")) ? ExitCodes.PARTIAL : ExitCodes.OK;
  }

  private static String requiredFor(String view, String option, String value) {
    if (value == null || value.isBlank()) {
      throw new CliFailure(ExitCodes.USAGE, "--api " + view + " needs " + option);
    }
    return value;
  }

  private static TopicSpec topic(String name) {
    List<TopicSpec> all = FabricTopics.defaults().all();
    return all.stream()
        .filter(t -> t.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new CliFailure(
                    ExitCodes.USAGE,
                    "--topic: '"
                        + name
                        + "' is not a fabricpulse topic (one of "
                        + String.join(", ", all.stream().map(TopicSpec::name).toList())
                        + ")"));
  }
}
