package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.Malformed;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts one source's malformed input and logs it at most once per {@code period}: the first
 * problem at once, then one line per period with how many were skipped and the latest example (file
 * and line), so a garbled log cannot flood the node's journal.
 */
final class MalformedReporter {
  private static final Logger LOG = LoggerFactory.getLogger(MalformedReporter.class);

  private final SourceKind kind;
  private final Duration period;
  private long total;
  private long sinceReport;
  private Malformed latest;
  private Instant reportedAt;

  MalformedReporter(SourceKind kind, Duration period) {
    this.kind = kind;
    this.period = period;
  }

  synchronized void count(List<Malformed> malformed, Instant now) {
    if (!malformed.isEmpty()) {
      total += malformed.size();
      sinceReport += malformed.size();
      latest = malformed.get(malformed.size() - 1);
    }
    if (sinceReport > 0 && (reportedAt == null || !now.isBefore(reportedAt.plus(period)))) {
      LOG.warn(
          "{}: skipped {} malformed input(s) ({} since start), latest: {}",
          kind.section(),
          sinceReport,
          total,
          latest);
      sinceReport = 0;
      reportedAt = now;
    }
  }

  synchronized long total() {
    return total;
  }
}
