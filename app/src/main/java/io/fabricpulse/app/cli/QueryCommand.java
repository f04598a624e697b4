package io.fabricpulse.app.cli;

import io.fabricpulse.app.query.QueryVariables;
import io.fabricpulse.app.query.TopicQuery;
import io.fabricpulse.app.query.WhereClause;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricpulse query}: a CEL predicate over the rows of a topic. */
@Command(
    name = "query",
    mixinStandardHelpOptions = true,
    description = {
      "Print the rows of a topic that match a CEL expression, as JSON lines.",
      "",
      "A row is one record, or one port of a NodeCounters (counter topics) or",
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
      "  fabricpulse query --topic fabric.raw.gpu --variables"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the topic was read (matching rows or none)",
      "1:some records could not be decoded (skipped, named on stderr)",
      "2:usage error: a bad expression (with its position), an unknown topic or field,",
      "  or Kafka could not be read"
    })
public final class QueryCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin KafkaOptions kafka;

  @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "The topic.")
  String topicName;

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
      description = "Stop after N matching rows (default: no limit).")
  long limit;

  @Option(names = "--variables", description = "List the topic's variables and their types.")
  boolean listVariables;

  /** Counted down by Ctrl-C (or a test) to stop --follow. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
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
        matched = query.follow(from, limit, print, () -> stop.getCount() == 0);
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
