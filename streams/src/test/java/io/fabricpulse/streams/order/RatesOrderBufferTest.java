package io.fabricpulse.streams.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

class RatesOrderBufferTest {

  @Test
  void zeroPaddingPrintsWhatFormatPrints() {
    for (long value : List.of(0L, 7L, 12_345L, 99_999L, 123_456L, -3L, 1_737_652_060_000L)) {
      assertEquals(
          String.format(Locale.ROOT, "%019d", value),
          RatesOrderBuffer.zeroPadded(new StringBuilder(), value, 19).toString());
      assertEquals(
          String.format(Locale.ROOT, "%05d", value),
          RatesOrderBuffer.zeroPadded(new StringBuilder(), value, 5).toString());
    }
  }

  @Test
  void keysSortInEventTimeOrderThenByPort() {
    String early = RatesOrderBuffer.key("c/n1", rates(1_000L, "mlx5_0", 2, 9));
    String later = RatesOrderBuffer.key("c/n1", rates(10_000L, "mlx5_0", 1, 1));
    String laterPort = RatesOrderBuffer.key("c/n1", rates(10_000L, "mlx5_0", 10, 1));
    assertEquals("c/n1|0000000000000001000|PORT|mlx5_0|00002||0000000000000000009", early);
    assertTrue(early.compareTo(later) < 0);
    assertTrue(later.compareTo(laterPort) < 0);
    assertEquals(
        "c/n1|0000000000000010000|PFC|||eth0|0000000000000000001",
        RatesOrderBuffer.key(
            "c/n1",
            CounterRates.newBuilder(rates(10_000L, null, null, 1))
                .setSource(RateSource.PFC)
                .setNetdev("eth0")
                .build()));
  }

  @Test
  void aNodeRecordIsOneEntryWithoutPortAndSortsWithTheNodesOtherSources() {
    NodeRates node =
        NodeRecords.ofRates(
            List.of(BufferedRatesSerdeTest.port("mlx5_0"), BufferedRatesSerdeTest.port("mlx5_1")));
    String key = RatesOrderBuffer.key("c1/gpu001", node);
    assertEquals("c1/gpu001|0000000000000001000|PORT||||0000000000000000007", key);
    String pfcSameTime =
        RatesOrderBuffer.key(
            "c1/gpu001",
            NodeRates.newBuilder(node).setSource(RateSource.PFC).setPorts(List.of()).build());
    assertTrue(pfcSameTime.compareTo(key) < 0, "ties broken by source: PFC before PORT");
  }

  @Test
  void anArrivingRecordTheWatermarkCoversIsReleasedInItsPlaceWithoutBeingStored() {
    KeyValueStore<String, BufferedRates> store = store();
    RatesOrderBuffer buffer = new RatesOrderBuffer(store);
    BufferedRates pfc = buffered(node(1_000L, RateSource.PFC, 1));
    BufferedRates ecn = buffered(node(3_000L, RateSource.ECN, 1));
    buffer.add("c1/gpu001", pfc);
    buffer.add("c1/gpu001", ecn);

    BufferedRates port = buffered(node(2_000L, RateSource.PORT, 1));
    assertEquals(List.of(pfc, port), buffer.releaseUpTo("c1/gpu001", 2_000L, port));
    assertEquals(1, count(store), "only the ECN record after the watermark stays");

    BufferedRates ecnAgain = buffered(node(3_000L, RateSource.ECN, 1));
    assertEquals(List.of(ecnAgain), buffer.releaseUpTo("c1/gpu001", 3_000L, ecnAgain));
    assertEquals(0, count(store));
  }

  private static NodeRates node(long time, RateSource source, long seq) {
    return NodeRecords.ofRates(
        List.of(CounterRates.newBuilder(rates(time, "mlx5_0", 1, seq)).setSource(source).build()));
  }

  private static BufferedRates buffered(NodeRates node) {
    return new BufferedRates(node, new RecordHeaders());
  }

  private static KeyValueStore<String, BufferedRates> store() {
    DetectorSerdes serdes = DetectorSerdes.forRegistry("mock://" + RatesOrderBufferTest.class);
    KeyValueStore<String, BufferedRates> store =
        Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("rates-order-buffer"),
                Serdes.String(),
                new BufferedRatesSerde(
                    serdes.value(NodeRates.class),
                    serdes.rates(),
                    serdes.oneOf(List.of(NodeRates.class, CounterRates.class))))
            .withLoggingDisabled()
            .build();
    store.init(new MockProcessorContext<String, CounterRates>().getStateStoreContext(), store);
    return store;
  }

  private static long count(KeyValueStore<String, BufferedRates> store) {
    try (var all = store.all()) {
      long n = 0;
      while (all.hasNext()) {
        all.next();
        n++;
      }
      return n;
    }
  }

  private static CounterRates rates(long time, String device, Integer port, long seq) {
    return CounterRates.newBuilder()
        .setCluster("c")
        .setNode("n1")
        .setBootId("boot-1")
        .setSeq(seq)
        .setTime(Instant.ofEpochMilli(time))
        .setSource(RateSource.PORT)
        .setDevice(device)
        .setPort(port)
        .setRates(List.of())
        .build();
  }
}
