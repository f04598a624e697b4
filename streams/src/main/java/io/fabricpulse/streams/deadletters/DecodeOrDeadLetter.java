package io.fabricpulse.streams.deadletters;

import io.fabricpulse.avro.DeadLetter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes a detector input's value bytes in a processor, right after its source: bytes it cannot
 * decode (random bytes, an unknown schema id, truncated Avro, a record type the topic does not
 * carry) become a {@link DeadLetter} with the topic, partition, offset, this processor's name, the
 * exception and the bytes as received; the record after it is processed as usual.
 *
 * <p>Why not a {@code deserialization.exception.handler}: Kafka Streams decodes a partition's
 * records ahead of processing them, when it advances the partition's queue head, and the handler's
 * dead letter is sent then. A commit between that and the processing of the next good record covers
 * the dead letter but not the bad record's offset, and when the task moves its new owner reads the
 * bad record again: two dead letters for one bad record (seen under load in {@code
 * FaultsUnderLoadIT}). Here the dead letter is written while the bad record itself is processed, so
 * under exactly-once it is committed with that record's offset, as the rate stage's are.
 *
 * <p>A failure that is not the record's fault (the schema registry unreachable, failing or refusing
 * the credentials: {@link UndecodableRecords#notTheRecordsFault}) is thrown, so the task fails and
 * is retried from its last commit instead of dead-lettering good records.
 */
public final class DecodeOrDeadLetter<T>
    implements FixedKeyProcessor<String, byte[], DecodedValue<T>> {

  private static final Logger LOG = LoggerFactory.getLogger(DecodeOrDeadLetter.class);

  private final String name;
  private final Deserializer<T> deserializer;
  private FixedKeyProcessorContext<String, DecodedValue<T>> context;
  private long refused;

  /**
   * @param name this processor's name, written into its dead letters
   * @param deserializer the topic's value deserializer (configured)
   */
  public DecodeOrDeadLetter(String name, Deserializer<T> deserializer) {
    this.name = name;
    this.deserializer = deserializer;
  }

  @Override
  public void init(FixedKeyProcessorContext<String, DecodedValue<T>> context) {
    this.context = context;
  }

  @Override
  public void process(FixedKeyRecord<String, byte[]> record) {
    if (record.value() == null) {
      context.forward(record.withValue(DecodedValue.of(null)));
      return;
    }
    Optional<RecordMetadata> source = context.recordMetadata();
    String topic = source.map(RecordMetadata::topic).orElse(null);
    T value;
    try {
      value = deserializer.deserialize(topic, record.headers(), record.value());
    } catch (RuntimeException e) {
      if (UndecodableRecords.notTheRecordsFault(e)) {
        // the registry is down or refuses our credentials: every record would fail the same way
        throw new StreamsException(
            "cannot decode "
                + describe(source)
                + ": schema registry unavailable or refusing access, not dead-lettering: "
                + e.getMessage(),
            e);
      }
      DeadLetter letter = letterFor(record, source, e);
      long count = ++refused;
      if (count <= UndecodableRecords.LOGGED_IN_FULL || count % UndecodableRecords.LOG_EVERY == 0) {
        LOG.warn(
            "dead letter #{} (undecodable): {} at {}: {}",
            count,
            describe(source),
            name,
            letter.getException());
      }
      context.forward(record.withValue(DecodedValue.refused(letter)));
      return;
    }
    context.forward(record.withValue(DecodedValue.of(value)));
  }

  private static String describe(Optional<RecordMetadata> source) {
    return source.map(m -> m.topic() + "-" + m.partition() + "@" + m.offset()).orElse("a record");
  }

  /** The dead letter of {@code record}: its coordinates, the reason and its bytes as received. */
  private DeadLetter letterFor(
      FixedKeyRecord<String, byte[]> record, Optional<RecordMetadata> source, Exception e) {
    return DeadLetter.newBuilder()
        .setTime(Instant.ofEpochMilli(Math.max(0, record.timestamp())))
        .setTopic(source.map(RecordMetadata::topic).orElse(null))
        .setPartition(source.map(RecordMetadata::partition).orElse(null))
        .setOffset(source.map(RecordMetadata::offset).orElse(null))
        .setProcessor(name)
        .setReason("cannot decode the record's value")
        .setException(UndecodableRecords.exceptionLine(e))
        .setKey(
            record.key() == null
                ? null
                : ByteBuffer.wrap(record.key().getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteBuffer.wrap(record.value()))
        .build();
  }
}
