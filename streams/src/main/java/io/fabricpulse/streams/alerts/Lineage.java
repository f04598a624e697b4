package io.fabricpulse.streams.alerts;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Where the record that changed an alert's state came from (topic, partition, offset). */
public record Lineage(String topic, Integer partition, Long offset) {

  public static final Lineage NONE = new Lineage(null, null, null);

  /** The current record's coordinates; {@link #NONE} inside a punctuation. */
  public static Lineage of(ProcessorContext<?, ?> context) {
    return context.recordMetadata().map(Lineage::of).orElse(NONE);
  }

  static Lineage of(RecordMetadata m) {
    return new Lineage(m.topic(), m.partition(), m.offset());
  }
}
