package io.fabricpulse.streams;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Lineage headers on derived records: the raw record (topic, partition, offset) they came from, so
 * an alert raised on a rate can name the sample behind it (docs/design.md section 5). Topic as
 * UTF-8, partition as a 4-byte and offset as an 8-byte big-endian integer.
 */
public final class LineageHeaders {

  public static final String TOPIC = "fabricpulse.lineage.topic";
  public static final String PARTITION = "fabricpulse.lineage.partition";
  public static final String OFFSET = "fabricpulse.lineage.offset";

  private LineageHeaders() {}

  /** A copy of {@code original} with the lineage of {@code source} set (replacing any earlier). */
  public static Headers of(Headers original, RecordMetadata source) {
    RecordHeaders headers = new RecordHeaders(original.toArray());
    headers.remove(TOPIC).remove(PARTITION).remove(OFFSET);
    headers.add(TOPIC, source.topic().getBytes(StandardCharsets.UTF_8));
    headers.add(PARTITION, ByteBuffer.allocate(4).putInt(source.partition()).array());
    headers.add(OFFSET, ByteBuffer.allocate(8).putLong(source.offset()).array());
    return headers;
  }

  public static String topic(Headers headers) {
    Header header = headers.lastHeader(TOPIC);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }

  public static Integer partition(Headers headers) {
    Header header = headers.lastHeader(PARTITION);
    return header == null ? null : ByteBuffer.wrap(header.value()).getInt();
  }

  public static Long offset(Headers headers) {
    Header header = headers.lastHeader(OFFSET);
    return header == null ? null : ByteBuffer.wrap(header.value()).getLong();
  }
}
