package io.fabricpulse.streams.rates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PortSample;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.ValueSerdes;
import io.fabricpulse.streams.testing.RatesOutput;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A switch's port counters (fabric.raw.switch-counters, NodeCounters of source PERFQUERY with the
 * sysfs counter names the fabric role publishes) are rated by the same stage as a host's ports:
 * octets/4 scaled, 64-bit extended counters, saturated 16-bit basic error counters; the rates keep
 * the switch's key and say PERFQUERY.
 */
class SwitchCounterRatesTest {
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");
  private static final String KEY = "c1/leaf01";
  private static final String GUID = "0x0000000000200000";

  private final FabricTopics topics = FabricTopics.defaults();
  private final ValueSerdes serdes =
      ValueSerdes.registry("mock://" + SwitchCounterRatesTest.class.getName());

  @TempDir Path stateDir;
  private TopologyTestDriver driver;
  private TestInputTopic<String, NodeCounters> switchesIn;
  private TestOutputTopic<String, NodeRates> ratesOut;
  private TestOutputTopic<String, DeadLetter> dlqOut;

  @BeforeEach
  void start() {
    driver =
        new TopologyTestDriver(
            RateTopology.build(topics, serdes, RateConfig.defaults()),
            StreamsSettings.base("fabricpulse-switch-rates-test", "127.0.0.1:9", stateDir),
            T0);
    switchesIn =
        driver.createInputTopic(
            topics.switchCounters().name(),
            new StringSerializer(),
            serdes.forValues(NodeCounters.class).serializer());
    ratesOut =
        driver.createOutputTopic(
            topics.rates().name(),
            new StringDeserializer(),
            serdes.forValues(NodeRates.class).deserializer());
    dlqOut =
        driver.createOutputTopic(
            topics.deadLetters().name(),
            new StringDeserializer(),
            serdes.forValues(DeadLetter.class).deserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  private static Counter counter(String name, int width, long value) {
    return Counter.newBuilder()
        .setName(name)
        .setGroup(CounterGroup.PERFQUERY)
        .setWidth(width)
        .setValue(value)
        .build();
  }

  /** leaf01's ISL port 8, as the fabric role publishes it after one perfquery sweep. */
  private static NodeCounters sweep(long seq, Instant time, long xmitData, long symbolErrors) {
    PortSample isl =
        PortSample.newBuilder()
            .setDevice(GUID)
            .setPort(8)
            .setLinkLayer("InfiniBand")
            .setState("ACTIVE")
            .setRate("100 Gb/sec (4X EDR)")
            .setRateGbps(100.0)
            .setLinkWidth("4X")
            .setCounters(
                List.of(
                    counter("port_xmit_data", 64, xmitData),
                    counter("symbol_error", 16, symbolErrors),
                    counter("port_xmit_wait", 32, 1_000 * seq)))
            .build();
    return NodeCounters.newBuilder()
        .setCluster("c1")
        .setNode("leaf01")
        .setBootId("switch:" + GUID)
        .setSeq(seq)
        .setTime(time)
        .setSource(RateSource.PERFQUERY)
        .setPorts(List.of(isl))
        .build();
  }

  private static CounterRate rate(CounterRates rates, String name) {
    return rates.getRates().stream()
        .filter(r -> r.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + rates));
  }

  @Test
  void aSwitchPortIsRatedLikeAHostPortAndStaysPerfquery() {
    switchesIn.pipeInput(KEY, sweep(0, T0, 1_000, 3), T0);
    switchesIn.pipeInput(
        KEY, sweep(1, T0.plusSeconds(60), 1_000 + 15_000_000, 65_535), T0.plusSeconds(60));

    List<TestRecord<String, NodeRates>> out = ratesOut.readRecordsToList();
    assertEquals(2, out.size());
    assertEquals(KEY, out.get(1).key());
    assertEquals(RateSource.PERFQUERY, out.get(1).value().getSource());
    CounterRates isl = RatesOutput.views(out.get(1).value()).get(0);
    assertEquals(RateSource.PERFQUERY, isl.getSource());
    assertEquals("leaf01", isl.getNode());
    assertEquals(GUID, isl.getDevice());
    assertEquals(8, isl.getPort());
    assertEquals("4X", isl.getLinkWidth());
    CounterRate data = rate(isl, "port_xmit_data");
    assertEquals(60_000_000L, data.getDelta(), "octets/4 x 4");
    assertEquals(1_000_000.0, data.getPerSecond());
    CounterRate symbol = rate(isl, "symbol_error");
    assertEquals(RateTag.saturated, symbol.getTag(), "the 16-bit PortCounters field stopped");
    assertNull(symbol.getDelta());
    assertEquals(1_000L, rate(isl, "port_xmit_wait").getDelta());
    assertTrue(dlqOut.isEmpty());
  }
}
