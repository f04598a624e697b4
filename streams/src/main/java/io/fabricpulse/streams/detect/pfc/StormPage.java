package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.streams.order.UpstreamWatermark;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * How the port stage hands a PAUSE_STORM alert (or its progress) to the propagation stage, carried
 * in record headers through the {@code pfc-storms-by-cluster} repartition topic (they never reach
 * fabric.alerts: the propagation stage forwards fresh records).
 */
enum StormPage {
  /** Publish it (an origin, a RESOLVED, or a victim when no propagation rule covers it). */
  PAGE,
  /** A victim's FIRING: counts towards the incident at once, published only on its RELEASE. */
  HOLD,
  /** The hold of this victim FIRING is over: publish it unless an incident folded it. */
  RELEASE,
  /**
   * No alert (null value): the port stage has sent every storm record up to the record timestamp
   * and sends only later ones afterwards ({@link UpstreamWatermark}).
   */
  TICK;

  static final String HEADER = "fabricpulse.pfc.page";

  /** Which port-stage task (its fabric.rates partition) sent the record. */
  static final String SOURCE_HEADER = "fabricpulse.pfc.source";

  /** The record headers that say so; a PAGE has none, so nothing leaks into fabric.alerts. */
  Headers headers() {
    RecordHeaders headers = new RecordHeaders();
    return this == PAGE ? headers : headers.add(HEADER, name().getBytes(StandardCharsets.UTF_8));
  }

  /** The headers of a record the port stage sends into the repartition topic. */
  Headers headers(String source) {
    return headers().add(SOURCE_HEADER, source.getBytes(StandardCharsets.UTF_8));
  }

  /** The page of a record; records without the header are pages. */
  static StormPage of(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(HEADER);
    return h == null ? PAGE : valueOf(new String(h.value(), StandardCharsets.UTF_8));
  }

  /** The sending port-stage task of a record, or {@code ""} when it does not say. */
  static String sourceOf(Headers headers) {
    Header h = headers == null ? null : headers.lastHeader(SOURCE_HEADER);
    return h == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
  }
}
