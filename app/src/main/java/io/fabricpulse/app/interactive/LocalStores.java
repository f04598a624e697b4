package io.fabricpulse.app.interactive;

import io.fabricpulse.app.query.QueryVariables;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.detect.nccl.NcclTransportDetector;
import io.fabricpulse.streams.query.QueryStores;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * What one {@code streams} instance answers from its own stores (the active tasks it runs): the
 * rows of one query and how far behind each store partition it read is. Rows have the shape {@code
 * query --topic} prints for the topic the store is built from (timestamps ISO-8601 UTC).
 */
final class LocalStores {

  private final Supplier<KafkaStreams> streams;
  private final QueryVariables rates;
  private final QueryVariables alerts;
  private final QueryVariables transports;

  LocalStores(Supplier<KafkaStreams> streams, FabricTopics topics) {
    this.streams = streams;
    this.rates = QueryVariables.forTopic(topics.rates());
    this.alerts = QueryVariables.forTopic(topics.alertsActive());
    this.transports = QueryVariables.forTopic(topics.ncclTransport());
  }

  /** The latest rates of every port of {@code nodeKey} (cluster/node), optionally one port. */
  List<Map<String, Object>> nodeRates(String nodeKey, String port) {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (KeyValueIterator<String, NodeRates> it =
        this.<NodeRates>store(QueryStores.LATEST_RATES_STORE)
            .prefixScan(QueryStores.nodePrefix(nodeKey), Serdes.String().serializer())) {
      while (it.hasNext()) {
        for (Map<String, Object> row : rates.rows(it.next().value)) {
          if (port == null || Rows.isPort(row, port)) {
            rows.add(Rows.plain(row));
          }
        }
      }
    }
    return rows;
  }

  /** The {@code n} ports of this instance with the highest {@code metric}. */
  List<Map<String, Object>> top(String metric, int n) {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (KeyValueIterator<String, NodeRates> it =
        this.<NodeRates>store(QueryStores.LATEST_RATES_STORE).all()) {
      while (it.hasNext()) {
        for (Map<String, Object> row : rates.rows(it.next().value)) {
          Double value = Rows.metric(row, metric);
          if (value != null) {
            Map<String, Object> plain = Rows.plain(row);
            plain.put("value", value);
            rows.add(plain);
          }
        }
      }
    }
    return Rows.top(rows, n);
  }

  /** The open alerts of this instance that pass {@code filter}. */
  List<Map<String, Object>> alerts(AlertFilter filter) {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (KeyValueIterator<String, Alert> it =
        this.<Alert>store(QueryStores.ACTIVE_ALERTS_STORE).all()) {
      while (it.hasNext()) {
        Alert alert = it.next().value;
        if (alert != null && filter.test(alert)) {
          rows.add(Rows.plain(alerts.rows(alert).get(0)));
        }
      }
    }
    rows.sort(Rows.BY_STARTED_AT);
    return rows;
  }

  /** The transport verdicts of every host of {@code job} this instance holds. */
  List<Map<String, Object>> ncclJob(String cluster, String job) {
    List<Map<String, Object>> rows = new ArrayList<>();
    try (KeyValueIterator<String, NcclTransportVerdict> it =
        this.<NcclTransportVerdict>store(NcclTransportDetector.VERDICT_STORE).all()) {
      while (it.hasNext()) {
        KeyValue<String, NcclTransportVerdict> entry = it.next();
        NcclTransportVerdict verdict = entry.value;
        NcclTransport record = verdict == null ? null : verdict.toRecord();
        if (record == null
            || !job.equals(verdict.job())
            || (cluster != null && !cluster.equals(verdict.cluster()))) {
          continue;
        }
        Map<String, Object> row = Rows.plain(transports.rows(record).get(0));
        row.put("completion_errors", verdict.completionErrorCount());
        rows.add(row);
      }
    }
    rows.sort(Comparator.comparing(r -> String.valueOf(r.get("host"))));
    return rows;
  }

  /**
   * How far behind this instance's copy of {@code store} is: per local partition, the changelog
   * records not yet in the store (0 on an active task that is processing).
   */
  Map<String, Object> lag(String store) {
    Map<Integer, LagInfo> lags =
        new TreeMap<>(streams.get().allLocalStorePartitionLags().getOrDefault(store, Map.of()));
    Map<String, Object> out = new LinkedHashMap<>();
    long total = 0;
    Map<String, Long> byPartition = new LinkedHashMap<>();
    for (Map.Entry<Integer, LagInfo> e : lags.entrySet()) {
      byPartition.put(Integer.toString(e.getKey()), e.getValue().offsetLag());
      total += e.getValue().offsetLag();
    }
    out.put("store", store);
    out.put("offset_lag", total);
    out.put("partitions", byPartition);
    return out;
  }

  private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
    return streams
        .get()
        .store(
            StoreQueryParameters.fromNameAndType(
                name, QueryableStoreTypes.<String, V>keyValueStore()));
  }
}
