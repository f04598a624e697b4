package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a detector processor does when its own code throws on a record (a rule without a threshold
 * its check reads, a summary whose message key is missing, a bug): the failure is never silent.
 *
 * <ul>
 *   <li>a {@link DeadLetter} goes to fabric.dlq through the sink {@code <detector>-sink-dlq} (like
 *       the rate stage's {@code rates-sink-dlq}), with the detector, the rule, the input's topic,
 *       partition and offset, the exception class and message, and the input record;
 *   <li>the Streams metric {@value #FAILURES}{@code -total} (group {@value #METRIC_GROUP}, tag
 *       {@code detector}) counts it, next to the application's other metrics;
 *   <li>a warning is logged with the coordinates;
 *   <li>the processor goes on: with the next rule on the same record when the failure was one
 *       rule's ({@link Task#guard}), and with the next record in any case.
 * </ul>
 *
 * A processor's stream-time punctuation (resolving alerts, expiring state) is its code too: it is
 * scheduled through {@link Task#schedule}, which sends a throwing punctuation the same way (a dead
 * letter without an input record, the same metric) instead of letting it end the stream thread.
 *
 * <p>One instance per detector processor, made where its topology is built; the processor opens its
 * own {@link Task} in {@code init} (sensors are per task) and closes it in {@code close}. The
 * processor's output stream carries its dead letters next to its results: {@link #routeDeadLetters}
 * splits them off.
 */
public final class DetectorFailures {

  private static final Logger LOG = LoggerFactory.getLogger(DetectorFailures.class);

  /** Scope passed to addRateTotalSensor; Streams names the group {@code stream-<scope>-metrics}. */
  public static final String METRIC_SCOPE = "fabricpulse-detectors";

  public static final String METRIC_GROUP = "stream-" + METRIC_SCOPE + "-metrics";

  /** Records (or one rule's step on a record) a detector failed on. */
  public static final String FAILURES = "detector-failures";

  /** Tag naming the detector family on the {@value #FAILURES} metrics. */
  public static final String DETECTOR_TAG = "detector";

  /** An exception message longer than this is cut: a dead letter's reason is one short line. */
  static final int MAX_MESSAGE = 300;

  private final String detector;
  private final String processor;
  private final FabricTopics topics;
  private final DetectorSerdes serdes;

  private DetectorFailures(
      String detector, String processor, FabricTopics topics, DetectorSerdes serdes) {
    this.detector = detector;
    this.processor = processor;
    this.topics = topics;
    this.serdes = serdes;
  }

  /**
   * @param detector the detector family (its module name, e.g. {@code link})
   * @param processor the name of the processor that fails (e.g. {@code link-detector})
   */
  public static DetectorFailures of(DetectorInputs inputs, String detector, String processor) {
    return new DetectorFailures(detector, processor, inputs.topics(), inputs.serdes());
  }

  public String detector() {
    return detector;
  }

  /** The dead-letter sink of this detector: {@code <detector>-sink-dlq}. */
  public String sinkName() {
    return detector + "-sink-dlq";
  }

  /**
   * Sends the dead letters among the processor's output to fabric.dlq ({@code
   * <detector>-dead-letters-only}, {@code -dead-letters-cast}, {@link #sinkName}) and returns the
   * rest ({@code <detector>-results-only}, {@code -results-cast}), null values (e.g. PFC progress
   * ticks) included.
   */
  public <V extends SpecificRecord> KStream<String, V> routeDeadLetters(
      KStream<String, SpecificRecord> out, Class<V> results) {
    sinkDeadLetters(out);
    return out.filter((key, v) -> !(v instanceof DeadLetter), Named.as(detector + "-results-only"))
        .mapValues(results::cast, Named.as(detector + "-results-cast"));
  }

  /** Only the dead-letter half of {@link #routeDeadLetters}, for output with several kinds. */
  public void sinkDeadLetters(KStream<String, SpecificRecord> out) {
    Serde<DeadLetter> serde = serdes.value(DeadLetter.class);
    out.filter((key, v) -> v instanceof DeadLetter, Named.as(detector + "-dead-letters-only"))
        .mapValues(v -> (DeadLetter) v, Named.as(detector + "-dead-letters-cast"))
        .to(
            topics.deadLetters().name(),
            Produced.with(Serdes.String(), serde).withName(sinkName()));
  }

  /** The failure handling of one task of the processor. */
  public Task open(ProcessorContext<String, SpecificRecord> context) {
    return new Task(context);
  }

  /**
   * The {@value #FAILURES}-total of {@code detector}, summed over every task in {@code metrics}.
   */
  public static double total(Map<MetricName, ? extends Metric> metrics, String detector) {
    String name = FAILURES + "-total";
    double sum = 0;
    for (Map.Entry<MetricName, ? extends Metric> entry : metrics.entrySet()) {
      MetricName metric = entry.getKey();
      if (METRIC_GROUP.equals(metric.group())
          && name.equals(metric.name())
          && detector.equals(metric.tags().get(DETECTOR_TAG))) {
        sum += ((Number) entry.getValue().metricValue()).doubleValue();
      }
    }
    return sum;
  }

  /** One exception as one line: class, then message cut at {@link #MAX_MESSAGE} characters. */
  static String describe(RuntimeException e) {
    String message = e.getMessage();
    if (message == null) {
      return e.getClass().getName();
    }
    String line = message.replaceAll("\\s+", " ").strip();
    if (line.length() > MAX_MESSAGE) {
      line = line.substring(0, MAX_MESSAGE) + "...";
    }
    return e.getClass().getName() + ": " + line;
  }

  /** Failure handling inside one task: the sensor, the dead letters it forwards. */
  public final class Task {

    private final ProcessorContext<String, SpecificRecord> context;
    private final Sensor failures;

    private Task(ProcessorContext<String, SpecificRecord> context) {
      this.context = context;
      // the entity names the task too: two tasks of one thread must not share (and close) a sensor
      this.failures =
          context
              .metrics()
              .addRateTotalSensor(
                  METRIC_SCOPE,
                  processor + "." + context.taskId(),
                  FAILURES,
                  Sensor.RecordingLevel.INFO,
                  DETECTOR_TAG,
                  detector);
    }

    /**
     * Runs one step of the processor on {@code record}, e.g. one rule's check; if it throws, the
     * failure is {@linkplain #failed recorded} and false is returned, so the caller goes on with
     * the next rule.
     *
     * @param rule the rule id of the step, or null when it is not one rule's
     */
    public boolean guard(Record<String, ?> record, String rule, Runnable step) {
      try {
        step.run();
        return true;
      } catch (StreamsException e) {
        // Kafka Streams' own signal (the task migrated during a rebalance, a fenced producer, a
        // failed send downstream): the runtime handles it, e.g. by re-processing the task from its
        // last commit; it is not the detector's failure and must not become a dead letter.
        throw e;
      } catch (RuntimeException e) {
        failed(record, rule, e);
        return false;
      }
    }

    /**
     * Schedules {@code punctuator} every {@code interval} of stream time, guarded: when it throws,
     * the failure is counted, logged and dead-lettered ({@link #failedInPunctuation}) and the
     * stream thread goes on; the next punctuation runs as usual.
     */
    public Cancellable schedule(Duration interval, Punctuator punctuator) {
      return context.schedule(
          interval,
          PunctuationType.STREAM_TIME,
          streamTime -> {
            try {
              punctuator.punctuate(streamTime);
            } catch (StreamsException e) {
              throw e; // as in guard: the runtime's, not the detector's
            } catch (RuntimeException e) {
              failedInPunctuation(streamTime, e);
            }
          });
    }

    /**
     * Counts, logs and dead-letters one failure of the stream-time punctuation at {@code
     * streamTime}: no input record, so the dead letter names none (no topic, key or value).
     */
    void failedInPunctuation(long streamTime, RuntimeException e) {
      failures.record();
      String exception = describe(e);
      Instant at = Instant.ofEpochMilli(Math.max(0, streamTime));
      LOG.warn(
          "{} detector failed in its stream-time punctuation at {}: {}", detector, at, exception);
      LOG.debug("{} detector punctuation failure", detector, e);
      DeadLetter letter =
          DeadLetter.newBuilder()
              .setTime(at)
              .setProcessor(processor)
              .setDetector(detector)
              .setReason(
                  "detector "
                      + detector
                      + " failed in its stream-time punctuation at "
                      + at
                      + ": "
                      + exception)
              .setException(exception)
              .build();
      context.forward(new Record<String, SpecificRecord>(null, letter, streamTime));
    }

    /** Counts, logs and dead-letters one failure on {@code record} (the record being processed). */
    public void failed(Record<String, ?> record, String rule, RuntimeException e) {
      failures.record();
      // a record released late by rates-in-node-order names its own coordinates in its headers
      Lineage lineage = Lineage.of(context, record.headers());
      Lineage source = lineage.topic() == null ? null : lineage;
      String exception = describe(e);
      LOG.warn(
          "{} detector failed{} on {}-{}@{} key {}: {}",
          detector,
          rule == null ? "" : " (rule " + rule + ")",
          source == null ? null : source.topic(),
          source == null ? null : source.partition(),
          source == null ? null : source.offset(),
          record.key(),
          exception);
      LOG.debug("{} detector failure", detector, e);
      DeadLetter letter =
          DeadLetter.newBuilder()
              .setTime(Instant.ofEpochMilli(Math.max(0, record.timestamp())))
              .setTopic(source == null ? null : source.topic())
              .setPartition(source == null ? null : source.partition())
              .setOffset(source == null ? null : source.offset())
              .setProcessor(processor)
              .setDetector(detector)
              .setRule(rule)
              .setReason(
                  "detector "
                      + detector
                      + (rule == null ? "" : " rule " + rule)
                      + " failed: "
                      + exception)
              .setException(exception)
              .setKey(
                  record.key() == null
                      ? null
                      : ByteBuffer.wrap(record.key().getBytes(StandardCharsets.UTF_8)))
              .setValue(encode(source, record.value()))
              .build();
      context.forward(
          new Record<String, SpecificRecord>(
              record.key(), letter, record.timestamp(), record.headers()));
    }

    /** The input record in its topic's wire format; null if it has none or cannot be encoded. */
    @SuppressWarnings("unchecked")
    private ByteBuffer encode(Lineage source, Object value) {
      if (!(value instanceof SpecificRecord record) || source == null) {
        return null;
      }
      try {
        Serde<SpecificRecord> serde =
            (Serde<SpecificRecord>) serdes.value((Class<SpecificRecord>) record.getClass());
        byte[] bytes = serde.serializer().serialize(source.topic(), record);
        return bytes == null ? null : ByteBuffer.wrap(bytes);
      } catch (RuntimeException e) {
        // the dead letter still names the record by topic, partition and offset
        LOG.debug("{} detector: cannot encode the failed record", detector, e);
        return null;
      }
    }

    /** Removes this task's sensor (call from the processor's close). */
    public void close() {
      context.metrics().removeSensor(failures);
    }
  }
}
