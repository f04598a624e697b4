package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.schemas.health.OutageLog;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each record to the raw topic of its type (NodeCounters by source to
 * fabric.raw.port-counters, .pfc, .ecn or .switch-counters, SmSweep to fabric.raw.sm, ...; key
 * cluster/node), the fabric collector's FabricLink and FabricLinkChange records to fabric.topology
 * and fabric.topology.changes (key link_id; a DISAPPEARED change also tombstones its link on the
 * compacted fabric.topology), through one {@link RecordPublisher} per topic, all sharing one
 * idempotent {@code acks=all} producer, so a node holds one set of broker connections. Each topic
 * has its own bounded drop-oldest buffer, so a flood on one source cannot push out another source's
 * records.
 *
 * <p>Delivery is watched ({@link #watchDelivery}): every second, records a topic put back after a
 * refused send are handed to the producer again ({@link #retryWaiting}), so they never wait for
 * their topic's next record; and when records have waited {@link #WARN_AFTER} without any
 * acknowledgement, a warning names Kafka, the records waiting and the last send error, and repeats
 * every {@link #REPEAT_EVERY} while the outage lasts; one line says when Kafka acknowledges again.
 */
public final class KafkaRecordOutput implements RecordOutput {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaRecordOutput.class);

  /** How long records may wait without an acknowledgement before the agent warns. */
  public static final Duration WARN_AFTER = Duration.ofSeconds(5);

  /** How often the warning repeats while Kafka stays unreachable. */
  public static final Duration REPEAT_EVERY = Duration.ofSeconds(30);

  private static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  private final Producer<String, SpecificRecord> producer;
  private final Map<Class<?>, RecordPublisher> publishers = new LinkedHashMap<>();
  private final Map<RateSource, RecordPublisher> nodeCounters = new EnumMap<>(RateSource.class);
  private final OutageLog outage;
  private long acknowledgedAtLastCheck;
  private ScheduledExecutorService watch;

  public KafkaRecordOutput(
      Producer<String, SpecificRecord> producer, FabricTopics topics, int bufferRecords) {
    this(producer, topics, bufferRecords, "Kafka");
  }

  /**
   * @param kafka how warnings name Kafka, e.g. {@code Kafka at 127.0.0.1:9092}
   */
  public KafkaRecordOutput(
      Producer<String, SpecificRecord> producer,
      FabricTopics topics,
      int bufferRecords,
      String kafka) {
    this.producer = producer;
    this.outage = new OutageLog(kafka, WARN_AFTER, REPEAT_EVERY);
    for (TopicSpec spec : topics.raw()) {
      RecordPublisher publisher = new RecordPublisher(producer, spec.name(), bufferRecords);
      if (spec == topics.portCounters()) {
        nodeCounters.put(RateSource.PORT, publisher);
      } else if (spec == topics.switchCounters()) {
        nodeCounters.put(RateSource.PERFQUERY, publisher);
      } else if (spec == topics.pfc()) {
        nodeCounters.put(RateSource.PFC, publisher);
      } else if (spec == topics.ecn()) {
        nodeCounters.put(RateSource.ECN, publisher);
      } else {
        publishers.put(spec.valueType(), publisher);
      }
    }
    for (TopicSpec spec : List.of(topics.topology(), topics.topologyChanges())) {
      publishers.put(spec.valueType(), new RecordPublisher(producer, spec.name(), bufferRecords));
    }
  }

  /** The production output for a configuration: one real producer, the default topics. */
  public static KafkaRecordOutput forConfig(CollectorConfig config) {
    KafkaRecordOutput output =
        new KafkaRecordOutput(
            RecordPublisher.createProducer(config.producerProperties()),
            FabricTopics.defaults(),
            config.bufferRecords(),
            "Kafka at " + config.producerProperties().getProperty("bootstrap.servers"));
    output.watchDelivery();
    return output;
  }

  /**
   * Retries waiting records and checks delivery every second on a daemon thread until {@link
   * #close()}.
   */
  public synchronized void watchDelivery() {
    if (watch != null) {
      return;
    }
    watch =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "fabricpulse-delivery-watch");
              t.setDaemon(true);
              return t;
            });
    watch.scheduleAtFixedRate(
        () -> {
          retryWaiting();
          checkDelivery(System.nanoTime());
        },
        CHECK_EVERY.toMillis(),
        CHECK_EVERY.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Hands every topic's waiting records to the producer again ({@link
   * RecordPublisher#retryWaiting}). A failure is logged: the watch must go on.
   */
  public void retryWaiting() {
    for (RecordPublisher publisher : all()) {
      try {
        publisher.retryWaiting();
      } catch (RuntimeException e) {
        LOG.warn("retrying waiting records failed: {}", e.toString());
      }
    }
  }

  /**
   * One look at delivery at {@code nowNanos}: Kafka is failing when records wait and none was
   * acknowledged since the last look; the line it gives is logged and returned (tests read it).
   */
  public synchronized Optional<OutageLog.Line> checkDelivery(long nowNanos) {
    long acknowledged = 0;
    long waiting = 0;
    long dropped = 0;
    String error = null;
    for (RecordPublisher publisher : all()) {
      acknowledged += publisher.sent();
      waiting += publisher.waiting();
      dropped += publisher.dropped();
      if (error == null) {
        error = publisher.lastError();
      }
    }
    boolean progress = acknowledged != acknowledgedAtLastCheck;
    acknowledgedAtLastCheck = acknowledged;
    Optional<OutageLog.Line> line =
        waiting == 0 || progress
            ? outage.answered(nowNanos)
            : outage.failed(
                nowNanos,
                "no record acknowledged, "
                    + waiting
                    + " waiting, "
                    + dropped
                    + " dropped for lack of buffer space"
                    + (error != null ? "; last error: " + error : ""));
    line.ifPresent(
        l -> {
          if (l.warning()) {
            LOG.warn(l.text());
          } else {
            LOG.info(l.text());
          }
        });
    return line;
  }

  /** True while Kafka has been failing past {@link #WARN_AFTER}: the agent's delivery health. */
  public boolean kafkaDown() {
    return outage.down();
  }

  @Override
  public void publish(NodeIdentity identity, List<SpecificRecord> records) {
    for (SpecificRecord record : records) {
      if (record instanceof FabricLink link) {
        publisherFor(record).publishKeyed(link.getLinkId(), link.getTime().toEpochMilli(), link);
      } else if (record instanceof FabricLinkChange change) {
        long time = change.getTime().toEpochMilli();
        publisherFor(record).publishKeyed(change.getLinkId(), time, change);
        if (change.getChange() == LinkChangeKind.DISAPPEARED) {
          publishers.get(FabricLink.class).publishKeyed(change.getLinkId(), time, null);
        }
      } else if (record instanceof FabricFindings run) {
        // event time is the run's, not the moment the collector found its directory
        publisherFor(record)
            .publishKeyed(
                run.getCluster() + "/" + run.getObservedBy(), run.getRunTime().toEpochMilli(), run);
      } else if (record instanceof NodeCounters node && node.getSource() == RateSource.PERFQUERY) {
        // a switch's record is keyed by the switch, not by the host that read it
        publisherFor(record)
            .publishKeyed(
                node.getCluster() + "/" + node.getNode(), node.getTime().toEpochMilli(), node);
      } else {
        publisherFor(record).publish(identity, record);
      }
    }
  }

  /** The publisher of a record type's topic (for its counters: sent, dropped, buffered). */
  public RecordPublisher publisherFor(SpecificRecord record) {
    RecordPublisher publisher =
        record instanceof NodeCounters node
            ? nodeCounters.get(node.getSource())
            : publishers.get(record.getClass());
    if (publisher == null) {
      throw new IllegalArgumentException("no raw topic for " + record.getSchema().getFullName());
    }
    return publisher;
  }

  /** Records lost over all topics: dropped past the buffer bound or refused for good by Kafka. */
  public long lost() {
    long lost = 0;
    for (RecordPublisher publisher : all()) {
      lost += publisher.dropped() + publisher.rejected();
    }
    return lost;
  }

  /** Sends refused before the producer took the record, over all topics (each retried). */
  public long refused() {
    long refused = 0;
    for (RecordPublisher publisher : all()) {
      refused += publisher.failed();
    }
    return refused;
  }

  private List<RecordPublisher> all() {
    List<RecordPublisher> all = new ArrayList<>(new LinkedHashSet<>(nodeCounters.values()));
    all.addAll(publishers.values());
    return all;
  }

  @Override
  public void flush() {
    for (RecordPublisher publisher : all()) {
      try {
        publisher.flush();
      } catch (KafkaException e) {
        LOG.warn("flush failed: {}", e.toString());
      }
    }
  }

  /** Flushes every topic, then closes the shared producer and reports what could not be sent. */
  @Override
  public void close() {
    synchronized (this) {
      if (watch != null) {
        watch.shutdownNow();
      }
    }
    flush();
    producer.close(Duration.ofSeconds(30));
    long unsent = 0;
    long dropped = 0;
    for (RecordPublisher publisher : all()) {
      unsent += publisher.buffered();
      dropped += publisher.dropped();
    }
    if (unsent > 0 || dropped > 0) {
      LOG.warn(
          "collector output closed with {} records unsent and {} dropped for lack of buffer space",
          unsent,
          dropped);
    }
  }
}
