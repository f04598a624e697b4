package io.fabricpulse.streams.deadletters;

import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application's {@code deserialization.exception.handler}: a record a source cannot decode
 * (random bytes, an unknown schema id, truncated Avro, a record type its topic does not carry)
 * becomes a {@link DeadLetter} on fabric.dlq with its topic, partition, offset, the source node
 * that refused it, the exception and the raw key and value, and the stream thread goes on with the
 * next record. Without it Kafka's log-and-fail default ends the thread, and since the bad record is
 * never committed past, every restart fails on it again.
 *
 * <p>A failure that is not the record's fault (the schema registry unreachable, failing, or
 * refusing the credentials) is not dead-lettered: the task fails and Kafka Streams retries from the
 * last commit, so an outage does not turn good records into dead letters.
 *
 * <p>The dead letter is handed back to Kafka Streams (KIP-1034), which sends it with the task's
 * producer, in the transaction open when the record is decoded; that can be ahead of the record's
 * own offset, which is why the application's sources no longer rely on it (below).
 *
 * <p>No source of the application decodes at the source any more: the rate stage decodes in {@code
 * rates-compute} and the detector inputs in {@link DecodeOrDeadLetter}, which write their dead
 * letters while the bad record itself is processed. This handler is the safety net of a source
 * added later that decodes at the source; it is exposed to a duplicate dead letter when a task
 * moves (see {@link DecodeOrDeadLetter} for why). {@link #install} puts it and its settings into an
 * application config.
 */
public final class UndecodableRecords implements DeserializationExceptionHandler {

  private static final Logger LOG = LoggerFactory.getLogger(UndecodableRecords.class);

  /** Application config key: the dead-letter topic (default {@value FabricTopics#DEAD_LETTERS}). */
  public static final String TOPIC = "fabricpulse.dlq.topic";

  /**
   * Prefix of the schema-registry settings the dead letters are written with, e.g. {@code
   * fabricpulse.dlq.serde.schema.registry.url}; kept apart from the client settings so Kafka's
   * clients do not see them.
   */
  public static final String SERDE_PREFIX = "fabricpulse.dlq.serde.";

  /** Warnings logged with each record's coordinates before they are only counted. */
  static final int LOGGED_IN_FULL = 10;

  /** After {@link #LOGGED_IN_FULL}, one warning per this many dead letters. */
  static final int LOG_EVERY = 1000;

  /** An exception message longer than this is cut: the dead letter's reason is one line. */
  static final int MAX_MESSAGE = 300;

  private String topic = FabricTopics.DEAD_LETTERS;
  private Serializer<DeadLetter> serializer;
  private long handled;

  /**
   * Sets this handler as {@code config}'s deserialization exception handler, writing to {@code
   * deadLetterTopic} with the schema-registry settings {@code registryConfig}.
   */
  public static void install(
      Properties config, String deadLetterTopic, Map<String, ?> registryConfig) {
    config.put(
        StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        UndecodableRecords.class.getName());
    config.put(TOPIC, deadLetterTopic);
    registryConfig.forEach((key, value) -> config.put(SERDE_PREFIX + key, value));
  }

  @Override
  public void configure(Map<String, ?> configs) {
    Object configured = configs.get(TOPIC);
    if (configured != null) {
      topic = configured.toString();
    }
    Map<String, Object> registry = new HashMap<>();
    configs.forEach(
        (key, value) -> {
          if (key.startsWith(SERDE_PREFIX)) {
            registry.put(key.substring(SERDE_PREFIX.length()), value);
          }
        });
    if (registry.isEmpty()) {
      throw new IllegalArgumentException(
          UndecodableRecords.class.getSimpleName()
              + " needs the schema registry settings under "
              + SERDE_PREFIX
              + " (install() sets them)");
    }
    serializer = AvroSerde.forValues(DeadLetter.class, registry).serializer();
  }

  @Override
  public Response handleError(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    if (notTheRecordsFault(exception)) {
      // the registry is down or refuses our credentials: every record would fail the same way;
      // failing the task retries from the last commit instead of dead-lettering good records
      LOG.warn(
          "cannot decode {}-{}@{}: schema registry unavailable or refusing access, not"
              + " dead-lettering: {}",
          record.topic(),
          record.partition(),
          record.offset(),
          exception.getMessage());
      return Response.fail();
    }
    DeadLetter letter = letterFor(context, record, exception);
    long count = ++handled;
    if (count <= LOGGED_IN_FULL || count % LOG_EVERY == 0) {
      LOG.warn(
          "dead letter #{} (undecodable): {}-{}@{} at {}: {}",
          count,
          record.topic(),
          record.partition(),
          record.offset(),
          context.processorNodeId(),
          letter.getException());
    }
    byte[] value = serializer.serialize(topic, letter);
    return Response.resume(
        List.of(
            new ProducerRecord<>(
                topic, null, letter.getTime().toEpochMilli(), record.key(), value)));
  }

  /**
   * True when decoding failed because of the schema registry, not the bytes: no HTTP answer, a 5xx
   * (or 500xx error code), or an authentication / authorization refusal (401, 403, 401xx, 403xx).
   */
  static boolean notTheRecordsFault(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SchemaRegistryException registry) {
        int code = registry.errorCode();
        int http = code >= 10000 ? code / 100 : code;
        return code == -1 || http == 401 || http == 403 || (http >= 500 && http < 600);
      }
    }
    return false;
  }

  /** A dead letter's exception: the class, then the message cut at {@link #MAX_MESSAGE}. */
  static String exceptionLine(Exception exception) {
    String message = String.valueOf(exception.getMessage());
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE) + "...";
    }
    return exception.getClass().getName() + ": " + message;
  }

  /** The dead letter of {@code record}: its coordinates, the reason and its bytes as received. */
  static DeadLetter letterFor(
      ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record, Exception exception) {
    return DeadLetter.newBuilder()
        .setTime(Instant.ofEpochMilli(Math.max(0, record.timestamp())))
        .setTopic(record.topic())
        .setPartition(record.partition())
        .setOffset(record.offset())
        .setProcessor(context.processorNodeId())
        .setReason("cannot deserialize the record at its source")
        .setException(exceptionLine(exception))
        .setKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
        .setValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
        .build();
  }
}
