package io.fabricpulse.streams.rates;

import static io.fabricpulse.streams.rates.RateSamples.BOOT_A;
import static io.fabricpulse.streams.rates.RateSamples.BOOT_B;
import static io.fabricpulse.streams.rates.RateSamples.CLUSTER;
import static io.fabricpulse.streams.rates.RateSamples.NODE;
import static io.fabricpulse.streams.rates.RateSamples.NODE_KEY;
import static io.fabricpulse.streams.rates.RateSamples.ecn;
import static io.fabricpulse.streams.rates.RateSamples.ethtool;
import static io.fabricpulse.streams.rates.RateSamples.hw;
import static io.fabricpulse.streams.rates.RateSamples.pfc;
import static io.fabricpulse.streams.rates.RateSamples.pma;
import static io.fabricpulse.streams.rates.RateSamples.port;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import io.fabricpulse.collectors.ethtool.EthtoolStat;
import io.fabricpulse.collectors.ethtool.EthtoolStatsParser;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.LineageHeaders;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.ValueSerdes;
import io.fabricpulse.streams.testing.RatesOutput;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rate stage, driven in event time: each test is a small incident on node gpu017. */
class RateTopologyTest {

  private static final String REGISTRY = "mock://" + RateTopologyTest.class.getName();
  private static final Instant T0 = Instant.parse("2025-01-23T17:07:40Z");
  private static final String PORT_SUBJECT = "c1/gpu017/mlx5_0/1";

  private final FabricTopics topics = FabricTopics.defaults();
  private final ValueSerdes serdes = ValueSerdes.registry(REGISTRY);

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, PortCounters> portIn;
  private TestInputTopic<String, PfcPauseFrames> pfcIn;
  private TestInputTopic<String, EcnMarks> ecnIn;
  private TestInputTopic<String, byte[]> portBytesIn;
  private TestOutputTopic<String, CounterRates> ratesOut;
  private TestOutputTopic<String, DeadLetter> dlqOut;

  @BeforeEach
  void start() {
    driver =
        new TopologyTestDriver(
            RateTopology.build(topics, serdes, RateConfig.defaults()),
            StreamsSettings.base("fabricpulse-rates-test", "127.0.0.1:9", stateDir),
            T0);
    StringSerializer keys = new StringSerializer();
    portIn =
        driver.createInputTopic(
            topics.portCounters().name(), keys, serdes.forValues(PortCounters.class).serializer());
    pfcIn =
        driver.createInputTopic(
            topics.pfc().name(), keys, serdes.forValues(PfcPauseFrames.class).serializer());
    ecnIn =
        driver.createInputTopic(
            topics.ecn().name(), keys, serdes.forValues(EcnMarks.class).serializer());
    portBytesIn =
        driver.createInputTopic(topics.portCounters().name(), keys, new ByteArraySerializer());
    ratesOut =
        driver.createOutputTopic(
            topics.rates().name(), new StringDeserializer(), RatesOutput.singlePort(serdes));
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

  private void send(PortCounters sample) {
    portIn.pipeInput(NODE_KEY, sample, sample.getTime());
  }

  private static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  private static CounterRate rate(CounterRates rates, String counter) {
    return rates.getRates().stream()
        .filter(r -> r.getName().equals(counter))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no rate for " + counter + " in " + rates));
  }

  private void assertNoDeadLetters() {
    assertTrue(dlqOut.isEmpty(), () -> "unexpected dead letters: " + dlqOut.readValuesToList());
  }

  private double metric(String operation) {
    return RateMetrics.total(driver.metrics(), operation);
  }

  @Test
  void firstSampleOfAPortIsTaggedFirstAndCarriesTheLinkState() {
    send(
        port(
            BOOT_A,
            0,
            at(0),
            pma("port_xmit_data", 64, 85_378_896_588L),
            pma("symbol_error", 16, 0),
            pma("link_downed", 8, 0)));

    TestRecord<String, CounterRates> out = ratesOut.readRecord();
    // the raw key: fabric.rates is co-partitioned with the raw topics
    assertEquals(NODE_KEY, out.key());
    assertEquals(at(0), out.getRecordTime());
    assertEquals(topics.portCounters().name(), LineageHeaders.topic(out.headers()));
    assertEquals(0, LineageHeaders.partition(out.headers()));
    assertEquals(0L, LineageHeaders.offset(out.headers()));
    CounterRates rates = out.value();
    assertEquals(RateSource.PORT, rates.getSource());
    assertEquals("mlx5_0", rates.getDevice());
    assertEquals(1, rates.getPort());
    assertEquals(at(0), rates.getTime());
    assertNull(rates.getIntervalMs());
    assertEquals("ACTIVE", rates.getState());
    assertEquals("LinkUp", rates.getPhysState());
    assertEquals(400.0, rates.getRateGbps());
    assertEquals("4X", rates.getLinkWidth());
    assertEquals("InfiniBand", rates.getLinkLayer());
    assertEquals(3, rates.getRates().size());
    for (CounterRate r : rates.getRates()) {
      assertEquals(RateTag.first, r.getTag(), r.getName());
      assertNull(r.getDelta(), r.getName());
      assertNull(r.getPerSecond(), r.getName());
    }
    assertEquals(85_378_896_588L, rate(rates, "port_xmit_data").getValue());
    assertEquals("bytes", rate(rates, "port_xmit_data").getUnit());
    assertTrue(ratesOut.isEmpty());
    assertNoDeadLetters();
  }

  @Test
  void steadyTrafficGivesBytesPerSecondFromOctetsDividedByFour() {
    send(port(BOOT_A, 10, at(0), pma("port_xmit_data", 64, 1000), pma("port_rcv_data", 64, 0)));
    send(port(BOOT_A, 18, at(1), pma("port_xmit_data", 64, 1250), pma("port_rcv_data", 64, 0)));

    List<CounterRates> out = ratesOut.readValuesToList();
    assertEquals(2, out.size());
    CounterRates second = out.get(1);
    assertEquals(1000L, second.getIntervalMs());
    CounterRate xmit = rate(second, "port_xmit_data");
    assertEquals(RateTag.normal, xmit.getTag());
    assertEquals(1250L, xmit.getValue());
    assertEquals(1000L, xmit.getDelta());
    assertEquals(1000.0, xmit.getPerSecond());
    assertEquals("bytes", xmit.getUnit());
    CounterRate rcv = rate(second, "port_rcv_data");
    assertEquals(RateTag.normal, rcv.getTag());
    assertEquals(0.0, rcv.getPerSecond());
    assertNoDeadLetters();
  }

  @Test
  void mlx5WriteRequestCounterWrapsPast32Bits() {
    send(port(BOOT_A, 1, at(0), hw("rx_write_requests", 32, 4_294_967_000L)));
    send(port(BOOT_A, 2, at(1), hw("rx_write_requests", 32, 200)));

    CounterRate wrapped = rate(ratesOut.readValuesToList().get(1), "rx_write_requests");
    assertEquals(RateTag.wrap, wrapped.getTag());
    assertEquals(496L, wrapped.getDelta());
    assertEquals(496.0, wrapped.getPerSecond());
    assertEquals("events", wrapped.getUnit());
    assertNoDeadLetters();
  }

  @Test
  void perfqueryResetClearsSymbolErrorsWithoutReboot() {
    send(port(BOOT_A, 1, at(0), pma("symbol_error", 16, 500)));
    // an operator ran perfquery -R: the counter restarts at 0 and 3 new errors arrive
    send(port(BOOT_A, 2, at(1), pma("symbol_error", 16, 3)));

    CounterRate cleared = rate(ratesOut.readValuesToList().get(1), "symbol_error");
    assertEquals(RateTag.clear, cleared.getTag());
    assertEquals(3L, cleared.getDelta());
    assertEquals(3.0, cleared.getPerSecond());
    assertNoDeadLetters();
  }

  @Test
  void rebootRestartsCountersAndIsNotMistakenForAClear() {
    send(
        port(
            BOOT_A,
            4711,
            at(0),
            pma("port_rcv_data", 64, 987_654_321L),
            pma("link_downed", 8, 2),
            hw("out_of_buffer", 32, 123_456)));
    // node gpu017 rebooted: new boot id, collector seq back at 0, counters low again, 10 s later
    send(
        port(
            BOOT_B,
            0,
            at(10),
            pma("port_rcv_data", 64, 2_500),
            pma("link_downed", 8, 1),
            hw("out_of_buffer", 32, 7)));

    CounterRates after = ratesOut.readValuesToList().get(1);
    assertEquals(BOOT_B, after.getBootId());
    assertEquals(10_000L, after.getIntervalMs());
    CounterRate data = rate(after, "port_rcv_data");
    assertEquals(RateTag.reboot, data.getTag());
    assertEquals(10_000L, data.getDelta());
    assertEquals(1000.0, data.getPerSecond());
    assertEquals(RateTag.reboot, rate(after, "link_downed").getTag());
    assertEquals(1L, rate(after, "link_downed").getDelta());
    // a wrapping counter after a reboot is a reboot, not a wrap
    assertEquals(RateTag.reboot, rate(after, "out_of_buffer").getTag());
    assertEquals(7L, rate(after, "out_of_buffer").getDelta());
    assertNoDeadLetters();
  }

  @Test
  void symbolErrorsStuckAtAllOnesAreSaturatedNotZero() {
    send(port(BOOT_A, 1, at(0), pma("symbol_error", 16, 65_530)));
    send(port(BOOT_A, 2, at(1), pma("symbol_error", 16, 65_535)));
    send(port(BOOT_A, 3, at(2), pma("symbol_error", 16, 65_535)));

    List<CounterRates> out = ratesOut.readValuesToList();
    for (CounterRates stuck : out.subList(1, 3)) {
      CounterRate r = rate(stuck, "symbol_error");
      assertEquals(RateTag.saturated, r.getTag());
      assertEquals(65_535L, r.getValue());
      assertNull(r.getDelta());
      assertNull(r.getPerSecond());
    }
    assertNoDeadLetters();
  }

  @Test
  void priorityThreePausedEightyPercentOfASecond() {
    pfcIn.pipeInput(
        NODE_KEY,
        pfc(
            BOOT_A,
            0,
            at(0),
            ethtool("rx_prio3_pause", 41_927),
            ethtool("rx_prio3_pause_duration", 1_000)),
        at(0));
    pfcIn.pipeInput(
        NODE_KEY,
        pfc(
            BOOT_A,
            1,
            at(1),
            ethtool("rx_prio3_pause", 53_927),
            ethtool("rx_prio3_pause_duration", 801_000)),
        at(1));

    List<KeyValue<String, CounterRates>> out = ratesOut.readKeyValuesToList();
    assertEquals(2, out.size());
    assertEquals(NODE_KEY, out.get(1).key);
    assertEquals("ens5f0np0", out.get(1).value.getNetdev());
    CounterRates second = out.get(1).value;
    assertEquals(RateSource.PFC, second.getSource());
    assertEquals("ens5f0np0", second.getNetdev());
    assertNull(second.getState());
    CounterRate duration = rate(second, "rx_prio3_pause_duration");
    assertEquals(RateTag.normal, duration.getTag());
    assertEquals("microseconds", duration.getUnit());
    assertEquals(800_000L, duration.getDelta());
    assertEquals(800_000.0, duration.getPerSecond());
    assertEquals(0.8, duration.getPerSecond() / 1e6, 1e-12);
    CounterRate frames = rate(second, "rx_prio3_pause");
    assertEquals("packets", frames.getUnit());
    assertEquals(12_000.0, frames.getPerSecond());
    assertNoDeadLetters();
  }

  /**
   * The rate stage tags every ethtool counter with its meaning, whatever the driver calls it:
   * parsed from the repository's ice (E810) and legacy-mlx5 captures, each sampled twice 1 s apart
   * with the priority-3 pause counters rising.
   */
  @Test
  void iceAndLegacyMlx5CountersCarryTheSameMeaningAsModernMlx5() throws Exception {
    List<CounterRates> ice =
        rateCapture(
            "ice-e810-pfc-prio3-synthetic.txt",
            "ice",
            Map.of("tx_priority_3_xoff.nic", 2_400L, "tx_priority_3_xon.nic", 1L));
    CounterRate xoff = rate(ice.get(1), "tx_priority_3_xoff.nic");
    assertEquals(CounterKind.PFC_PAUSE, xoff.getKind());
    assertEquals(CounterDirection.TX, xoff.getDirection());
    assertEquals(3, xoff.getPriority());
    assertEquals("packets", xoff.getUnit());
    assertEquals(2_400L, xoff.getDelta());
    CounterRate xon = rate(ice.get(1), "rx_priority_0_xon.nic");
    assertEquals(CounterKind.PFC_PAUSE_TRANSITION, xon.getKind());
    assertEquals(CounterDirection.RX, xon.getDirection());
    assertEquals(0, xon.getPriority());
    CounterRate linkXoff = rate(ice.get(1), "link_xoff_rx.nic");
    assertEquals(CounterKind.GLOBAL_PAUSE, linkXoff.getKind());
    assertNull(linkXoff.getPriority());

    List<CounterRates> legacy =
        rateCapture(
            "mlx5-legacy-names-pfc-prio3-synthetic.txt",
            "mlx5_core",
            Map.of("prio3_rx_pause_duration", 850_000L, "prio3_rx_pause", 9_000L));
    CounterRate duration = rate(legacy.get(1), "prio3_rx_pause_duration");
    assertEquals(CounterKind.PFC_PAUSE_DURATION, duration.getKind());
    assertEquals(CounterDirection.RX, duration.getDirection());
    assertEquals(3, duration.getPriority());
    assertEquals("microseconds", duration.getUnit());
    assertEquals(850_000.0, duration.getPerSecond());
    CounterRate octets = rate(legacy.get(1), "prio0_tx_octets");
    assertEquals(CounterKind.PRIO_BYTES, octets.getKind());
    assertEquals("bytes", octets.getUnit());
    CounterRate discards = rate(legacy.get(1), "in_discards");
    assertEquals(CounterKind.DISCARDS_PHY, discards.getKind());
    assertEquals(CounterDirection.RX, discards.getDirection());
    assertNoDeadLetters();
  }

  /**
   * Two samples of one capture 1 s apart, the second with {@code increments} added, through the
   * collector's own parser and record builder; returns both rates records.
   */
  private List<CounterRates> rateCapture(String file, String driver, Map<String, Long> increments)
      throws Exception {
    String text =
        Files.readString(Path.of("../collectors/src/test/resources/ethtool").resolve(file));
    List<EthtoolStat> first = new EthtoolStatsParser().parse(file, text).records();
    List<EthtoolStat> second = new ArrayList<>();
    for (EthtoolStat stat : first) {
      second.add(
          new EthtoolStat(
              stat.name(), stat.value() + increments.getOrDefault(stat.name(), 0L), stat.line()));
    }
    NodeIdentity node = new NodeIdentity("c1", "gpu017", BOOT_A);
    String netdev = "ens" + Math.abs(file.hashCode() % 100) + "f0";
    for (int i = 0; i < 2; i++) {
      SampleContext ctx = new SampleContext(node, at(i), new AtomicLong(i));
      PfcPauseFrames sample =
          EthtoolRecords.pfcPauseFrames(ctx, netdev, driver, null, i == 0 ? first : second);
      pfcIn.pipeInput(NODE_KEY, sample, at(i));
    }
    List<CounterRates> out = ratesOut.readValuesToList();
    assertEquals(2, out.size());
    return out;
  }

  @Test
  void ratesKeepTheRawKeyByteForByteAndFallBackToClusterNodeWithoutOne() {
    // a key that is not cluster/node of the sample still decides the partition: keep it as is
    portIn.pipeInput("c1/gpu017 ", port(BOOT_A, 0, at(0), pma("symbol_error", 16, 0)), at(0));
    portIn.pipeInput(null, port(BOOT_A, 1, at(1), pma("symbol_error", 16, 0)), at(1));

    List<KeyValue<String, CounterRates>> out = ratesOut.readKeyValuesToList();
    assertEquals(List.of("c1/gpu017 ", NODE_KEY), out.stream().map(kv -> kv.key).toList());
    assertNoDeadLetters();
  }

  @Test
  void ecnMarksKeepTheNodeKeyAndAreKeptApartFromThePortSample() {
    send(port(BOOT_A, 1, at(0), pma("port_xmit_data", 64, 100)));
    ecnIn.pipeInput(
        NODE_KEY,
        ecn(BOOT_A, 0, at(0), null, "mlx5_0", hw("np_ecn_marked_roce_packets", 64, 1_000)),
        at(0));
    ecnIn.pipeInput(
        NODE_KEY,
        ecn(BOOT_A, 1, at(2), null, "mlx5_0", hw("np_ecn_marked_roce_packets", 64, 5_000)),
        at(2));
    ecnIn.pipeInput(
        NODE_KEY, ecn(BOOT_A, 2, at(2), "ens5f0np0", "mlx5_2", hw("rp_cnp_handled", 64, 9)), at(2));

    List<KeyValue<String, CounterRates>> out = ratesOut.readKeyValuesToList();
    assertEquals(4, out.size());
    // every rates record of the node keeps the node key (same partition), not the port's state
    out.forEach(kv -> assertEquals(NODE_KEY, kv.key));
    assertEquals(RateTag.first, rate(out.get(1).value, "np_ecn_marked_roce_packets").getTag());
    CounterRate marked = rate(out.get(2).value, "np_ecn_marked_roce_packets");
    assertEquals(RateTag.normal, marked.getTag());
    assertEquals(2_000.0, marked.getPerSecond());
    assertEquals("packets", marked.getUnit());
    assertEquals("ens5f0np0", out.get(3).value.getNetdev());
    assertEquals("mlx5_2", out.get(3).value.getDevice());
    assertEquals(RateSource.ECN, out.get(3).value.getSource());
    assertNoDeadLetters();
  }

  @Test
  void producerRetryAndLateSamplesAreDroppedAndCounted() {
    send(port(BOOT_A, 10, at(0), pma("port_xmit_data", 64, 1000)));
    send(port(BOOT_A, 18, at(1), pma("port_xmit_data", 64, 1250)));
    // the producer retried the last record: same boot, seq and time
    send(port(BOOT_A, 18, at(1), pma("port_xmit_data", 64, 1250)));
    // a sample from before the last one arrives late (another partition's retry, a slow path)
    portIn.pipeInput(
        NODE_KEY,
        port(BOOT_A, 14, at(0).plusMillis(500), pma("port_xmit_data", 64, 1100)),
        at(0).plusMillis(500));
    // same time as the last accepted sample but a different seq: not newer, dropped
    send(port(BOOT_A, 19, at(1), pma("port_xmit_data", 64, 1300)));
    send(port(BOOT_A, 26, at(2), pma("port_xmit_data", 64, 1500)));

    List<CounterRates> out = ratesOut.readValuesToList();
    assertEquals(List.of(10L, 18L, 26L), out.stream().map(CounterRates::getSeq).toList());
    // the third rate is measured against the last accepted sample (1250 at t=1), not the dropped
    CounterRate third = rate(out.get(2), "port_xmit_data");
    assertEquals(1000L, out.get(2).getIntervalMs());
    assertEquals(1000L, third.getDelta());
    assertEquals(1.0, metric(RateMetrics.DROPPED_DUPLICATE));
    assertEquals(2.0, metric(RateMetrics.DROPPED_OUT_OF_ORDER));
    assertEquals(0.0, metric(RateMetrics.DEAD_LETTERS));
    assertNoDeadLetters();
  }

  @Test
  void collectorRestartWithLowerSeqButNewerTimeIsAccepted() {
    send(port(BOOT_A, 500, at(0), pma("port_xmit_data", 64, 1000)));
    // the collector restarted on the same boot: its seq starts again at 0
    send(port(BOOT_A, 0, at(5), pma("port_xmit_data", 64, 6000)));

    List<CounterRates> out = ratesOut.readValuesToList();
    assertEquals(2, out.size());
    CounterRate xmit = rate(out.get(1), "port_xmit_data");
    assertEquals(RateTag.normal, xmit.getTag());
    assertEquals(20_000L, xmit.getDelta());
    assertEquals(4_000.0, xmit.getPerSecond());
    assertEquals(
        0.0, metric(RateMetrics.DROPPED_DUPLICATE) + metric(RateMetrics.DROPPED_OUT_OF_ORDER));
  }

  @Test
  void unavailableCounterIsReportedAndStartsFreshWhenItReturns() {
    send(
        port(
            BOOT_A,
            1,
            at(0),
            RateSamples.counter("symbol_error", CounterGroup.COUNTERS, 16, null)));
    send(port(BOOT_A, 2, at(1), pma("symbol_error", 16, 4)));

    List<CounterRates> out = ratesOut.readValuesToList();
    CounterRate missing = rate(out.get(0), "symbol_error");
    assertEquals(RateTag.unavailable, missing.getTag());
    assertNull(missing.getValue());
    assertEquals(RateTag.first, rate(out.get(1), "symbol_error").getTag());
    assertNoDeadLetters();
  }

  @Test
  void corruptRecordGoesToTheDeadLetterTopicAndTheStageKeepsGoing() {
    send(port(BOOT_A, 1, at(0), pma("port_xmit_data", 64, 1000)));
    byte[] garbage = "port_xmit_data=1250".getBytes(StandardCharsets.UTF_8);
    portBytesIn.pipeInput(NODE_KEY, garbage, at(1));
    send(port(BOOT_A, 3, at(2), pma("port_xmit_data", 64, 1500)));

    DeadLetter letter = dlqOut.readValue();
    assertEquals(topics.portCounters().name(), letter.getTopic());
    assertEquals(0, letter.getPartition());
    assertEquals(1L, letter.getOffset());
    assertEquals(RateTopology.PROCESSOR, letter.getProcessor());
    assertEquals("cannot deserialize", letter.getReason());
    assertTrue(
        letter.getException().startsWith("org.apache.kafka.common.errors.SerializationException"),
        letter.getException());
    assertEquals(at(1), letter.getTime());
    assertArrayEquals(garbage, bytes(letter.getValue()));
    assertArrayEquals(NODE_KEY.getBytes(StandardCharsets.UTF_8), bytes(letter.getKey()));
    assertTrue(dlqOut.isEmpty());

    List<CounterRates> out = ratesOut.readValuesToList();
    assertEquals(2, out.size());
    assertEquals(2000L, out.get(1).getIntervalMs());
    assertEquals(500.0 * 4 / 2, rate(out.get(1), "port_xmit_data").getPerSecond());
    assertEquals(1.0, metric(RateMetrics.DEAD_LETTERS));
  }

  @Test
  void sampleWithoutASubjectIsADeadLetterNotACrash() {
    ecnIn.pipeInput(NODE_KEY, ecn(BOOT_A, 0, at(0), null, null, hw("np_cnp_sent", 64, 1)), at(0));
    portBytesIn.pipeInput(NODE_KEY, null, at(1));

    List<DeadLetter> letters = dlqOut.readValuesToList();
    assertEquals(2, letters.size());
    assertEquals(
        "invalid sample: ECN sample names neither netdev nor device", letters.get(0).getReason());
    assertEquals(topics.ecn().name(), letters.get(0).getTopic());
    assertEquals("null value on a raw topic", letters.get(1).getReason());
    assertTrue(ratesOut.isEmpty());
  }

  @Test
  void theStoreKeepsTheLastAcceptedSampleOfEveryPortInOneEntryPerNodeAndSource() {
    send(port(BOOT_A, 7, at(0), pma("port_xmit_data", 64, 1000), pma("symbol_error", 16, 65_535)));
    pfcIn.pipeInput(NODE_KEY, pfc(BOOT_A, 3, at(0), ethtool("rx_prio3_pause", 5)), at(0));

    KeyValueStore<String, NodeLastSamples> store =
        driver.getKeyValueStore(RateTopology.LAST_SAMPLE_STORE);
    LastSample last = store.get("PORT|" + NODE_KEY).ports().get("mlx5_0/1");
    assertEquals(at(0).toEpochMilli(), last.timeMs());
    assertEquals(BOOT_A, last.bootId());
    assertEquals(7L, last.seq());
    assertEquals(java.util.Map.of("port_xmit_data", 1000L, "symbol_error", 65_535L), last.values());
    assertEquals(
        5L, store.get("PFC|" + NODE_KEY).ports().get("ens5f0np0").values().get("rx_prio3_pause"));
  }

  @Test
  void perPortStateOfTheLastReleaseIsTakenOverByTheNodesEntryAfterAnUpgrade() {
    // fabricpulse 0.2.0 kept one entry per port, under the port's subject
    KeyValueStore<String, NodeLastSamples> store =
        driver.getKeyValueStore(RateTopology.LAST_SAMPLE_STORE);
    LastSample old =
        LastSample.of(at(0).toEpochMilli(), BOOT_A, 6, java.util.Map.of("port_xmit_data", 1_000L));
    store.put("PORT|" + PORT_SUBJECT, LastSampleSerde.read(LastSampleSerde.writeVersion1(old)));

    send(port(BOOT_A, 7, at(1), pma("port_xmit_data", 64, 1_100)));

    CounterRate xmit = rate(ratesOut.readValue(), "port_xmit_data");
    assertEquals(RateTag.normal, xmit.getTag());
    assertEquals(400L, xmit.getDelta());
    assertNull(store.get("PORT|" + PORT_SUBJECT), "the per-port entry is gone");
    assertEquals(
        1_100L,
        store.get("PORT|" + NODE_KEY).ports().get("mlx5_0/1").values().get("port_xmit_data"));
  }

  @Test
  void lastSamplesAreChangeloggedUnderTheStoreName() {
    send(port(BOOT_A, 1, at(0), pma("port_xmit_data", 64, 1000)));

    assertEquals(
        java.util.Set.of(
            "fabricpulse-rates-test-rates-last-sample-changelog", topics.rates().name()),
        driver.producedTopicNames());
  }

  private static byte[] bytes(java.nio.ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  // ---- contract 0.2: one NodeCounters per node cycle

  private static PortCounters onDevice(PortCounters port, String device) {
    return PortCounters.newBuilder(port).setDevice(device).build();
  }

  private static NodeCounters cycle(long seq, Instant time, PortCounters... ports) {
    return NodeRecords.ofPorts(
        new NodeRecords.Cycle(CLUSTER, NODE, BOOT_A, seq, time), RateSource.PORT, List.of(ports));
  }

  private TestOutputTopic<String, NodeRates> nodeRatesOut() {
    return driver.createOutputTopic(
        topics.rates().name(),
        new StringDeserializer(),
        serdes.forValues(NodeRates.class).deserializer());
  }

  @Test
  void oneNodeCycleOfTwoPortsGivesOneRatesRecordWithBothPortsRated() {
    TestInputTopic<String, NodeCounters> nodeIn =
        driver.createInputTopic(
            topics.portCounters().name(),
            new StringSerializer(),
            serdes.forValues(NodeCounters.class).serializer());
    TestOutputTopic<String, NodeRates> out = nodeRatesOut();
    PortCounters mlx50 = port(BOOT_A, 0, at(0), pma("port_xmit_data", 64, 1_000));
    PortCounters mlx51 =
        onDevice(port(BOOT_A, 0, at(0), pma("port_xmit_data", 64, 5_000)), "mlx5_1");
    nodeIn.pipeInput(NODE_KEY, cycle(0, at(0), mlx50, mlx51), at(0));
    nodeIn.pipeInput(
        NODE_KEY,
        cycle(
            1,
            at(1),
            port(BOOT_A, 0, at(1), pma("port_xmit_data", 64, 1_250)),
            onDevice(port(BOOT_A, 0, at(1), pma("port_xmit_data", 64, 5_500)), "mlx5_1")),
        at(1));

    List<TestRecord<String, NodeRates>> records = out.readRecordsToList();
    assertEquals(2, records.size(), "one rates record per node cycle");
    NodeRates second = records.get(1).value();
    assertEquals(NODE_KEY, records.get(1).key());
    assertEquals(1L, second.getSeq());
    List<CounterRates> ports = RatesOutput.views(second);
    assertEquals(List.of("mlx5_0", "mlx5_1"), ports.stream().map(CounterRates::getDevice).toList());
    // port_xmit_data counts octets/4: 250 x 4 bytes and 500 x 4 bytes in one second
    assertEquals(1_000L, rate(ports.get(0), "port_xmit_data").getDelta());
    assertEquals(2_000L, rate(ports.get(1), "port_xmit_data").getDelta());
    assertEquals(1_000L, ports.get(0).getIntervalMs());
    assertNoDeadLetters();
  }

  @Test
  void aPortThatCannotBeRatedIsDeadLetteredByNameAndItsNeighbourIsStillRated() {
    TestInputTopic<String, NodeCounters> nodeIn =
        driver.createInputTopic(
            topics.portCounters().name(),
            new StringSerializer(),
            serdes.forValues(NodeCounters.class).serializer());
    TestOutputTopic<String, NodeRates> out = nodeRatesOut();
    PortCounters good = port(BOOT_A, 0, at(0), pma("port_xmit_data", 64, 1_000));
    PortCounters nameless = onDevice(good, "");
    nodeIn.pipeInput(NODE_KEY, cycle(0, at(0), nameless, good), at(0));

    NodeRates rated = out.readValue();
    assertEquals(
        List.of("mlx5_0"), RatesOutput.views(rated).stream().map(CounterRates::getDevice).toList());
    DeadLetter letter = dlqOut.readValue();
    assertTrue(letter.getReason().contains("empty device"), letter::getReason);
    assertTrue(dlqOut.isEmpty());
  }

  @Test
  void aNodeWhoseCollectorIsUpgradedMidStreamKeepsItsRatesAcrossContractVersions() {
    // 0.1 collector: one PortCounters per port
    send(port(BOOT_A, 7, at(0), pma("port_xmit_data", 64, 1_000)));
    assertEquals(RateTag.first, rate(ratesOut.readValue(), "port_xmit_data").getTag());
    // the same node after its collector was upgraded to 0.2 (its sequence restarts)
    TestInputTopic<String, NodeCounters> nodeIn =
        driver.createInputTopic(
            topics.portCounters().name(),
            new StringSerializer(),
            serdes.forValues(NodeCounters.class).serializer());
    nodeIn.pipeInput(
        NODE_KEY, cycle(0, at(1), port(BOOT_A, 0, at(1), pma("port_xmit_data", 64, 1_100))), at(1));

    CounterRate xmit = rate(ratesOut.readValue(), "port_xmit_data");
    assertEquals(RateTag.normal, xmit.getTag());
    assertEquals(400L, xmit.getDelta());
    assertNoDeadLetters();
  }
}
