package io.fabricpulse.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spine on real parts: the sysfs collector reads a real mlx4 capture (unpacked), the publisher
 * sends to a real KRaft broker, the rate stage derives rates in Kafka Streams, the sink writes them
 * through influxdb-client-java to a real QuestDB, and every value is read back with SQL.
 */
class PipelineEndToEndIT {

  /** A multiple of 10 s, so the three samples fill one 10 s bucket and open the next. */
  private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

  @Test
  void countersFromSysfsArriveAsRatesInTheTimeSeriesStore(@TempDir Path dir) throws Exception {
    Path sysfs = Samples.unpackSysfs("procfs-mlx4_0-qdr-2port.ttar.txt", dir.resolve("sysfs"));
    Path counters = sysfs.resolve("class/infiniband/mlx4_0/ports/1/counters");
    NodeIdentity node = new NodeIdentity("lab", "gpu017", "boot-1");
    AtomicLong seq = new AtomicLong();
    SysfsPortCounterReader reader = new SysfsPortCounterReader(new DirectorySysfsTree(sysfs));

    try (EmbeddedPipeline pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(
                dir.resolve("state"), "mock://pipeline-e2e-it", 2, null, null),
            line -> {})) {
      try (RecordPublisher publisher =
          new RecordPublisher(pipeline.producerConfig(), pipeline.topics().portCounters().name())) {
        // t0: the capture as is. t0+1s: 1000 octets/4 sent, 500 ticks of xmit wait, 3 symbol
        // errors. t0+10s: 9000 more octets/4, nothing else.
        publish(publisher, reader, node, seq, T0);
        add(counters, "port_xmit_data", 1000);
        add(counters, "port_xmit_wait", 500);
        add(counters, "symbol_error", 3);
        publish(publisher, reader, node, seq, T0.plusSeconds(1));
        add(counters, "port_xmit_data", 9000);
        publish(publisher, reader, node, seq, T0.plusSeconds(10));
      }

      EmbeddedQuestDb store = pipeline.questDb();
      String port1 =
          "from fabric_port_rates where node = 'gpu017' and device = 'mlx4_0' and port = '1'";
      List<Map<String, String>> rows =
          store
              .awaitRows("select * " + port1 + " order by timestamp", 3, Duration.ofSeconds(90))
              .rows();
      assertEquals(3, rows.size());
      Map<String, String> first = rows.get(0);
      Map<String, String> second = rows.get(1);
      Map<String, String> third = rows.get(2);

      assertEquals("2026-11-29T10:00:00.000000Z", first.get("timestamp"));
      assertNull(first.get("port_xmit_wait_per_s"), "first sample: rate unknown, no field");
      assertEquals("1", first.get("state_active"));
      assertEquals("40.0", first.get("rate_gbps"));

      assertEquals("2026-11-29T10:00:01.000000Z", second.get("timestamp"));
      assertEquals(500.0, Double.parseDouble(second.get("port_xmit_wait_per_s")));
      assertEquals("500", second.get("port_xmit_wait_delta"));
      assertEquals("3", second.get("symbol_error_delta"));
      assertEquals(3.0, Double.parseDouble(second.get("symbol_error_per_s")));
      assertEquals("0", second.get("link_downed_delta"));

      assertEquals("2026-11-29T10:00:10.000000Z", third.get("timestamp"));
      assertEquals(0.0, Double.parseDouble(third.get("port_xmit_wait_per_s")));
      assertEquals("0", third.get("symbol_error_delta"));

      // Bulk throughput is stored as 10 s aggregates: the bucket at t0 holds the t0+1s rate,
      // 1000 octets/4 in 1 s = 4000 bytes/s.
      Map<String, String> bucket =
          store
              .awaitRows(
                  "select * from fabric_port_rates_10s where node = 'gpu017' and device = 'mlx4_0'"
                      + " and port = '1' and timestamp = '2026-11-29T10:00:00.000000Z'",
                  1,
                  Duration.ofSeconds(60))
              .rows()
              .get(0);
      assertEquals(4000.0, Double.parseDouble(bucket.get("tx_bytes_per_s_mean")));
      assertEquals(4000.0, Double.parseDouble(bucket.get("tx_bytes_per_s_max")));
      assertEquals("4000", bucket.get("port_xmit_data_delta_sum"));

      // Port 2 of the same capture was not touched: its rates are zero, not missing.
      List<Map<String, String>> port2 =
          store
              .awaitRows(
                  "select * from fabric_port_rates where device = 'mlx4_0' and port = '2'"
                      + " order by timestamp",
                  3,
                  Duration.ofSeconds(60))
              .rows();
      assertEquals(0.0, Double.parseDouble(port2.get(1).get("port_xmit_wait_per_s")));
      // nothing refused by the store (a write retried after a timeout on a loaded machine is not
      // a loss)
      assertEquals(0, pipeline.sink().metrics().pointsRejected(), "no point refused");
    }
  }

  private static void publish(
      RecordPublisher publisher,
      SysfsPortCounterReader reader,
      NodeIdentity node,
      AtomicLong seq,
      Instant at) {
    ParseResult<PortCounters> sample = reader.read(new SampleContext(node, at, seq));
    assertEquals(List.of(), sample.malformed());
    publisher.publishAll(node, sample);
    publisher.flush();
  }

  private static void add(Path counters, String name, long increment) throws IOException {
    Path file = counters.resolve(name);
    long value = Long.parseLong(Files.readString(file).trim());
    Files.writeString(file, (value + increment) + "\n");
  }
}
