package io.fabricpulse.app.cli;

import io.fabricpulse.app.replay.EmbeddedHistory;
import io.fabricpulse.app.replay.NodeFilter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Properties;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where {@code export} and {@code replay} read history: a Kafka cluster ({@link KafkaOptions}) or
 * the data directory a {@code demo --data-dir D} left (its embedded broker started again on D), the
 * range and the nodes.
 */
public final class HistoryOptions {
  @Mixin KafkaOptions kafka;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      description = {
        "Read the history a 'demo --data-dir DIR' kept: starts",
        "its embedded broker on DIR (127.0.0.1 only) instead",
        "of connecting to --bootstrap-servers."
      })
  Path dataDir;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "TIME",
      description = "Start of the range, ISO-8601 UTC (e.g. 2026-12-01T03:10:00Z).")
  Instant from;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "TIME",
      description = "End of the range (inclusive), ISO-8601 UTC.")
  Instant to;

  @Option(
      names = "--node",
      paramLabel = "GLOB",
      description = {
        "Only records of nodes matching this shell glob (gpu00*);",
        "records without a node are kept. Default: every node."
      })
  String node;

  /** An open source of history: closing it stops an embedded broker it started. */
  record Source(Properties client, AutoCloseable owner) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      if (owner != null) {
        owner.close();
      }
    }
  }

  void validate() {
    if (to.isBefore(from)) {
      throw new CliFailure(ExitCodes.USAGE, "--to " + to + " is before --from " + from);
    }
  }

  NodeFilter nodes() {
    try {
      return node == null ? NodeFilter.ALL : new NodeFilter(node);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(ExitCodes.USAGE, "--node " + e.getMessage());
    }
  }

  Source open() throws IOException {
    if (dataDir == null) {
      return new Source(kafka.clientProperties(System.getenv()), null);
    }
    try {
      EmbeddedHistory history = EmbeddedHistory.open(dataDir);
      return new Source(history.clientProperties(), history);
    } catch (IllegalArgumentException e) {
      throw new CliFailure(ExitCodes.USAGE, "--data-dir " + e.getMessage());
    }
  }
}
