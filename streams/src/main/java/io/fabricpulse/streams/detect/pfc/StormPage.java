package io.fabricpulse.streams.detect.pfc;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * How the port stage hands a PAUSE_STORM alert to the propagation stage, carried in a record header
 * through the {@code pfc-storms-by-cluster} repartition topic (it never reaches fabric.alerts).
 */
enum StormPage {
  /** Publish it (an origin, a RESOLVED, or a victim when no propagation rule covers it). */
  PAGE,
  /** A victim's FIRING: counts towards the incident at once, published only on its RELEASE. */
  HOLD,
  /** The hold of this victim FIRING is over: publish it unless an incident folded it. */
  RELEASE;

  static final String HEADER = "fabricpulse.pfc.page";

  /** The record headers that say so; a PAGE has none, so nothing leaks into fabric.alerts. */
  Headers headers() {
    RecordHeaders headers = new RecordHeaders();
    return this == PAGE ? headers : headers.add(HEADER, name().getBytes(StandardCharsets.UTF_8));
  }

  /** The page of a record; records without the header are pages. */
  static StormPage of(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(HEADER);
    return h == null ? PAGE : valueOf(new String(h.value(), StandardCharsets.UTF_8));
  }
}
