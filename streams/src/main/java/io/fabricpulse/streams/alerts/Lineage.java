package io.fabricpulse.streams.alerts;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Where the record that changed an alert's state came from (topic, partition, offset).
 *
 * <p>A record a processor held back and forwards later (the per-node event-time order of
 * fabric.rates) carries its own coordinates in {@code fabricpulse.input.*} headers, because the
 * context then describes the record that released it.
 */
public record Lineage(String topic, Integer partition, Long offset) {

  public static final Lineage NONE = new Lineage(null, null, null);

  static final String TOPIC_HEADER = "fabricpulse.input.topic";
  static final String PARTITION_HEADER = "fabricpulse.input.partition";
  static final String OFFSET_HEADER = "fabricpulse.input.offset";

  /** The current record's coordinates; {@link #NONE} inside a punctuation. */
  public static Lineage of(ProcessorContext<?, ?> context) {
    return context.recordMetadata().map(Lineage::of).orElse(NONE);
  }

  /** The coordinates {@code headers} carry ({@link #toHeaders}), else the current record's. */
  public static Lineage of(ProcessorContext<?, ?> context, Headers headers) {
    Header topic = headers.lastHeader(TOPIC_HEADER);
    if (topic == null) {
      return of(context);
    }
    Header partition = headers.lastHeader(PARTITION_HEADER);
    Header offset = headers.lastHeader(OFFSET_HEADER);
    return new Lineage(
        new String(topic.value(), StandardCharsets.UTF_8),
        partition == null ? null : ByteBuffer.wrap(partition.value()).getInt(),
        offset == null ? null : ByteBuffer.wrap(offset.value()).getLong());
  }

  /** Headers naming these coordinates, for a record forwarded after others. */
  public Headers toHeaders() {
    RecordHeaders headers = new RecordHeaders();
    if (topic != null) {
      headers.add(TOPIC_HEADER, topic.getBytes(StandardCharsets.UTF_8));
      if (partition != null) {
        headers.add(PARTITION_HEADER, ByteBuffer.allocate(4).putInt(partition).array());
      }
      if (offset != null) {
        headers.add(OFFSET_HEADER, ByteBuffer.allocate(8).putLong(offset).array());
      }
    }
    return headers;
  }

  static Lineage of(RecordMetadata m) {
    return new Lineage(m.topic(), m.partition(), m.offset());
  }
}
