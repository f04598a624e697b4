package io.fabricpulse.collectors.publish;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.serde.AvroSerializer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the collectors' Avro records to one Kafka topic: key {@code cluster/node}, record
 * timestamp = the record's {@code time} field (event time, docs/design.md section 1), value in the
 * Confluent wire format, producer idempotent with {@code acks=all} (docs/design.md section 8).
 *
 * <p>Records wait in a bounded in-memory buffer until the producer takes them. While Kafka is
 * unreachable, a send the producer refuses before taking the record (metadata not available, or its
 * own buffer full, within {@code max.block.ms}) puts the record back at the head of the buffer;
 * past {@code bufferCapacity} the oldest record is dropped, counted in {@link #dropped()} and
 * logged. A record the producer took is never sent again by this class: the producer retries it
 * itself until Kafka takes it ({@code delivery.timeout.ms} is forced to its maximum), and its
 * idempotence makes each of those retries the same write. Sending such a record again after a
 * failed delivery would be a second record with a new sequence number, and a delivery that timed
 * out may have been written (the broker wrote it, the answer was lost): the copy arrives later,
 * after whatever its first one caused (an Xid 48 paged twice, FaultsUnderLoadIT).
 */
public final class RecordPublisher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RecordPublisher.class);

  /** Default bound of the buffer: 10 minutes of one 8-HCA node at 1 s sampling, ~0.5 KB each. */
  public static final int DEFAULT_BUFFER_RECORDS = 8 * 600;

  /** Default wait for metadata in send() when the user sets none: the collector must not stall. */
  static final String DEFAULT_MAX_BLOCK_MS = "1000";

  private static final Set<String> SERDE_KEYS =
      Set.of(
          AvroSerdeConfig.SCHEMA_REGISTRY_URL,
          AvroSerdeConfig.AUTO_REGISTER_SCHEMAS,
          AvroSerdeConfig.USE_LATEST_VERSION,
          AvroSerdeConfig.SPECIFIC_AVRO_READER,
          AvroSerdeConfig.BASIC_AUTH_USER_INFO);

  private final Producer<String, SpecificRecord> producer;
  private final String topic;
  private final int bufferCapacity;

  /** Records that failed to send, in failure order, older than everything in {@link #buffer}. */
  private final ArrayDeque<ProducerRecord<String, SpecificRecord>> retry = new ArrayDeque<>();

  private final ArrayDeque<ProducerRecord<String, SpecificRecord>> buffer = new ArrayDeque<>();
  private long dropped;
  private long sent;
  private long failed;
  private long rejected;
  private long inFlight;
  private volatile String lastError;
  private volatile boolean backOff;
  private volatile Thread drainer;

  /** One thread drains at a time; separate from {@code this}, which the callbacks take. */
  private final Object drainLock = new Object();

  /**
   * @param config Kafka producer settings plus the serde's Confluent keys ({@code
   *     schema.registry.url}, {@code basic.auth.user.info}, ...); {@code enable.idempotence},
   *     {@code acks} and {@code delivery.timeout.ms} are forced to true, all and the maximum
   */
  public RecordPublisher(Properties config, String topic) {
    this(config, topic, DEFAULT_BUFFER_RECORDS);
  }

  public RecordPublisher(Properties config, String topic, int bufferCapacity) {
    this(createProducer(config), topic, bufferCapacity);
  }

  /** With a given producer, e.g. Kafka's MockProducer in tests. */
  public RecordPublisher(
      Producer<String, SpecificRecord> producer, String topic, int bufferCapacity) {
    if (bufferCapacity < 1) {
      throw new IllegalArgumentException("bufferCapacity must be at least 1: " + bufferCapacity);
    }
    this.producer = producer;
    this.topic = topic;
    this.bufferCapacity = bufferCapacity;
  }

  /** The producer settings this class enforces on top of the user's (docs/design.md section 8). */
  static Map<String, Object> producerConfig(Properties config) {
    Map<String, Object> producerConfig = new HashMap<>();
    for (String key : config.stringPropertyNames()) {
      if (!SERDE_KEYS.contains(key)) {
        producerConfig.put(key, config.getProperty(key));
      }
    }
    producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
    // the producer, not this class, retries what it took: its retries are never a second copy
    producerConfig.put(
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(Integer.MAX_VALUE));
    producerConfig.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, DEFAULT_MAX_BLOCK_MS);
    // a node record repeats its counter names port after port: lz4 shrinks it several-fold
    producerConfig.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    return producerConfig;
  }

  static Map<String, Object> serdeConfig(Properties config) {
    Map<String, Object> serdeConfig = new HashMap<>();
    for (String key : config.stringPropertyNames()) {
      if (SERDE_KEYS.contains(key)) {
        serdeConfig.put(key, config.getProperty(key));
      }
    }
    return serdeConfig;
  }

  /**
   * A producer with this class's settings, for callers that share one producer between the
   * publishers of several topics (the node agent: one connection set per node, not per topic).
   */
  public static Producer<String, SpecificRecord> createProducer(Properties config) {
    AvroSerializer<SpecificRecord> values = new AvroSerializer<>();
    values.configure(serdeConfig(config), false);
    return new KafkaProducer<>(producerConfig(config), new StringSerializer(), values);
  }

  /** Buffers one record of {@code identity}'s node and hands what it can to the producer. */
  public void publish(NodeIdentity identity, SpecificRecord record) {
    enqueue(new ProducerRecord<>(topic, null, eventTimeMillis(record), identity.key(), record));
    drain();
  }

  /**
   * Buffers one record under its own key rather than its node's: fabric.topology and its change log
   * are keyed by link. A null {@code value} is a tombstone (the link is gone).
   */
  public void publishKeyed(String key, long timeMillis, SpecificRecord value) {
    enqueue(new ProducerRecord<>(topic, null, timeMillis, key, value));
    drain();
  }

  /** Publishes every record of a parse result (the malformed part is the caller's to count). */
  public void publishAll(NodeIdentity identity, ParseResult<? extends SpecificRecord> result) {
    for (SpecificRecord record : result.records()) {
      enqueue(new ProducerRecord<>(topic, null, eventTimeMillis(record), identity.key(), record));
    }
    drain();
  }

  /**
   * Hands waiting records to the producer again, without a new record of this topic: a record put
   * back after a refused send would otherwise wait for the topic's next record, and on a topic of
   * rare events (fabric.raw.xid) that can be hours later, long after what it should have joined
   * (the Xid 48 of an alert the GPU samples had already raised and resolved).
   */
  public void retryWaiting() {
    if (buffered() > 0) {
      drain();
    }
  }

  /** Hands the buffer to the producer and waits until the producer has sent what it took. */
  public void flush() {
    drain();
    producer.flush();
  }

  /** Flushes, then closes the producer; records still buffered (Kafka down) are logged as lost. */
  @Override
  public void close() {
    try {
      flush();
    } catch (KafkaException e) {
      LOG.warn("topic {}: flush before close failed: {}", topic, e.toString());
    }
    producer.close(Duration.ofSeconds(30));
    int left = buffered();
    if (left > 0 || dropped > 0) {
      LOG.warn(
          "topic {}: closed with {} records unsent and {} dropped for lack of buffer space",
          topic,
          left,
          dropped);
    }
  }

  /** Records waiting for the producer. */
  public synchronized int buffered() {
    return retry.size() + buffer.size();
  }

  /** Records not yet acknowledged: buffered, or handed to the producer and not answered yet. */
  public synchronized long waiting() {
    return buffered() + inFlight;
  }

  /** The last retriable send error (Kafka unreachable, ...), or null; cleared by an ack. */
  public String lastError() {
    return lastError;
  }

  /** Records dropped (oldest first) because the buffer was full. */
  public synchronized long dropped() {
    return dropped;
  }

  /** Records acknowledged by Kafka. */
  public synchronized long sent() {
    return sent;
  }

  /** Sends the producer refused with a retriable error before taking the record, put back. */
  public synchronized long failed() {
    return failed;
  }

  /**
   * Records Kafka refused for good (not retriable), or whose delivery the producer gave up on
   * (possible only when a wrapped producer has a delivery timeout): logged and not sent again.
   */
  public synchronized long rejected() {
    return rejected;
  }

  private synchronized void enqueue(ProducerRecord<String, SpecificRecord> record) {
    if (buffered() >= bufferCapacity) {
      if (retry.pollFirst() == null) {
        buffer.pollFirst();
      }
      dropped++;
      // One line for the first drop of an outage and one per 10,000 after: bounded log volume.
      if (dropped == 1 || dropped % 10_000 == 0) {
        LOG.warn(
            "topic {}: buffer full ({} records), dropped the oldest; {} dropped so far",
            topic,
            bufferCapacity,
            dropped);
      }
    }
    buffer.addLast(record);
  }

  private synchronized ProducerRecord<String, SpecificRecord> next() {
    ProducerRecord<String, SpecificRecord> record = retry.pollFirst();
    return record != null ? record : buffer.pollFirst();
  }

  /**
   * A record refused while this thread was sending it (send() threw, or KafkaProducer called back
   * synchronously, before taking it) was the oldest waiting and goes back to the head.
   */
  private synchronized void putBack(ProducerRecord<String, SpecificRecord> record) {
    failed++;
    if (buffered() >= bufferCapacity) {
      dropped++;
      return; // it is the oldest record: the one to drop
    }
    retry.addFirst(record);
  }

  private synchronized void acknowledged() {
    sent++;
    lastError = null;
  }

  private synchronized void handedOver(long delta) {
    inFlight += delta;
  }

  /**
   * Sends outside the lock: the producer's callbacks take the lock on its I/O thread, and send()
   * may wait for buffer memory that only those callbacks free. At most the records present at the
   * start are tried, so a record put back by a synchronous callback is not retried in a loop, and
   * the first retriable failure (KafkaProducer reports a metadata timeout through the callback,
   * after blocking max.block.ms) ends the round, so an outage costs one wait per call, not one per
   * record.
   */
  private void drain() {
    synchronized (drainLock) {
      backOff = false;
      drainer = Thread.currentThread();
      try {
        drainRound(buffered());
      } finally {
        drainer = null;
      }
    }
  }

  private void drainRound(int budget) {
    ProducerRecord<String, SpecificRecord> record;
    while (!backOff && budget-- > 0 && (record = next()) != null) {
      ProducerRecord<String, SpecificRecord> inFlight = record;
      handedOver(1);
      try {
        producer.send(inFlight, (metadata, error) -> completed(inFlight, error));
      } catch (RetriableException e) {
        handedOver(-1);
        lastError = e.toString();
        // Metadata not available within max.block.ms (Kafka unreachable): keep the record and
        // stop for now; the next publish or flush tries again.
        LOG.debug("topic {}: send refused, will retry: {}", topic, e.toString());
        putBack(inFlight);
        return;
      } catch (KafkaException e) {
        handedOver(-1);
        reject(inFlight, e);
      }
    }
  }

  private void completed(ProducerRecord<String, SpecificRecord> record, Exception error) {
    handedOver(-1);
    if (error == null) {
      acknowledged();
    } else if (error instanceof RetriableException && Thread.currentThread() == drainer) {
      // refused inside send(), before the producer took it: nothing was written
      LOG.debug(
          "topic {} key {}: send refused, will retry: {}", topic, record.key(), error.toString());
      backOff = true;
      lastError = error.toString();
      putBack(record);
    } else if (error instanceof RetriableException) {
      lastError = error.toString();
      unconfirmed(record, error);
    } else {
      reject(record, error);
    }
  }

  /** A delivery the producer gave up on may have been written: sent again it could be a copy. */
  private void unconfirmed(ProducerRecord<String, SpecificRecord> record, Exception error) {
    synchronized (this) {
      rejected++;
    }
    LOG.warn(
        "topic {} key {}: delivery not confirmed, not sent again (it may have been written): {}",
        topic,
        record.key(),
        error.toString());
  }

  /** A record Kafka will never take (too large, not serializable, not authorized): log and drop. */
  private void reject(ProducerRecord<String, SpecificRecord> record, Exception error) {
    synchronized (this) {
      rejected++;
    }
    LOG.warn(
        "topic {} key {}: record rejected, dropped: {}", topic, record.key(), error.toString());
  }

  /** The record's {@code time} field in ms since the epoch, or null when it has none. */
  static Long eventTimeMillis(SpecificRecord record) {
    Schema.Field field = record.getSchema().getField("time");
    if (field == null) {
      return null;
    }
    Object time = record.get(field.pos());
    if (time instanceof Instant instant) {
      return instant.toEpochMilli();
    }
    if (time instanceof Long millis) {
      return millis;
    }
    return null;
  }
}
