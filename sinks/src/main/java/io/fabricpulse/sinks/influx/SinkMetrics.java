package io.fabricpulse.sinks.influx;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of the sink, safe to read from another thread (e.g. the demo's status line). */
public final class SinkMetrics {

  final AtomicLong recordsConsumed = new AtomicLong();
  final AtomicLong malformedRecords = new AtomicLong();
  final AtomicLong pointsWritten = new AtomicLong();
  final AtomicLong writeRequests = new AtomicLong();
  final AtomicLong writeFailures = new AtomicLong();
  final AtomicLong pointsRejected = new AtomicLong();
  final AtomicLong lateSamples = new AtomicLong();
  final AtomicLong rewrittenBuckets = new AtomicLong();
  final AtomicLong offsetCommits = new AtomicLong();
  final AtomicLong healthPointsWritten = new AtomicLong();
  final AtomicLong healthWriteFailures = new AtomicLong();

  /** Kafka records polled (rates and alerts, malformed included). */
  public long recordsConsumed() {
    return recordsConsumed.get();
  }

  /** Records that could not be decoded; logged with their coordinates and skipped. */
  public long malformedRecords() {
    return malformedRecords.get();
  }

  /** Points the server acknowledged. */
  public long pointsWritten() {
    return pointsWritten.get();
  }

  /** Successful write requests. */
  public long writeRequests() {
    return writeRequests.get();
  }

  /** Failed write attempts (each is retried; no point is dropped for them). */
  public long writeFailures() {
    return writeFailures.get();
  }

  /** Points the server refused as invalid (HTTP 400/422): logged as errors and not retried. */
  public long pointsRejected() {
    return pointsRejected.get();
  }

  /**
   * Samples for a 10 s bucket that was written and is no longer kept (see TenSecondAggregator):
   * logged, not folded into the aggregate; their full-resolution fields are written.
   */
  public long lateSamples() {
    return lateSamples.get();
  }

  /**
   * 10 s buckets re-opened after being written, to be written again with the complete aggregate.
   */
  public long rewrittenBuckets() {
    return rewrittenBuckets.get();
  }

  /** Points about the pipeline itself (PipelineHealth) the server acknowledged. */
  public long healthPointsWritten() {
    return healthPointsWritten.get();
  }

  /** Failed writes of health points (not retried: the next one carries newer values). */
  public long healthWriteFailures() {
    return healthWriteFailures.get();
  }

  /** Successful offset commits. */
  public long offsetCommits() {
    return offsetCommits.get();
  }

  @Override
  public String toString() {
    return "SinkMetrics[consumed="
        + recordsConsumed()
        + ", malformed="
        + malformedRecords()
        + ", pointsWritten="
        + pointsWritten()
        + ", writeRequests="
        + writeRequests()
        + ", writeFailures="
        + writeFailures()
        + ", pointsRejected="
        + pointsRejected()
        + ", lateSamples="
        + lateSamples()
        + ", rewrittenBuckets="
        + rewrittenBuckets()
        + ", commits="
        + offsetCommits()
        + ", healthPoints="
        + healthPointsWritten()
        + "]";
  }
}
