package io.fabricpulse.streams.detect.link;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The link detector's alerts and progress, for the families that attach a node's link alerts to
 * their own (NCCL_ERROR): the stream {@link #SHARED_STREAM} ({@link
 * io.fabricpulse.streams.alerts.DetectorInputs#shared}) carries every link alert the link detector
 * raises (key alert_id) and, every second of stream time, one progress marker per node whose clock
 * moved (key {@code cluster/node}, null value, header {@link #HEADER}, timestamp the node's clock):
 * every link alert of that node up to that time has been sent before it. Both come from the one
 * task of the node, in that order, so a reader keyed by node sees a node's alerts and markers in
 * the order they were made, whatever the load.
 */
public final class LinkProgress {

  /** The name the link family shares its alerts and progress markers under. */
  public static final String SHARED_STREAM = "link-alerts-and-progress";

  /** Header marking a progress marker (value: "1"). */
  public static final String HEADER = "fabricpulse.link.progress";

  private LinkProgress() {}

  static Headers headers() {
    return new RecordHeaders().add(HEADER, "1".getBytes(StandardCharsets.UTF_8));
  }

  /** Whether a record is a progress marker of the link detector. */
  public static boolean isMarker(Headers headers) {
    return headers != null && headers.lastHeader(HEADER) != null;
  }
}
