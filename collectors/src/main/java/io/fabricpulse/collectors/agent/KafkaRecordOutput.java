package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
 */
public final class KafkaRecordOutput implements RecordOutput {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaRecordOutput.class);

  private final Producer<String, SpecificRecord> producer;
  private final Map<Class<?>, RecordPublisher> publishers = new LinkedHashMap<>();
  private final Map<RateSource, RecordPublisher> nodeCounters = new EnumMap<>(RateSource.class);

  public KafkaRecordOutput(
      Producer<String, SpecificRecord> producer, FabricTopics topics, int bufferRecords) {
    this.producer = producer;
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
    return new KafkaRecordOutput(
        RecordPublisher.createProducer(config.producerProperties()),
        FabricTopics.defaults(),
        config.bufferRecords());
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
