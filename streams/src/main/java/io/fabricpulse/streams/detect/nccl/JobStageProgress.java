package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.streams.order.UpstreamWatermark;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * How the host stage (one task per partition of the NCCL inputs) tells the job stage ({@link
 * JobIncidents}) how far it has got, through the {@code nccl-alerts-by-cluster} repartition topic.
 * Every host alert of a job and every progress tick (key cluster, null value) names its sending
 * task in a header; the job stage judges a job's host alerts in event-time order up to the low
 * watermark over those tasks ({@link UpstreamWatermark}), so the job's page names the same first
 * host, start and hosts whatever order the tasks' records arrive in.
 *
 * <p>A host task's own inputs (log lines, port changes, link state) are merged from several
 * upstream tasks too, so a log line may reach it after records of later times. A tick therefore
 * promises only the time {@link #SETTLE} before the task's stream time; a job's host alert later
 * than that (a log line more than {@code SETTLE} of event time behind the rest of its task's input)
 * goes out just after the last tick and is judged on arrival.
 */
final class JobStageProgress {

  /** How far behind its task's stream time a host's NCCL line may still arrive and be ordered. */
  static final Duration SETTLE = Duration.ofSeconds(30);

  static final String SOURCE_HEADER = "fabricpulse.nccl.source";

  private JobStageProgress() {}

  /** The headers of a record the host task {@code source} sends to the job stage. */
  static Headers headers(String source) {
    return new RecordHeaders().add(SOURCE_HEADER, source.getBytes(StandardCharsets.UTF_8));
  }

  /** The sending host task of a record, or null when it does not say. */
  static String sourceOf(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(SOURCE_HEADER);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** {@code headers} without the source header, so it never reaches fabric.alerts. */
  static Headers withoutSource(Headers headers) {
    RecordHeaders copy = new RecordHeaders(headers == null ? new Header[0] : headers.toArray());
    copy.remove(SOURCE_HEADER);
    return copy;
  }
}
