package io.fabricpulse.app.status;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.sinks.influx.InfluxSchema;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records of the status page's topics, in their wire format, onto a {@link StatusBoard}. Rates are
 * read through the sink's names ({@link InfluxSchema#ratesPoint}), so the page follows the rates
 * contract wherever the sink does. A record that cannot be decoded is counted, logged and skipped.
 */
final class StatusRecords {

  private static final Logger log = LoggerFactory.getLogger(StatusRecords.class);

  private final StatusBoard board;
  private final FabricTopics topics;
  private final AvroDeserializer<Alert> alerts = new AvroDeserializer<>(Alert.class);

  /** 0.2 NodeRates, or 0.1 CounterRates from a rate stage not yet upgraded. */
  private final AvroOneOfDeserializer rates =
      new AvroOneOfDeserializer(List.of(NodeRates.class, CounterRates.class));

  private final AvroDeserializer<NcclTransport> transports =
      new AvroDeserializer<>(NcclTransport.class);
  private volatile long skipped;

  /**
   * @param serde the serde settings, at least {@code schema.registry.url}
   */
  StatusRecords(StatusBoard board, FabricTopics topics, Map<String, ?> serde) {
    this.board = board;
    this.topics = topics;
    alerts.configure(serde, false);
    rates.configure(serde, false);
    transports.configure(serde, false);
  }

  /** One record of {@code topic}; others are ignored. */
  void apply(String topic, String key, byte[] value) {
    try {
      if (topic.equals(topics.alertsActive().name())) {
        board.activeAlert(key, value == null ? null : alerts.deserialize(topic, value));
      } else if (value == null) {
        return;
      } else if (topic.equals(topics.alerts().name())) {
        board.alertChange(alerts.deserialize(topic, value));
      } else if (topic.equals(topics.rates().name())) {
        for (CounterRates port : NodeRecords.portRates(rates.deserialize(topic, value))) {
          InfluxSchema.ratesPoint(port).ifPresent(board::rates);
        }
      } else if (topic.equals(topics.ncclTransport().name())) {
        board.transport(transports.deserialize(topic, value));
      }
    } catch (RuntimeException e) {
      skipped++;
      log.warn("status page: skipping a record of {}: {}", topic, e.toString());
    }
  }

  long skipped() {
    return skipped;
  }
}
