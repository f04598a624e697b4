package io.fabricpulse.streams;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.LogAndSkipOnInvalidTimestamp;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The base Kafka Streams configuration every fabricpulse topology runs with. Callers add their own
 * settings on top (file, then {@code KAFKA_*} environment, then command line).
 */
public final class StreamsSettings {

  /** Delivery guarantee of a streams application. */
  public enum Guarantee {
    /** Transactions end to end; needs a cluster with at least 3 brokers by default or tuned ISR. */
    EXACTLY_ONCE_V2(StreamsConfig.EXACTLY_ONCE_V2),
    /** For single-broker setups (the embedded demo) that do not run the transaction coordinator. */
    AT_LEAST_ONCE(StreamsConfig.AT_LEAST_ONCE);

    private final String configValue;

    Guarantee(String configValue) {
      this.configValue = configValue;
    }

    public String configValue() {
      return configValue;
    }
  }

  /**
   * The number of partitions of fabric.rates, as the topic really has them (a fabricpulse setting,
   * passed to processors through the application config): the PFC propagation stage waits until it
   * has heard from the port-stage task of every partition. 1 when unset (TopologyTestDriver,
   * offline {@code detect}: one task).
   */
  public static final String RATES_PARTITIONS = "fabricpulse.rates.partitions";

  /**
   * "true": the topology also keeps the stores of the query API ({@code QueryStores}); the {@code
   * streams} command sets it (every instance of an application must build the same topology).
   * Offline runs (replay, detect, the demo) leave it unset and skip the stores' work.
   */
  public static final String QUERY_STORES = "fabricpulse.query.stores";

  private StreamsSettings() {}

  /**
   * "true" keeps the detectors' and the rate stage's key-value stores in memory instead of RocksDB:
   * for a single-task run that starts empty and throws its state away (offline {@code detect},
   * {@code replay}). A TopologyTestDriver commits after every record, and a commit flushes every
   * store, which RocksDB turns into a new table file per store and record; the streams application
   * keeps RocksDB (state larger than memory, restored from local files after a restart). The stores
   * of such a run keep no changelog either: nothing restores them, and the driver would otherwise
   * hold every changelog record and match each against every source topic name.
   */
  public static final String IN_MEMORY_STATE = "fabricpulse.state.in-memory";

  /** Whether {@link #IN_MEMORY_STATE} is "true" in an application config. */
  public static boolean inMemoryState(Properties config) {
    return Boolean.parseBoolean(config.getProperty(IN_MEMORY_STATE, "false").trim());
  }

  /** Whether {@link #QUERY_STORES} is "true" in an application config. */
  public static boolean queryStores(Properties config) {
    return Boolean.parseBoolean(config.getProperty(QUERY_STORES, "false").trim());
  }

  /** {@link #RATES_PARTITIONS} from an application config, 1 when unset. */
  public static int ratesPartitions(Map<String, Object> appConfigs) {
    Object value = appConfigs.get(RATES_PARTITIONS);
    if (value == null) {
      return 1;
    }
    int partitions = Integer.parseInt(value.toString().trim());
    if (partitions < 1) {
      throw new IllegalArgumentException(RATES_PARTITIONS + " must be >= 1: " + value);
    }
    return partitions;
  }

  /**
   * How many tasks run a stage whose input topic has {@code partitions} partitions: that many in a
   * deployed application, one in a single-task run (TopologyTestDriver, offline {@code detect},
   * {@code replay}), which sets no {@link #RATES_PARTITIONS}. A stage that waits for every upstream
   * task ({@link io.fabricpulse.streams.order.UpstreamWatermark}) expects this many.
   */
  public static int tasksOf(Map<String, Object> appConfigs, int partitions) {
    return appConfigs.get(RATES_PARTITIONS) == null ? 1 : partitions;
  }

  /**
   * Base settings: explicit naming enforced (Kafka 4.1+ {@code
   * ensure.explicit.internal.resource.naming}), the requested guarantee, {@code acks=all}, event
   * time from the record timestamp (the sample time set by the collector), and the state directory.
   *
   * <p>The timestamp extractor is {@link LogAndSkipOnInvalidTimestamp}: it returns the record
   * timestamp and skips (with a warning and Streams' dropped-records metric) a record whose
   * timestamp is negative instead of killing the stream thread.
   */
  public static Properties base(
      String applicationId, String bootstrapServers, Path stateDir, Guarantee guarantee) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee.configValue());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, "true");
    props.put(
        StreamsConfig.DEFAULT_TIMESTAMP_EXTRACTOR_CLASS_CONFIG,
        LogAndSkipOnInvalidTimestamp.class.getName());
    props.put(StreamsConfig.producerPrefix(ProducerConfig.ACKS_CONFIG), "all");
    // fabric.rates and the changelogs repeat counter names port after port: lz4 shrinks them
    // several-fold for little CPU (BENCHMARKS.md, "Contract 0.2").
    props.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
    // Kafka 5.0 turns this on by default; opting in now keeps behaviour stable across the upgrade.
    props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, "true");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    return props;
  }

  /**
   * Settings of an offline run over a TopologyTestDriver ({@code detect}, {@code replay}): one task
   * that starts empty and throws its state away, so its stores are in memory without changelogs
   * ({@link #IN_MEMORY_STATE}); no broker is ever contacted. {@code max.task.idle.ms} is -1: the
   * driver hands the task one record at a time, so there is no other partition's data to wait for,
   * and with the default (0) Kafka Streams formats a log line for every empty source partition
   * before each record (PartitionGroup.readyToProcess, 13 % of a detect run).
   */
  public static Properties offline(String applicationId, Path stateDir) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9"); // never contacted
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    props.put(IN_MEMORY_STATE, "true");
    props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
    return props;
  }

  /**
   * A key-value store with String keys: persistent (RocksDB) and changelogged, or for an offline
   * run ({@link #IN_MEMORY_STATE}) in memory without a changelog, as {@link #offline} describes.
   */
  public static <V> StoreBuilder<KeyValueStore<String, V>> keyValueStore(
      String name, Serde<V> values, boolean offline) {
    if (offline) {
      return Stores.keyValueStoreBuilder(
              Stores.inMemoryKeyValueStore(name), Serdes.String(), values)
          .withLoggingDisabled();
    }
    return Stores.keyValueStoreBuilder(
        Stores.persistentKeyValueStore(name), Serdes.String(), values);
  }

  /** Base settings with exactly-once v2 (docs/design.md section 8). */
  public static Properties base(String applicationId, String bootstrapServers, Path stateDir) {
    return base(applicationId, bootstrapServers, stateDir, Guarantee.EXACTLY_ONCE_V2);
  }
}
