package io.fabricpulse.sinks.influx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb.QueryResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink against a real QuestDB server in this JVM: records go through the real decode, schema,
 * resolution, aggregation and influxdb-client-java write path, and every point is read back with
 * SQL. Each test uses its own cluster tag, so tests sharing the server do not see each other's
 * rows.
 */
class InfluxSinkIntegrationTest {

  private static final String REGISTRY = "mock://influx-sink-it";
  private static final String RATES = FabricTopics.RATES;
  private static final String ALERTS = FabricTopics.ALERTS;
  private static final Duration READ_DEADLINE = Duration.ofSeconds(30);

  /** 2025-01-23T17:07:40Z, a multiple of 10 s. */
  private static final long T0 = 1_737_652_060_000L;

  @TempDir static Path dataDir;
  private static EmbeddedQuestDb questDb;

  private final Serializer<CounterRates> ratesSerializer =
      AvroSerde.forValues(CounterRates.class, REGISTRY).serializer();
  private final Serializer<Alert> alertSerializer =
      AvroSerde.forValues(Alert.class, REGISTRY).serializer();

  @BeforeAll
  static void startServer() {
    questDb = EmbeddedQuestDb.start(dataDir.resolve("shared"));
  }

  @AfterAll
  static void stopServer() {
    questDb.close();
  }

  @Test
  void everyRateAndAlertPointIsReadBackWithItsTagsValuesAndTime() {
    RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
    InfluxSinkConfig config = config(questDb).withResolution(SinkResolution.allFull());
    for (int node = 1; node <= 2; node++) {
      for (int s = 0; s < 3; s++) {
        long rx = 1_000_000_000L * node + 100_000_000L * s;
        rates(
            consumer,
            Rates.port("it-full", "gpu00" + node, T0 + 1000L * s)
                .normal("port_rcv_data", 40_000_000_000L + rx * s, rx, "bytes")
                .normal("port_xmit_data", 90_000_000_000L + 2 * rx * s, 2 * rx, "bytes")
                .normal("symbol_error", 7L + s, s, "events")
                .build());
      }
    }
    rates(
        consumer,
        Rates.pfc("it-full", "gpu001", T0)
            .normal("rx_prio3_pause_duration", 12_000_000L, 900_000L, "microseconds")
            .build());
    alert(consumer, InfluxSchemaTest.alert(AlertState.FIRING, null));

    try (InfluxSink sink = sink(config, consumer)) {
      pollUntil(sink, () -> Long.valueOf(7).equals(consumer.committedOffset(RATES)));
      assertEquals(1L, consumer.committedOffset(ALERTS));
      assertEquals(8, sink.metrics().recordsConsumed());
      assertEquals(8, sink.metrics().pointsWritten());
    }

    QueryResult port =
        questDb.awaitRows(
            "select * from fabric_port_rates where cluster = 'it-full' order by node, timestamp",
            6,
            READ_DEADLINE);
    assertEquals(6, port.rows().size());
    int row = 0;
    for (int node = 1; node <= 2; node++) {
      for (int s = 0; s < 3; s++) {
        long rx = 1_000_000_000L * node + 100_000_000L * s;
        Map<String, String> r = port.rows().get(row++);
        assertEquals("it-full", r.get("cluster"));
        assertEquals("gpu00" + node, r.get("node"));
        assertEquals("mlx5_0", r.get("device"));
        assertEquals("1", r.get("port"));
        assertEquals(time(T0 + 1000L * s), r.get("timestamp"));
        assertEquals(rx, Double.parseDouble(r.get("rx_bytes_per_s")));
        assertEquals(rx, Double.parseDouble(r.get("port_rcv_data_per_s")));
        assertEquals(rx, Long.parseLong(r.get("port_rcv_data_delta")));
        assertEquals(2 * rx, Double.parseDouble(r.get("tx_bytes_per_s")));
        assertEquals(2 * rx, Long.parseLong(r.get("port_xmit_data_delta")));
        assertEquals(s, Long.parseLong(r.get("symbol_error_delta")));
        assertEquals(s, Double.parseDouble(r.get("symbol_error_per_s")));
        assertEquals(400.0, Double.parseDouble(r.get("rate_gbps")));
        assertEquals("1", r.get("state_active"));
      }
    }

    Map<String, String> pfc =
        questDb
            .awaitRows("select * from fabric_pfc_rates where cluster = 'it-full'", 1, READ_DEADLINE)
            .rows()
            .get(0);
    assertEquals("ens5f0np0", pfc.get("netdev"));
    assertEquals(0.9, Double.parseDouble(pfc.get("pause_ratio_prio3")), 1e-12);
    assertEquals(900_000.0, Double.parseDouble(pfc.get("rx_prio3_pause_duration_per_s")));
    assertEquals("4200", pfc.get("netdev_mtu"));
    assertEquals(time(T0), pfc.get("timestamp"));

    Map<String, String> alert =
        questDb
            .awaitRows("select * from fabric_alerts where cluster = 'c1'", 1, READ_DEADLINE)
            .rows()
            .get(0);
    assertEquals("PAUSE_STORM", alert.get("kind"));
    assertEquals("CRITICAL", alert.get("severity"));
    assertEquals("FIRING", alert.get("state"));
    assertEquals("pause-storm", alert.get("rule"));
    assertEquals("gpu017", alert.get("node"));
    assertEquals("3", alert.get("priority"));
    assertEquals("pause-storm/c1/gpu017/ens5f0np0/3/" + T0, alert.get("alert_id"));
    assertEquals(0.9, Double.parseDouble(alert.get("value")));
    assertEquals(0.5, Double.parseDouble(alert.get("threshold")));
    assertEquals("ratio", alert.get("unit"));
    assertEquals(time(T0), alert.get("timestamp"));
  }

  /**
   * A write that times out on the client after the server applied it is retried with the same
   * points (seen in CI on a loaded machine: "write of 2 points ... failed (attempt 1) ... timeout",
   * then a second copy of each row). The store must hold each point once, as InfluxDB does.
   */
  @Test
  void pointsWrittenAgainByARetryAreStoredOnce() {
    InfluxSinkConfig config = config(questDb);
    SinkPoint first =
        InfluxSchema.ratesPoint(
                Rates.port("it-retry", "gpu031", T0)
                    .normal("port_rcv_errors", 40L, 4L, "events")
                    .build())
            .orElseThrow();
    SinkPoint marker =
        InfluxSchema.ratesPoint(
                Rates.port("it-retry", "gpu031", T0 + 1000)
                    .normal("port_rcv_errors", 40L, 0L, "events")
                    .build())
            .orElseThrow();
    try (InfluxPointWriter writer = new InfluxPointWriter(config)) {
      writer.write(List.of(first));
      writer.write(List.of(first)); // the retry
      writer.write(List.of(marker)); // applied after both: once it shows, the retry was applied
    }
    String series = "select * from fabric_port_rates where cluster = 'it-retry'";
    questDb.awaitRows(series + " and timestamp = '" + time(T0 + 1000) + "'", 1, READ_DEADLINE);
    List<Map<String, String>> rows = questDb.awaitRows(series, 1, READ_DEADLINE).rows();
    assertEquals(2, rows.size(), rows.toString());
  }

  @Test
  void saturatedCounterLeavesNoValueInTheStoreNotAZero() {
    RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
    rates(
        consumer,
        Rates.port("it-sat", "gpu009", T0)
            .normal("port_rcv_errors", 65_000L, 12L, "events")
            .normal("link_downed", 4L, 1L, "events")
            .build());
    rates(
        consumer,
        Rates.port("it-sat", "gpu009", T0 + 1000)
            .counter("port_rcv_errors", 65_535L, 0L, 0.0, "events", RateTag.saturated)
            .normal("link_downed", 4L, 0L, "events")
            .build());

    try (InfluxSink sink = sink(config(questDb), consumer)) {
      pollUntil(sink, () -> Long.valueOf(2).equals(consumer.committedOffset(RATES)));
    }

    List<Map<String, String>> rows =
        questDb
            .awaitRows(
                "select * from fabric_port_rates where cluster = 'it-sat' order by timestamp",
                2,
                READ_DEADLINE)
            .rows();
    assertEquals(2, rows.size());
    assertEquals("12", rows.get(0).get("port_rcv_errors_delta"));
    assertEquals(12.0, Double.parseDouble(rows.get(0).get("port_rcv_errors_per_s")));
    assertNull(rows.get(1).get("port_rcv_errors_delta"));
    assertNull(rows.get(1).get("port_rcv_errors_per_s"));
    assertEquals("0", rows.get(1).get("link_downed_delta"));
    assertEquals(time(T0 + 1000), rows.get(1).get("timestamp"));
  }

  @Test
  void bulkRatesAreWrittenAsTenSecondEventTimeAggregatesAndAlertRatesAtFullResolution() {
    RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
    // Bucket [T0, T0+10s): five samples, rx 1..5 GB/s. Bucket [T0+10s, T0+20s): 6 and 8 GB/s.
    long[] offsets = new long[7];
    long[] times = {0, 2_000, 4_000, 6_000, 8_000, 10_000, 12_000};
    long[] rx = {1, 2, 3, 4, 5, 6, 8};
    for (int i = 0; i < times.length; i++) {
      long bytes = rx[i] * 1_000_000_000L;
      offsets[i] =
          rates(
              consumer,
              Rates.port("it-agg", "gpu042", T0 + times[i])
                  .normal("port_rcv_data", 10 * bytes, bytes, "bytes")
                  .normal("port_xmit_wait", 1_000L * i, 100L * i, "ticks")
                  .build());
    }

    InfluxSink sink = sink(config(questDb), consumer);
    try {
      // The first bucket closes when the sample at T0+10s arrives (event time, not wall clock);
      // the second stays open, so the commit stops at its first record.
      pollUntil(sink, () -> Long.valueOf(offsets[5]).equals(consumer.committedOffset(RATES)));
      assertEquals(1, sink.openBuckets());

      Map<String, String> first =
          questDb
              .awaitRows(
                  "select * from fabric_port_rates_10s where cluster = 'it-agg'", 1, READ_DEADLINE)
              .rows()
              .get(0);
      assertEquals(time(T0), first.get("timestamp"));
      assertEquals(3e9, Double.parseDouble(first.get("rx_bytes_per_s_mean")));
      assertEquals(5e9, Double.parseDouble(first.get("rx_bytes_per_s_max")));
      assertEquals(3e9, Double.parseDouble(first.get("port_rcv_data_per_s_mean")));
      assertEquals(15_000_000_000L, Long.parseLong(first.get("port_rcv_data_delta_sum")));
      assertEquals("5", first.get("samples"));
      assertEquals("gpu042", first.get("node"));
      assertEquals("mlx5_0", first.get("device"));
      assertEquals("1", first.get("port"));
    } finally {
      sink.close();
    }

    // close() writes the open bucket but does not commit it: a restart rebuilds it from Kafka.
    assertEquals(offsets[5], consumer.committedOffset(RATES));
    List<Map<String, String>> buckets =
        questDb
            .awaitRows(
                "select * from fabric_port_rates_10s where cluster = 'it-agg' order by timestamp",
                2,
                READ_DEADLINE)
            .rows();
    Map<String, String> second = buckets.get(1);
    assertEquals(time(T0 + 10_000), second.get("timestamp"));
    assertEquals(7e9, Double.parseDouble(second.get("rx_bytes_per_s_mean")));
    assertEquals(8e9, Double.parseDouble(second.get("rx_bytes_per_s_max")));
    assertEquals(14_000_000_000L, Long.parseLong(second.get("port_rcv_data_delta_sum")));
    assertEquals("2", second.get("samples"));

    // Alert-relevant fields are at full resolution: one row per sample, no aggregate column.
    List<Map<String, String>> full =
        questDb
            .awaitRows(
                "select * from fabric_port_rates where cluster = 'it-agg' order by timestamp",
                7,
                READ_DEADLINE)
            .rows();
    assertEquals(7, full.size());
    for (int i = 0; i < 7; i++) {
      assertEquals(time(T0 + times[i]), full.get(i).get("timestamp"));
      assertEquals(100.0 * i, Double.parseDouble(full.get(i).get("port_xmit_wait_per_s")));
      assertEquals("400.0", full.get(i).get("rate_gbps"));
      assertNull(full.get(i).get("rx_bytes_per_s"));
    }
  }

  @Test
  void bucketClosedByIdlenessIsRewrittenCompleteWhenItsSeriesResumesAndStoredOnce() {
    RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
    long[] now = {0};
    aggSample(consumer, "it-reopen", "gpu050", T0, 2);
    aggSample(consumer, "it-reopen", "gpu050", T0 + 1000, 4);
    String bucketT0 =
        "select * from fabric_port_rates_10s where cluster = 'it-reopen' and timestamp = '"
            + time(T0)
            + "'";
    try (InfluxSink sink = sink(config(questDb), consumer, () -> now[0])) {
      pollUntil(sink, () -> sink.metrics().recordsConsumed() == 2);
      assertEquals(1, sink.openBuckets());
      now[0] += InfluxSinkConfig.DEFAULT_IDLE_CLOSE.toNanos();
      // The producer of gpu050 stalled for the idle time: the bucket is written as it is.
      pollUntil(sink, () -> Long.valueOf(2).equals(consumer.committedOffset(RATES)));
      questDb.await(bucketT0, r -> r.rows().size() == 1, READ_DEADLINE);

      aggSample(consumer, "it-reopen", "gpu050", T0 + 2000, 9);
      aggSample(consumer, "it-reopen", "gpu050", T0 + 10_000, 1);
      pollUntil(sink, () -> Long.valueOf(3).equals(consumer.committedOffset(RATES)));
      assertEquals(1, sink.metrics().rewrittenBuckets());
      assertEquals(0, sink.metrics().lateSamples());
    }
    List<Map<String, String>> rows =
        questDb
            .await(
                bucketT0,
                r -> r.rows().size() == 1 && "3".equals(r.rows().get(0).get("samples")),
                READ_DEADLINE)
            .rows();
    assertEquals(5e9, Double.parseDouble(rows.get(0).get("rx_bytes_per_s_mean")));
    assertEquals(9e9, Double.parseDouble(rows.get(0).get("rx_bytes_per_s_max")));
    assertEquals(15_000_000_000L, Long.parseLong(rows.get(0).get("port_rcv_data_delta_sum")));
  }

  @Test
  void restartRebuildsABucketStraddlingTheCommitCompletely() {
    RecordingConsumer first = new RecordingConsumer(RATES, ALERTS);
    aggSample(first, "it-restart", "gpu061", T0, 1); // 0
    aggSample(first, "it-restart", "gpu062", T0 - 300_000, 7); // 1: five minutes behind
    aggSample(first, "it-restart", "gpu061", T0 + 1000, 3); // 2
    aggSample(first, "it-restart", "gpu061", T0 + 10_000, 5); // 3: closes gpu061's T0 [0, 2]
    try (InfluxSink sink = sink(config(questDb), first)) {
      pollUntil(sink, () -> Long.valueOf(1).equals(first.committedOffset(RATES)));
    }
    // Committed at gpu062's open bucket, inside gpu061's written T0 bucket: rebuild from 0.
    assertEquals("rebuild-from=0", first.lastCommit(RATES).metadata());

    RecordingConsumer second = new RecordingConsumer(RATES, ALERTS);
    aggSample(second, "it-restart", "gpu061", T0, 1);
    aggSample(second, "it-restart", "gpu062", T0 - 300_000, 7);
    aggSample(second, "it-restart", "gpu061", T0 + 1000, 3);
    aggSample(second, "it-restart", "gpu061", T0 + 10_000, 5);
    aggSample(second, "it-restart", "gpu062", T0 - 290_000, 8); // 4: closes gpu062's bucket
    second.resumeFrom(RATES, first.lastCommit(RATES));
    try (InfluxSink sink = sink(config(questDb), second)) {
      pollUntil(sink, () -> Long.valueOf(3).equals(second.committedOffset(RATES)));
    }

    String gpu061 = "cluster = 'it-restart' and node = 'gpu061' and timestamp = '" + time(T0) + "'";
    List<Map<String, String>> bucket =
        questDb
            .awaitRows("select * from fabric_port_rates_10s where " + gpu061, 1, READ_DEADLINE)
            .rows();
    assertEquals(1, bucket.size());
    assertEquals("2", bucket.get(0).get("samples"));
    assertEquals(2e9, Double.parseDouble(bucket.get(0).get("rx_bytes_per_s_mean")));
    // The re-read record below the commit only rebuilt the aggregate: its full-resolution point
    // was not written a second time.
    assertEquals(
        1,
        questDb
            .awaitRows("select * from fabric_port_rates where " + gpu061, 1, READ_DEADLINE)
            .rows()
            .size());
  }

  /**
   * The sink commits after it writes; a point written whose offset was not committed (the broker
   * went away, the partitions moved) is read and written again by the next owner. The store keeps
   * one point per series and time, as InfluxDB does: the second write replaces the first.
   */
  @Test
  void aPointWrittenAgainAfterItsCommitWasLostIsStoredOnce() {
    Alert firing =
        Alert.newBuilder(InfluxSchemaTest.alert(AlertState.FIRING, null))
            .setCluster("it-rewrite")
            .build();
    for (int owner = 0; owner < 2; owner++) {
      RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
      alert(consumer, firing); // each owner reads it from offset 0: nothing was committed
      try (InfluxSink sink = sink(config(questDb), consumer)) {
        pollUntil(sink, () -> Long.valueOf(1).equals(consumer.committedOffset(ALERTS)));
      }
    }
    // QuestDB applies a table's WAL transactions in order: once a later write is visible, both
    // writes of the alert are applied
    RecordingConsumer later = new RecordingConsumer(RATES, ALERTS);
    alert(later, Alert.newBuilder(firing).setCluster("it-rewrite-after").build());
    try (InfluxSink sink = sink(config(questDb), later)) {
      pollUntil(sink, () -> Long.valueOf(1).equals(later.committedOffset(ALERTS)));
    }
    questDb.awaitRows(
        "select * from fabric_alerts where cluster = 'it-rewrite-after'", 1, READ_DEADLINE);
    assertEquals(
        "1",
        questDb
            .query("select count() c from fabric_alerts where cluster = 'it-rewrite'")
            .rows()
            .get(0)
            .get("c"));
  }

  @Test
  void serverDownPausesAndRetriesWithoutCommittingThenDeliversEverything() {
    try (EmbeddedQuestDb flaky = EmbeddedQuestDb.start(dataDir.resolve("flaky"))) {
      flaky.stop();
      RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
      InfluxSinkConfig config =
          config(flaky)
              .withResolution(SinkResolution.allFull())
              .withRetry(Duration.ofSeconds(2), Duration.ofMillis(20), Duration.ofMillis(200));
      for (int s = 0; s < 3; s++) {
        rates(consumer, sample("it-down", T0 + 1000L * s, s));
      }

      try (InfluxSink sink = sink(config, consumer)) {
        pollUntil(sink, () -> sink.metrics().writeFailures() >= 3);
        assertTrue(sink.isBackingOff());
        assertEquals(consumer.assignment(), consumer.paused());
        assertNull(consumer.committedOffset(RATES));
        assertEquals(3, sink.pendingPoints());

        // Records that arrive during the outage stay in Kafka: the partitions are paused.
        rates(consumer, sample("it-down", T0 + 3000, 3));
        rates(consumer, sample("it-down", T0 + 4000, 4));
        sink.pollOnce(Duration.ofMillis(10));
        assertEquals(3, sink.metrics().recordsConsumed());

        flaky.start();
        pollUntil(sink, () -> Long.valueOf(5).equals(consumer.committedOffset(RATES)));
        assertEquals(5, sink.metrics().pointsWritten());
        assertTrue(consumer.paused().isEmpty());
      }

      List<Map<String, String>> rows =
          flaky
              .awaitRows(
                  "select * from fabric_port_rates where cluster = 'it-down' order by timestamp",
                  5,
                  READ_DEADLINE)
              .rows();
      assertEquals(5, rows.size());
      for (int s = 0; s < 5; s++) {
        assertEquals(time(T0 + 1000L * s), rows.get(s).get("timestamp"));
        assertEquals(1e9 + s, Double.parseDouble(rows.get(s).get("rx_bytes_per_s")));
      }
    }
  }

  @Test
  void runsInItsOwnThreadSkipsMalformedRecordsAndStopsOnClose() throws InterruptedException {
    RecordingConsumer consumer = new RecordingConsumer(RATES, ALERTS);
    InfluxSinkConfig config = config(questDb).withResolution(SinkResolution.allFull());
    InfluxSink sink = sink(config, consumer);
    Thread thread = new Thread(sink, "influx-sink-test");
    thread.start();

    rates(consumer, sample("it-thread", T0, 0));
    consumer.append(RATES, "it-thread/gpu100/mlx5_0/1", new byte[] {1, 2, 3});
    rates(consumer, sample("it-thread", T0 + 1000, 1));
    long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
    while (!Long.valueOf(3).equals(consumer.committedOffset(RATES))) {
      assertTrue(System.nanoTime() < deadline, "not committed: " + sink.metrics());
      Thread.onSpinWait();
    }
    sink.close();
    thread.join(READ_DEADLINE.toMillis());

    assertTrue(!thread.isAlive());
    assertTrue(consumer.closed());
    assertEquals(1, sink.metrics().malformedRecords());
    assertEquals(3, sink.metrics().recordsConsumed());
    assertEquals(2, sink.metrics().pointsWritten());
    assertEquals(
        2,
        questDb
            .awaitRows(
                "select * from fabric_port_rates where cluster = 'it-thread'", 2, READ_DEADLINE)
            .rows()
            .size());
  }

  private static CounterRates sample(String cluster, long timeMs, int s) {
    long bytes = 1_000_000_000L + s;
    return Rates.port(cluster, "gpu100", timeMs)
        .normal("port_rcv_data", 10 * bytes, bytes, "bytes")
        .build();
  }

  private static InfluxSinkConfig config(EmbeddedQuestDb db) {
    // Flush interval 1 ms: every pollOnce that consumed something writes and commits.
    return InfluxSinkConfig.of(db.url(), "fabricpulse", "fabric", "not-needed".toCharArray())
        .withBatch(1000, Duration.ofMillis(1));
  }

  private static InfluxSink sink(InfluxSinkConfig config, RecordingConsumer consumer) {
    return sink(config, consumer, System::nanoTime);
  }

  private static InfluxSink sink(
      InfluxSinkConfig config, RecordingConsumer consumer, LongSupplier ticker) {
    return new InfluxSink(
        config,
        consumer,
        Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY),
        new InfluxPointWriter(config),
        ticker);
  }

  /** A sample of {@code node} receiving {@code gbPerS} GB/s and xmit wait (full resolution). */
  private long aggSample(
      RecordingConsumer consumer, String cluster, String node, long timeMs, long gbPerS) {
    long bytes = gbPerS * 1_000_000_000L;
    return rates(
        consumer,
        Rates.port(cluster, node, timeMs)
            .normal("port_rcv_data", 10 * bytes, bytes, "bytes")
            .normal("port_xmit_wait", 100L, 10L, "ticks")
            .build());
  }

  private long rates(RecordingConsumer consumer, CounterRates rates) {
    String key = rates.getCluster() + "/" + rates.getNode() + "/mlx5_0/1";
    return consumer.append(RATES, key, ratesSerializer.serialize(RATES, rates));
  }

  private void alert(RecordingConsumer consumer, Alert alert) {
    consumer.append(ALERTS, alert.getAlertId(), alertSerializer.serialize(ALERTS, alert));
  }

  /** Drives the sink until {@code done}, with a deadline (no sleep). */
  private static void pollUntil(InfluxSink sink, BooleanSupplier done) {
    long deadline = System.nanoTime() + READ_DEADLINE.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "condition not reached in " + READ_DEADLINE + "; " + sink.metrics());
      }
      sink.pollOnce(Duration.ofMillis(10));
    }
  }

  /** QuestDB's rendering of a designated timestamp (microseconds, UTC). */
  private static String time(long epochMs) {
    String iso = Instant.ofEpochMilli(epochMs).toString(); // 2025-01-23T17:07:40Z
    String millis = String.format("%03d", epochMs % 1000);
    return iso.substring(0, 19) + "." + millis + "000Z";
  }
}
