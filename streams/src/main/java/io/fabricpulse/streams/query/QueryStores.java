package io.fabricpulse.streams.query;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.streams.alerts.DetectorInputs;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The stores that only interactive queries read (the {@code streams} command's query API): the
 * latest rates of every node and the open alerts. The detectors keep their state in stores shaped
 * for detection; these two are shaped for lookups.
 *
 * <pre>
 * source-fabric-rates -> query-latest-rates-update [query-latest-rates]
 * source-fabric-alerts-active -> decode-fabric-alerts-active -> ... -> query-active-alerts-table
 *   [query-active-alerts]
 * </pre>
 */
public final class QueryStores {

  /**
   * The latest {@link NodeRates} per node and rate source, key {@code cluster/node|SOURCE} (a 0.1
   * per-port record: {@code cluster/node|SOURCE|device/port/netdev}). Its records live in the task
   * of the node's fabric.rates partition, so the key {@code cluster/node} locates them.
   */
  public static final String LATEST_RATES_STORE = "query-latest-rates";

  /** fabric.alerts.active as a table: the open alerts by alert_id. */
  public static final String ACTIVE_ALERTS_STORE = "query-active-alerts";

  static final String LATEST_RATES_PROCESSOR = "query-latest-rates-update";

  private QueryStores() {}

  /** Adds both stores to the inputs' builder. */
  public static void addTo(DetectorInputs inputs) {
    inputs.addStore(LATEST_RATES_STORE, inputs.serdes().value(NodeRates.class));
    inputs
        .ratesRecords()
        .process(LatestRatesProcessor::new, Named.as(LATEST_RATES_PROCESSOR), LATEST_RATES_STORE);
    inputs.stream(inputs.topics().alertsActive(), Alert.class)
        .toTable(
            Named.as("query-active-alerts-table"),
            Materialized.<String, Alert, KeyValueStore<Bytes, byte[]>>as(ACTIVE_ALERTS_STORE)
                .withKeySerde(Serdes.String())
                .withValueSerde(inputs.serdes().alert()));
  }

  /** The key prefix of a node's entries in {@link #LATEST_RATES_STORE}. */
  public static String nodePrefix(String nodeKey) {
    return nodeKey + "|";
  }
}
