package io.fabricpulse.app.cli;

import io.fabricpulse.app.replay.HistoryRecord;
import io.fabricpulse.app.replay.TopicHistory;
import io.fabricpulse.schemas.json.JsonRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricpulse export}: what the raw topics hold for a time range, as JSON lines. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = {
      "Write what the raw topics hold for a time range as JSON lines, in time order.",
      "",
      "Every partition of each raw topic is sought by timestamp (offsetsForTimes) and",
      "read to the end of the range (plus a minute for records that came late), with",
      "no consumer group: nothing is committed, the live application is untouched.",
      "Records are decoded with the topics' Avro schemas and written in the form",
      "'detect' reads (NodeCounters, NcclLog, SmSweep, GpuEcc, GpuXid), merged by time",
      "(ties: topic, partition, offset). A partition whose retention no longer covers",
      "--from is named on stderr; progress shows on stderr when it is a terminal."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse export --bootstrap-servers kafka:9092 \\",
      "      --schema-registry-url http://registry:8081 \\",
      "      --from 2026-12-01T03:10:00Z --to 2026-12-01T03:40:00Z \\",
      "      --node 'gpu007' > incident.jsonl",
      "  fabricpulse detect incident.jsonl",
      "  fabricpulse export --data-dir demo-data --from T1 --to T2 > incident.jsonl"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every record of the range was written",
      "1:some records could not be decoded (skipped, the first 5 named on stderr)",
      "2:usage error, or Kafka or the data directory could not be read"
    })
public final class ExportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin HistoryOptions history;

  @Option(
      names = "--topics",
      split = ",",
      paramLabel = "TOPIC",
      description =
          "Raw topics to read (default: every raw topic, and fabric.topology as it stood at --to).")
  List<String> topicNames;

  @Override
  public Integer call() throws Exception {
    history.validate();
    List<TopicSpec> topics = rawTopics(topicNames);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    TopicHistory.Result result;
    try (HistoryOptions.Source source = history.open()) {
      TopicHistory reader = new TopicHistory(source.client());
      // all raw topics: with the cabling as of --to, so a replay of the file joins like the live
      // one
      result =
          topicNames == null || topicNames.isEmpty()
              ? reader.readWithTopology(
                  topics, history.from, history.to, history.nodes(), Progress.onStderr(err))
              : reader.read(
                  topics, history.from, history.to, history.nodes(), Progress.onStderr(err));
    }
    result.warnings().forEach(w -> err.println("export: " + w));
    for (HistoryRecord r : result.records()) {
      out.println(JsonRecords.toJson(r.value()));
    }
    out.flush();
    err.printf(
        "export: %d record(s) from %s to %s%n", result.records().size(), history.from, history.to);
    if (result.undecodable() > 0) {
      err.println("export: " + result.undecodable() + " record(s) could not be decoded: skipped");
      return ExitCodes.PARTIAL;
    }
    return ExitCodes.OK;
  }

  /** The raw topics named (default: all), refusing a name that is not one. */
  static List<TopicSpec> rawTopics(List<String> names) {
    List<TopicSpec> raw = FabricTopics.defaults().raw();
    if (names == null || names.isEmpty()) {
      return raw;
    }
    List<TopicSpec> chosen = new ArrayList<>();
    for (String name : names) {
      TopicSpec spec =
          raw.stream()
              .filter(t -> t.name().equals(name.trim()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new CliFailure(
                          ExitCodes.USAGE,
                          "--topics: '"
                              + name
                              + "' is not a raw topic (one of "
                              + String.join(", ", raw.stream().map(TopicSpec::name).toList())
                              + ")"));
      chosen.add(spec);
    }
    return chosen;
  }

  /** Progress on stderr when it is a terminal, at most every half second. */
  static final class Progress implements TopicHistory.Progress {
    private final PrintWriter err;
    private long shownAt;

    private Progress(PrintWriter err) {
      this.err = err;
    }

    static TopicHistory.Progress onStderr(PrintWriter err) {
      return System.console() == null ? (read, total) -> {} : new Progress(err);
    }

    @Override
    public void update(long read, long total) {
      long now = System.nanoTime();
      if (now - shownAt > 500_000_000L || read >= total) {
        shownAt = now;
        err.printf(
            "\rreading %,d of %,d records (%d%%)",
            read, total, total == 0 ? 100 : read * 100 / total);
        if (read >= total) {
          err.println();
        }
        err.flush();
      }
    }
  }
}
