package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PortRates;
import io.fabricpulse.avro.PortSample;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.counters.CounterMeaning;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import io.fabricpulse.streams.LineageHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>State is one {@link NodeLastSamples} per node and source (store key {@code
 * SOURCE|cluster/node}): one read and one write per node record, whatever its number of ports. A
 * port missing from a cycle keeps its last sample and is rated against it when it returns.
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
  private KeyValueStore<String, NodeLastSamples> store;
  private final Map<CounterId, CounterSemantics.Profile> profiles = new HashMap<>();
  private final List<Sensor> sensors = new ArrayList<>();
  private Sensor duplicates;
  private Sensor outOfOrder;
  private Sensor deadLetters;

  /** Beyond this many distinct counter identities, profiles are computed but not cached. */
  private static final int MAX_PROFILES = 4096;

  /**
   * Decodes the value bytes of one raw topic into a node record: a 0.2 NodeCounters as it is, a 0.1
   * per-port record as a NodeCounters of its one port; null when the bytes decode to null.
   */
  @FunctionalInterface
  interface SampleDecoder {
    NodeCounters decode(String topic, byte[] value);
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
    NodeCounters node;
    try {
      node = decoder.decode(topic, record.value());
    } catch (SerializationException e) {
      if (registryUnavailable(e)) {
        // Not this record's fault: fail the task so Streams retries from the last commit instead
        // of dead-lettering every record while the registry is down.
        throw e;
      }
      deadLetter(record, "cannot deserialize", e);
      return;
    }
    if (node == null) {
      deadLetter(record, "value decoded to null", null);
      return;
    }
    try {
      RatePort.require(node.getCluster(), "cluster");
      RatePort.require(node.getNode(), "node");
    } catch (RatePort.InvalidSampleException e) {
      deadLetter(record, "invalid sample: " + e.getMessage(), e);
      return;
    }
    NodeRates rates = rate(record, node, record.timestamp());
    if (rates != null) {
      context.forward(
          new Record<String, SpecificRecord>(
              ratesKey(record.key(), rates),
              rates,
              record.timestamp(),
              LineageHeaders.of(record.headers(), source)),
          ratesSink);
    }
  }

  /**
   * Rates every port of one node record against the port's last accepted sample, with one store
   * read and one write for the node; null when no port was rated. A port whose sample is not after
   * its last one is dropped (counted); a port that cannot be rated is dead-lettered, naming it.
   */
  private NodeRates rate(Record<String, byte[]> record, NodeCounters node, long time) {
    String nodeKey = node.getSource().name() + "|" + node.getCluster() + "/" + node.getNode();
    NodeLastSamples state = store.get(nodeKey);
    Map<String, LastSample> next = state == null ? new HashMap<>() : new HashMap<>(state.ports());
    List<PortRates> rated = new ArrayList<>(node.getPorts().size());
    for (PortSample sample : node.getPorts()) {
      RatePort port;
      try {
        port = RatePort.of(node.getSource(), sample);
      } catch (RatePort.InvalidSampleException e) {
        deadLetter(record, "invalid sample: " + e.getMessage(), e);
        continue;
      }
      LastSample last = next.get(port.key());
      if (last == null) {
        last = takeLegacyState(node, port);
      }
      if (last != null && time <= last.timeMs()) {
        drop(record, node, port, last);
        continue;
      }
      try {
        rated.add(rate(node, sample, port, last, time));
        next.put(port.key(), remember(node, sample, time));
      } catch (RuntimeException e) {
        deadLetter(record, "cannot rate sample of " + subject(node, port), e);
      }
    }
    if (rated.isEmpty()) {
      return null;
    }
    store.put(nodeKey, new NodeLastSamples(next));
    return new NodeRates(
        node.getCluster(),
        node.getNode(),
        node.getBootId(),
        node.getSeq(),
        Instant.ofEpochMilli(time),
        node.getSource(),
        rated);
  }

  /**
   * The port's state as fabricpulse 0.2.0 and earlier kept it, under its own store key; deleted
   * here, as the node's entry takes it over. Null when there is none.
   */
  private LastSample takeLegacyState(NodeCounters node, RatePort port) {
    String legacyKey = node.getSource().name() + "|" + subject(node, port);
    NodeLastSamples legacy = store.get(legacyKey);
    if (legacy == null) {
      return null;
    }
    store.delete(legacyKey);
    return legacy.ports().get(NodeLastSamples.LEGACY_PORT);
  }

  private static String subject(NodeCounters node, RatePort port) {
    return node.getCluster() + "/" + node.getNode() + "/" + port.key();
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

  private void drop(
      Record<String, byte[]> record, NodeCounters node, RatePort port, LastSample last) {
    boolean duplicate =
        record.timestamp() == last.timeMs()
            && node.getSeq() == last.seq()
            && node.getBootId().equals(last.bootId());
    (duplicate ? duplicates : outOfOrder).record();
    if (log.isDebugEnabled()) {
      log.debug(
          "{}: dropped {} sample of {} (time {}, boot {}, seq {}; last accepted time {}, boot {},"
              + " seq {}) at {}",
          name,
          duplicate ? "duplicate" : "out-of-order",
          subject(node, port),
          Instant.ofEpochMilli(record.timestamp()),
          node.getBootId(),
          node.getSeq(),
          Instant.ofEpochMilli(last.timeMs()),
          last.bootId(),
          last.seq(),
          coordinates());
    }
  }

  private PortRates rate(
      NodeCounters node, PortSample sample, RatePort port, LastSample last, long time) {
    List<Counter> counters = sample.getCounters();
    List<CounterRate> rates = new ArrayList<>(counters.size());
    for (int i = 0; i < counters.size(); i++) {
      Counter counter = counters.get(i);
      CounterSemantics.Profile profile = profileOf(counter);
      int at = last == null ? -1 : last.indexOf(counter.getName(), i);
      CounterReading previous =
          at < 0 ? null : new CounterReading(last.value(at), last.timeMs(), last.bootId());
      CounterReading current = new CounterReading(counter.getValue(), time, node.getBootId());
      CounterDelta delta = semantics.derive(profile, previous, current);
      CounterMeaning meaning = profile.meaning();
      rates.add(
          new CounterRate(
              counter.getName(),
              counter.getValue(),
              delta.delta(),
              delta.perSecond(),
              delta.unit(),
              delta.tag(),
              meaning == null ? null : meaning.kind(),
              meaning == null ? null : meaning.direction(),
              meaning == null ? null : meaning.priority()));
    }
    boolean carriesLink =
        node.getSource() == RateSource.PORT || node.getSource() == RateSource.PERFQUERY;
    return new PortRates(
        last == null ? null : time - last.timeMs(),
        port.device(),
        port.port(),
        port.netdev(),
        carriesLink ? sample.getLinkLayer() : null,
        carriesLink ? sample.getState() : null,
        carriesLink ? sample.getPhysState() : null,
        carriesLink ? sample.getRateGbps() : null,
        carriesLink ? sample.getLinkWidth() : null,
        carriesLink ? sample.getNetdevMtu() : null,
        rates);
  }

  private CounterSemantics.Profile profileOf(Counter counter) {
    CounterId id = new CounterId(counter.getName(), counter.getGroup(), counter.getWidth());
    CounterSemantics.Profile profile = profiles.get(id);
    if (profile == null) {
      profile = CounterSemantics.profileOf(id);
      if (profiles.size() < MAX_PROFILES) {
        profiles.put(id, profile);
      }
    }
    return profile;
  }

  /** Counters without a value are not remembered: when they return they start as first. */
  private static LastSample remember(NodeCounters node, PortSample sample, long time) {
    List<Counter> counters = sample.getCounters();
    String[] names = new String[counters.size()];
    long[] values = new long[counters.size()];
    int n = 0;
    for (Counter counter : counters) {
      if (counter.getValue() != null) {
        names[n] = counter.getName();
        values[n++] = counter.getValue();
      }
    }
    if (n < names.length) {
      names = Arrays.copyOf(names, n);
      values = Arrays.copyOf(values, n);
    }
    return new LastSample(time, node.getBootId(), node.getSeq(), names, values);
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
