package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.counters.CounterMeaning;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import io.fabricpulse.streams.LineageHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rates every port of one raw record (a 0.2 NodeCounters, or a 0.1 per-port record) against the
 * last accepted sample of that port, and forwards one NodeRates for the record; the rates record
 * keeps the raw record's key ({@code cluster/node}), so fabric.rates is co-partitioned with the raw
 * topics. A port that cannot be rated is dead-lettered (naming the port) and its neighbours are
 * rated.
 *
 * <p>Input values are raw bytes, decoded here: a record that cannot be decoded, names no complete
 * subject, or breaks the computation goes to the dead-letter sink with its coordinates instead of
 * stopping the stream thread (docs/design.md section 8). The one exception is a schema registry
 * that cannot be reached: that failure is rethrown, so Streams retries rather than dead-letters
 * records that are fine.
 *
 * <p>Each counter rate carries the counter's typed meaning (kind, direction, priority) from {@link
 * CounterSemantics#meaningOf}, so no reader of fabric.rates matches vendor names.
 *
 * <p>Every rates record carries {@link LineageHeaders} naming the raw record it came from.
 *
 * <p>Ordering is by event time (the record timestamp), never wall-clock time. A sample whose time
 * is not after the subject's last accepted sample is dropped: counted as a duplicate when boot id,
 * seq and time are the same as the last sample's (a producer retry or a re-read), otherwise as out
 * of order. A lower seq with a newer time is accepted: seq restarts at 0 when the collector
 * restarts (SampleContext), so it cannot order samples across collector runs; time can.
 */
final class RateProcessor implements Processor<String, byte[], String, SpecificRecord> {

  private static final Logger log = LoggerFactory.getLogger(RateProcessor.class);

  private final String name;
  private final String storeName;
  private final String ratesSink;
  private final String deadLetterSink;
  private final Map<String, SampleDecoder> decoders;
  private final CounterSemantics semantics;

  private ProcessorContext<String, SpecificRecord> context;
  private KeyValueStore<String, LastSample> store;
  private final List<Sensor> sensors = new ArrayList<>();
  private Sensor duplicates;
  private Sensor outOfOrder;
  private Sensor deadLetters;

  /**
   * Decodes the value bytes of one raw topic into its per-port views (one for a 0.1 record, one per
   * port for a 0.2 NodeCounters); null when the bytes decode to null.
   */
  @FunctionalInterface
  interface SampleDecoder {
    List<SpecificRecord> decode(String topic, byte[] value);

    /**
     * The source the topic's port views are rated as, when it is not their view type's own (the
     * switch-counter topic's PortCounters views are PERFQUERY, not PORT); null for the view's.
     */
    default RateSource source() {
      return null;
    }
  }

  RateProcessor(
      String name,
      String storeName,
      String ratesSink,
      String deadLetterSink,
      Map<String, SampleDecoder> decoders,
      CounterSemantics semantics) {
    this.name = name;
    this.storeName = storeName;
    this.ratesSink = ratesSink;
    this.deadLetterSink = deadLetterSink;
    this.decoders = Map.copyOf(decoders);
    this.semantics = semantics;
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.store = context.getStateStore(storeName);
    String entity = name + "." + context.taskId();
    duplicates = sensor(entity, RateMetrics.DROPPED_DUPLICATE);
    outOfOrder = sensor(entity, RateMetrics.DROPPED_OUT_OF_ORDER);
    deadLetters = sensor(entity, RateMetrics.DEAD_LETTERS);
  }

  private Sensor sensor(String entity, String operation) {
    Sensor sensor =
        context
            .metrics()
            .addRateTotalSensor(RateMetrics.SCOPE, entity, operation, Sensor.RecordingLevel.INFO);
    sensors.add(sensor);
    return sensor;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    RecordMetadata source = context.recordMetadata().orElse(null);
    if (source == null) {
      deadLetter(record, "no source record metadata", null);
      return;
    }
    String topic = source.topic();
    if (record.value() == null) {
      deadLetter(record, "null value on a raw topic", null);
      return;
    }
    SampleDecoder decoder = decoders.get(topic);
    if (decoder == null) {
      deadLetter(record, "no decoder for topic " + topic, null);
      return;
    }
    List<SpecificRecord> views;
    try {
      views = decoder.decode(topic, record.value());
    } catch (SerializationException e) {
      if (registryUnavailable(e)) {
        // Not this record's fault: fail the task so Streams retries from the last commit instead
        // of dead-lettering every record while the registry is down.
        throw e;
      }
      deadLetter(record, "cannot deserialize", e);
      return;
    }
    if (views == null) {
      deadLetter(record, "value decoded to null", null);
      return;
    }

    long time = record.timestamp();
    List<CounterRates> rated = new ArrayList<>(views.size());
    for (SpecificRecord view : views) {
      RateSample sample;
      try {
        sample = RateSample.of(view);
        if (decoder.source() != null) {
          sample = sample.withSource(decoder.source());
        }
      } catch (RateSample.InvalidSampleException e) {
        deadLetter(record, "invalid sample: " + e.getMessage(), e);
        continue;
      }
      CounterRates rates = rate(record, sample, time);
      if (rates != null) {
        rated.add(rates);
      }
    }
    if (rated.isEmpty()) {
      return;
    }
    NodeRates node = NodeRecords.ofRates(rated);
    context.forward(
        new Record<String, SpecificRecord>(
            ratesKey(record.key(), node), node, time, LineageHeaders.of(record.headers(), source)),
        ratesSink);
  }

  /**
   * Rates one port's sample against its last accepted one and remembers it; null when the sample is
   * dropped (duplicate or out of order) or cannot be rated (then dead-lettered, naming the port).
   */
  private CounterRates rate(Record<String, byte[]> record, RateSample sample, long time) {
    String storeKey = sample.storeKey();
    LastSample last = store.get(storeKey);
    if (last != null && time <= last.timeMs()) {
      drop(record, sample, last);
      return null;
    }
    CounterRates rates;
    LastSample next;
    try {
      rates = rate(sample, last, time);
      next = remember(sample, time);
    } catch (RuntimeException e) {
      deadLetter(record, "cannot rate sample of " + sample.subject(), e);
      return null;
    }
    store.put(storeKey, next);
    return rates;
  }

  /**
   * The raw record's own key ({@code cluster/node}), byte for byte: with the same partitioner and
   * partition count, rates partition p is then written only by the task of raw partition p, in the
   * order it rates them, and per-node detectors need no repartition (README, Topics). A raw record
   * without a key (not one of our collectors) gets its sample's {@code cluster/node}.
   */
  static String ratesKey(String rawKey, NodeRates rates) {
    return rawKey != null ? rawKey : rates.getCluster() + "/" + rates.getNode();
  }

  /**
   * True when the schema registry could not be reached or failed on its side (no HTTP answer, 5xx,
   * or a 500xx registry error code), as opposed to refusing this record's bytes or schema id.
   */
  static boolean registryUnavailable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SchemaRegistryException registry) {
        int code = registry.errorCode();
        return code == -1 || (code >= 500 && code < 600) || (code >= 50000 && code < 60000);
      }
    }
    return false;
  }

  private void drop(Record<String, byte[]> record, RateSample sample, LastSample last) {
    boolean duplicate =
        record.timestamp() == last.timeMs()
            && sample.seq() == last.seq()
            && sample.bootId().equals(last.bootId());
    (duplicate ? duplicates : outOfOrder).record();
    if (log.isDebugEnabled()) {
      log.debug(
          "{}: dropped {} sample of {} (time {}, boot {}, seq {}; last accepted time {}, boot {},"
              + " seq {}) at {}",
          name,
          duplicate ? "duplicate" : "out-of-order",
          sample.subject(),
          Instant.ofEpochMilli(record.timestamp()),
          sample.bootId(),
          sample.seq(),
          Instant.ofEpochMilli(last.timeMs()),
          last.bootId(),
          last.seq(),
          coordinates());
    }
  }

  private CounterRates rate(RateSample sample, LastSample last, long time) {
    List<CounterRate> rates = new ArrayList<>(sample.counters().size());
    for (Counter counter : sample.counters()) {
      CounterId id = new CounterId(counter.getName(), counter.getGroup(), counter.getWidth());
      CounterReading previous = last == null ? null : last.reading(counter.getName());
      CounterReading current = new CounterReading(counter.getValue(), time, sample.bootId());
      CounterDelta delta = semantics.derive(id, previous, current);
      CounterMeaning meaning = CounterSemantics.meaningOf(id).orElse(null);
      rates.add(
          CounterRate.newBuilder()
              .setName(counter.getName())
              .setKind(meaning == null ? null : meaning.kind())
              .setDirection(meaning == null ? null : meaning.direction())
              .setPriority(meaning == null ? null : meaning.priority())
              .setValue(counter.getValue())
              .setDelta(delta.delta())
              .setPerSecond(delta.perSecond())
              .setUnit(delta.unit())
              .setTag(delta.tag())
              .build());
    }
    PortCounters link = sample.link();
    return CounterRates.newBuilder()
        .setCluster(sample.cluster())
        .setNode(sample.node())
        .setBootId(sample.bootId())
        .setSeq(sample.seq())
        .setTime(Instant.ofEpochMilli(time))
        .setIntervalMs(last == null ? null : time - last.timeMs())
        .setSource(sample.source())
        .setDevice(sample.device())
        .setPort(sample.port())
        .setNetdev(sample.netdev())
        .setLinkLayer(link == null ? null : link.getLinkLayer())
        .setState(link == null ? null : link.getState())
        .setPhysState(link == null ? null : link.getPhysState())
        .setRateGbps(link == null ? null : link.getRateGbps())
        .setLinkWidth(link == null ? null : link.getLinkWidth())
        .setNetdevMtu(link == null ? null : link.getNetdevMtu())
        .setRates(rates)
        .build();
  }

  /** Counters without a value are not remembered: when they return they start as first. */
  private static LastSample remember(RateSample sample, long time) {
    Map<String, Long> values = new HashMap<>();
    for (Counter counter : sample.counters()) {
      if (counter.getValue() != null) {
        values.put(counter.getName(), counter.getValue());
      }
    }
    return new LastSample(time, sample.bootId(), sample.seq(), values);
  }

  private void deadLetter(Record<String, byte[]> record, String reason, Exception e) {
    deadLetters.record();
    RecordMetadata meta = context.recordMetadata().orElse(null);
    log.warn("{}: dead letter at {}: {}", name, coordinates(), reason, e);
    DeadLetter letter =
        DeadLetter.newBuilder()
            .setTime(Instant.ofEpochMilli(Math.max(0, record.timestamp())))
            .setTopic(meta == null ? null : meta.topic())
            .setPartition(meta == null ? null : meta.partition())
            .setOffset(meta == null ? null : meta.offset())
            .setProcessor(name)
            .setReason(reason)
            .setException(e == null ? null : e.getClass().getName() + ": " + e.getMessage())
            .setKey(
                record.key() == null
                    ? null
                    : ByteBuffer.wrap(record.key().getBytes(StandardCharsets.UTF_8)))
            .setValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
            .build();
    context.forward(
        new Record<String, SpecificRecord>(
            record.key(), letter, record.timestamp(), record.headers()),
        deadLetterSink);
  }

  private String coordinates() {
    return context
        .recordMetadata()
        .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
        .orElse("(no record metadata)");
  }

  @Override
  public void close() {
    for (Sensor sensor : sensors) {
      context.metrics().removeSensor(sensor);
    }
    sensors.clear();
  }
}
