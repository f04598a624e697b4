package io.fabricpulse.app.cli;

import io.fabricpulse.app.replay.ExportFile;
import io.fabricpulse.app.replay.HistoryRecord;
import io.fabricpulse.app.replay.LiveComparison;
import io.fabricpulse.app.replay.ReplayEngine;
import io.fabricpulse.app.replay.ReplayedAlert;
import io.fabricpulse.app.replay.RulesHash;
import io.fabricpulse.app.replay.Timeline;
import io.fabricpulse.app.replay.TopicHistory;
import io.fabricpulse.app.run.BundledRules;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricpulse replay}: the pipeline re-run over a range of topic history, as a shadow. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Re-run the rate stage and every detector over a range of topic history.",
      "",
      "Reads the raw topics from --from minus the warm-up to --to (as 'export' does: by",
      "timestamp, no consumer group) and runs the same topology as 'streams' over them",
      "as a shadow: in-process, with its own application id, state directory and",
      "schema registry; it writes no topic and leaves the live application, its",
      "groups and state untouched. Prints the incident timeline: every alert state",
      "change detected in the range, in order, with its evidence and the key rates",
      "of its port from 30 s before to 30 s after. Each alert carries label",
      "rules_hash, the fingerprint of the rule files it ran with. --rules replays",
      "with other rules; --compare-live diffs the replayed incidents against",
      "fabric.alerts over the range: new, missed, shifted (with the change in",
      "time to detect). The same range and rules print the same bytes every time."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse replay --bootstrap-servers kafka:9092 \\",
      "      --schema-registry-url http://registry:8081 \\",
      "      --from 2026-12-01T03:10:00Z --to 2026-12-01T03:40:00Z --node 'gpu00*'",
      "  fabricpulse replay --data-dir demo-data --from T1 --to T2 \\",
      "      --rules stricter/ --compare-live",
      "  fabricpulse replay --input incident.jsonl --from T1 --to T2 --format markdown"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the range was replayed in full (alerts, and differences with --compare-live, are output)",
      "1:some records could not be decoded or were not judged (dead letters): the rest was run",
      "2:usage error, bad rules, or Kafka or the data directory could not be read"
    })
public final class ReplayCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin HistoryOptions history;

  @Option(
      names = "--rules",
      paramLabel = "DIR",
      description = "Alert rule directory (default: the bundled alert-rules/).")
  Path rulesDir;

  @Option(
      names = "--format",
      defaultValue = "text",
      paramLabel = "FORMAT",
      description = "text, json (JSON lines) or markdown (default ${DEFAULT-VALUE}).")
  Timeline.Format format;

  @Option(
      names = "--warm-up",
      converter = DurationConverter.class,
      paramLabel = "DURATION",
      description = {
        "History read before --from to build up counter and",
        "detector state (default: the longest window of the rules)."
      })
  Duration warmUp;

  @Option(
      names = "--compare-live",
      description = "Diff the replayed incidents against fabric.alerts for the range.")
  boolean compareLive;

  @Option(
      names = "--input",
      paramLabel = "FILE",
      description = "Replay an 'export' file instead of the topics (no Kafka needed).")
  Path input;

  @Override
  public Integer call() throws Exception {
    history.validate();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (rulesDir != null) {
      RulesDirectory.require(rulesDir);
    }
    if (input != null && compareLive) {
      throw new CliFailure(ExitCodes.USAGE, "--compare-live reads fabric.alerts: not with --input");
    }
    Path scratch = Files.createTempDirectory("fabricpulse-replay");
    try {
      Path rulesPath = rulesDir != null ? rulesDir : BundledRules.extract(scratch);
      RuleSet rules;
      try {
        rules = RuleSet.load(rulesPath);
      } catch (RuleValidationException e) {
        e.problems().forEach(err::println);
        err.println(e.problems().size() + " problem(s) in the rules: nothing was replayed");
        return ExitCodes.USAGE;
      }
      String hash = RulesHash.of(rulesPath);
      Duration warm = warmUp != null ? warmUp : longestWindow(rules);
      Instant warmFrom = history.from.minus(warm);
      boolean partial = false;
      List<HistoryRecord> records;
      List<ReplayedAlert> live = null;
      if (input != null) {
        ExportFile.Result file = ExportFile.read(input, history.nodes());
        if (file.malformed() > 0) {
          err.println(
              "replay: "
                  + file.malformed()
                  + " malformed line(s) skipped; first: "
                  + file.firstProblem());
          partial = true;
        }
        records =
            file.records().stream()
                .filter(
                    r ->
                        r.time() >= warmFrom.toEpochMilli()
                            && r.time() <= history.to.toEpochMilli())
                .toList();
      } else {
        try (HistoryOptions.Source source = history.open()) {
          TopicHistory reader = new TopicHistory(source.client());
          TopicHistory.Result raw =
              reader.readWithTopology(
                  FabricTopics.defaults().raw(),
                  warmFrom,
                  history.to,
                  history.nodes(),
                  ExportCommand.Progress.onStderr(err));
          raw.warnings().forEach(w -> err.println("replay: " + w));
          if (raw.undecodable() > 0) {
            err.println(
                "replay: " + raw.undecodable() + " record(s) could not be decoded: skipped");
            partial = true;
          }
          records = raw.records();
          if (compareLive) {
            live = liveAlerts(reader, err);
          }
        }
      }
      ReplayEngine.Output output =
          ReplayEngine.run(records, rules, hash, history.from.minusSeconds(60), scratch);
      if (output.deadLetters() > 0) {
        err.println(
            "replay: "
                + output.deadLetters()
                + " record(s) not judged (sent to the dead-letter topic)");
        partial = true;
      }
      List<ReplayedAlert> inRange = inRange(output.alerts());
      LiveComparison.Result comparison =
          live == null ? null : LiveComparison.compare(inRange, live);
      new Timeline(
              new Timeline.Header(
                  history.from,
                  history.to,
                  warmFrom,
                  history.node == null ? "*" : history.node,
                  rulesDir != null ? rulesDir.toString() : "bundled alert-rules",
                  hash,
                  records.size()),
              inRange,
              output.ratesByNode(),
              comparison)
          .print(format, out);
      return partial ? ExitCodes.PARTIAL : ExitCodes.OK;
    } finally {
      ScratchDirectory.delete(scratch);
    }
  }

  /** What fabric.alerts holds for the range (detection times in it), for the same nodes. */
  private List<ReplayedAlert> liveAlerts(TopicHistory reader, PrintWriter err) {
    TopicHistory.Result result =
        reader.read(
            List.of(FabricTopics.defaults().alerts()),
            history.from,
            history.to,
            history.nodes(),
            (read, total) -> {});
    result.warnings().forEach(w -> err.println("replay: fabric.alerts: " + w));
    List<ReplayedAlert> live = new ArrayList<>();
    for (HistoryRecord r : result.records()) {
      live.add(new ReplayedAlert((Alert) r.value(), Instant.ofEpochMilli(r.time())));
    }
    return live;
  }

  private List<ReplayedAlert> inRange(List<ReplayedAlert> alerts) {
    return alerts.stream()
        .filter(a -> !a.detectedAt().isBefore(history.from) && !a.detectedAt().isAfter(history.to))
        .sorted(
            Comparator.comparing(ReplayedAlert::detectedAt)
                .thenComparing(a -> a.alert().getAlertId())
                .thenComparing(a -> a.alert().getState()))
        .toList();
  }

  /** The longest {@code window}-like threshold of the enabled rules (at least 1 minute). */
  static Duration longestWindow(RuleSet rules) {
    Duration longest = Duration.ofMinutes(1);
    for (Rule rule : rules.all()) {
      if (!rule.enabled()) {
        continue;
      }
      for (var e : rule.thresholds().asMap().entrySet()) {
        if (e.getKey().contains("window") && e.getValue() instanceof Duration d) {
          longest = d.compareTo(longest) > 0 ? d : longest;
        }
      }
    }
    return longest;
  }
}
