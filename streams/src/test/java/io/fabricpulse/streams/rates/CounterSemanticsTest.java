package io.fabricpulse.streams.rates;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.RateTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CounterSemanticsTest {

  private static final String BOOT = "boot-a";
  private static final long T0 = 1_737_652_060_000L;
  private final CounterSemantics semantics = CounterSemantics.defaults();

  private static CounterId counter(String name, CounterGroup group, int width) {
    return new CounterId(name, group, width);
  }

  private static CounterReading at(long value, long timeMs) {
    return new CounterReading(value, timeMs, BOOT);
  }

  @Test
  void firstSampleHasNoDeltaAndNoRate() {
    CounterDelta d =
        semantics.derive(counter("port_xmit_data", CounterGroup.COUNTERS, 64), null, at(1000, T0));
    assertEquals(new CounterDelta(null, null, "bytes", RateTag.first), d);
  }

  @Test
  void counterMissingFromPreviousSampleIsFirst() {
    CounterDelta d =
        semantics.derive(
            counter("symbol_error", CounterGroup.COUNTERS, 16),
            new CounterReading(null, T0, BOOT),
            at(7, T0 + 1000));
    assertEquals(RateTag.first, d.tag());
    assertNull(d.delta());
  }

  @Test
  void dataCountersAreOctetsDividedByFour() {
    // port_xmit_data 1000 -> 1250 octets/4 in 1 s = 250 x 4 = 1000 bytes/s [PQ]
    CounterDelta d =
        semantics.derive(
            counter("port_xmit_data", CounterGroup.COUNTERS, 64),
            at(1000, T0),
            at(1250, T0 + 1000));
    assertEquals(new CounterDelta(1000L, 1000.0, "bytes", RateTag.normal), d);
  }

  @Test
  void perSecondUsesTheEventTimeInterval() {
    // 3 s between samples: 600 events / 3 s = 200/s
    CounterDelta d =
        semantics.derive(
            counter("port_rcv_errors", CounterGroup.COUNTERS, 16), at(100, T0), at(700, T0 + 3000));
    assertEquals(new CounterDelta(600L, 200.0, "events", RateTag.normal), d);
  }

  @Test
  void unchangedCounterIsNormalWithZeroRate() {
    CounterDelta d =
        semantics.derive(
            counter("link_downed", CounterGroup.COUNTERS, 8), at(48, T0), at(48, T0 + 1000));
    assertEquals(new CounterDelta(0L, 0.0, "events", RateTag.normal), d);
  }

  @Test
  void pauseDurationIsMicrosecondsSoRateOverMillionIsThePauseRatio() {
    CounterDelta d =
        semantics.derive(
            counter("rx_prio3_pause_duration", CounterGroup.ETHTOOL, 64),
            at(1_000_000, T0),
            at(1_800_000, T0 + 1000));
    assertEquals(new CounterDelta(800_000L, 800_000.0, "microseconds", RateTag.normal), d);
    assertEquals(0.8, d.perSecond() / 1e6, 1e-12);
  }

  @Test
  void mlx5QCounterWrapsAt32Bits() {
    // rx_write_requests is read with be32_to_cpu [K-mlx5cnt]: 4294967000 -> 200 is 496 requests
    CounterDelta d =
        semantics.derive(
            counter("rx_write_requests", CounterGroup.HW_COUNTERS, 32),
            at(4_294_967_000L, T0),
            at(200, T0 + 1000));
    assertEquals(new CounterDelta(496L, 496.0, "events", RateTag.wrap), d);
  }

  @Test
  void mlx5QCounterAtAllOnesIsNotSaturatedItKeepsCounting() {
    CounterDelta d =
        semantics.derive(
            counter("out_of_buffer", CounterGroup.HW_COUNTERS, 32),
            at(4_294_967_000L, T0),
            at(4_294_967_295L, T0 + 1000));
    // out_of_buffer counts dropped packets: its unit comes from its kind (OUT_OF_BUFFER)
    assertEquals(new CounterDelta(295L, 295.0, "packets", RateTag.normal), d);
  }

  @Test
  void implausibleWrapIsTreatedAsClear() {
    // 1000 -> 5 would be a wrap of 4294966301, more than half the range in one second: a reset.
    CounterDelta d =
        semantics.derive(
            counter("out_of_sequence", CounterGroup.HW_COUNTERS, 32),
            at(1000, T0),
            at(5, T0 + 1000));
    assertEquals(new CounterDelta(5L, 5.0, "events", RateTag.clear), d);
  }

  @Test
  void wrapPlausibilityFollowsTheConfiguredFraction() {
    // corrected delta 1294967301 is below half of 2^32 but above a quarter
    CounterId q = counter("packet_seq_err", CounterGroup.HW_COUNTERS, 32);
    CounterReading prev = at(3_000_000_000L, T0);
    CounterReading cur = at(5, T0 + 1000);
    assertEquals(RateTag.wrap, CounterSemantics.defaults().derive(q, prev, cur).tag());
    assertEquals(1_294_967_301L, CounterSemantics.defaults().derive(q, prev, cur).delta());
    assertEquals(RateTag.clear, new CounterSemantics(0.25).derive(q, prev, cur).tag());
  }

  @Test
  void pmaCounterDecreaseIsAClearNeverAWrap() {
    // perfquery -R cleared symbol_error: 500 -> 3 with the same boot id
    CounterDelta d =
        semantics.derive(
            counter("symbol_error", CounterGroup.COUNTERS, 16), at(500, T0), at(3, T0 + 1000));
    assertEquals(new CounterDelta(3L, 3.0, "events", RateTag.clear), d);
  }

  @Test
  void sixtyFourBitDecreaseIsAClear() {
    CounterDelta d =
        semantics.derive(
            counter("np_cnp_sent", CounterGroup.HW_COUNTERS, 64), at(9_000, T0), at(40, T0 + 2000));
    assertEquals(new CounterDelta(40L, 20.0, "packets", RateTag.clear), d);
  }

  @Test
  void rebootRestartsEveryCounterDeltaIsCurrentValue() {
    CounterDelta d =
        semantics.derive(
            counter("port_rcv_data", CounterGroup.COUNTERS, 64),
            at(987_654_321L, T0),
            new CounterReading(2_500L, T0 + 10_000, "boot-b"));
    // 2500 octets/4 since boot = 10000 bytes over the 10 s interval
    assertEquals(new CounterDelta(10_000L, 1000.0, "bytes", RateTag.reboot), d);
  }

  @Test
  void rebootWinsEvenWhenTheValueGrew() {
    CounterDelta d =
        semantics.derive(
            counter("link_downed", CounterGroup.COUNTERS, 8),
            at(2, T0),
            new CounterReading(3L, T0 + 1000, "boot-b"));
    assertEquals(new CounterDelta(3L, 3.0, "events", RateTag.reboot), d);
  }

  @ParameterizedTest(name = "{0} ({1} bits) at {2} is saturated")
  @CsvSource({
    "symbol_error, 16, 65535",
    "link_downed, 8, 255",
    "local_link_integrity_errors, 4, 15",
    "port_xmit_wait, 32, 4294967295"
  })
  void pmaCounterAtAllOnesIsSaturatedRateUnknown(String name, int width, long value) {
    CounterId id = counter(name, CounterGroup.COUNTERS, width);
    CounterDelta afterGrowth = semantics.derive(id, at(value - 10, T0), at(value, T0 + 1000));
    assertEquals(RateTag.saturated, afterGrowth.tag());
    assertNull(afterGrowth.delta());
    assertNull(afterGrowth.perSecond());
    // already saturated: still unknown, not zero
    CounterDelta stuck = semantics.derive(id, at(value, T0 + 1000), at(value, T0 + 2000));
    assertEquals(RateTag.saturated, stuck.tag());
    assertNull(stuck.perSecond());
    // saturated on the very first sample
    assertEquals(RateTag.saturated, semantics.derive(id, null, at(value, T0)).tag());
  }

  @Test
  void perfquerySaturatedXmitWaitFromIbqueryerrors() {
    // linux-rdma-ibqueryerrors-sx6036-symbolerr-xmitwait-saturated.txt: PortXmitWait 4294967295
    CounterDelta d =
        semantics.derive(
            counter("PortXmitWait", CounterGroup.PERFQUERY, 32),
            at(4_294_000_000L, T0),
            at(4_294_967_295L, T0 + 10_000));
    assertEquals(new CounterDelta(null, null, "ticks", RateTag.saturated), d);
  }

  @Test
  void clearAfterSaturationCountsFromZeroAgain() {
    CounterDelta d =
        semantics.derive(
            counter("symbol_error", CounterGroup.COUNTERS, 16), at(65535, T0), at(12, T0 + 1000));
    assertEquals(new CounterDelta(12L, 12.0, "events", RateTag.clear), d);
  }

  @Test
  void unavailableValueHasNoDelta() {
    CounterDelta d =
        semantics.derive(
            counter("symbol_error", CounterGroup.COUNTERS, 16),
            at(5, T0),
            new CounterReading(null, T0 + 1000, BOOT));
    assertEquals(new CounterDelta(null, null, "events", RateTag.unavailable), d);
  }

  @Test
  void sixtyFourBitValuesCompareUnsigned() {
    // 2^63 - 1 -> 2^63: signed comparison would call this a decrease
    CounterDelta d =
        semantics.derive(
            counter("rx_prio0_pause", CounterGroup.ETHTOOL, 64),
            at(Long.MAX_VALUE, T0),
            at(Long.MIN_VALUE, T0 + 1000));
    assertEquals(new CounterDelta(1L, 1.0, "packets", RateTag.normal), d);
    // 2^64 - 10 -> 2^64 - 4
    CounterDelta high =
        semantics.derive(
            counter("rx_prio0_pause", CounterGroup.ETHTOOL, 64), at(-10L, T0), at(-4L, T0 + 2000));
    assertEquals(new CounterDelta(6L, 3.0, "packets", RateTag.normal), high);
  }

  @Test
  void sixtyFourBitAllOnesIsNotSaturated() {
    CounterDelta d =
        semantics.derive(
            counter("port_xmit_packets", CounterGroup.COUNTERS, 64),
            at(-2L, T0),
            at(-1L, T0 + 1000));
    assertEquals(new CounterDelta(1L, 1.0, "packets", RateTag.normal), d);
  }

  @Test
  void deltaBeyondSignedRangeIsRefusedLoudly() {
    assertThrows(
        ArithmeticException.class,
        () ->
            semantics.derive(
                counter("rx_bytes", CounterGroup.ETHTOOL, 64), at(0, T0), at(-1L, T0 + 1000)));
  }

  @ParameterizedTest(name = "{0} -> {1} x{2}")
  @CsvSource({
    "port_xmit_data, bytes, 4",
    "port_rcv_data, bytes, 4",
    "port_xmit_data_64, bytes, 4",
    "port_rcv_data_64, bytes, 4",
    "PortXmitData, bytes, 4",
    "PortRcvData, bytes, 4",
    "rx_prio0_bytes, bytes, 1",
    "rx_bytes_phy, bytes, 1",
    "rx_prio3_pause_duration, microseconds, 1",
    "tx_global_pause_duration, microseconds, 1",
    "port_xmit_wait, ticks, 1",
    "PortXmitWait, ticks, 1",
    "port_xmit_packets, packets, 1",
    "unicast_rcv_packets, packets, 1",
    "port_multicast_xmit_packets, packets, 1",
    "PortUnicastXmitPkts, packets, 1",
    "np_ecn_marked_roce_packets, packets, 1",
    "rx_prio3_pause, packets, 1",
    "tx_global_pause, packets, 1",
    "rx_pause_ctrl_phy, packets, 1",
    "rx_prio3_pause_transition, events, 1",
    "symbol_error, events, 1",
    "SymbolErrorCounter, events, 1",
    "rnr_nak_retry_err, events, 1",
    "rp_cnp_handled, events, 1",
    "link_down_events_phy, events, 1"
  })
  void unitsAndScale(String name, String unit, long scale) {
    assertEquals(unit, CounterSemantics.unitOf(name));
    assertEquals(scale, CounterSemantics.scaleOf(name));
  }

  @ParameterizedTest
  @CsvSource({
    "prio3_rx_pause_duration, ETHTOOL, microseconds",
    "tx_priority_3_xoff.nic, ETHTOOL, packets",
    "prio0_rx_octets, ETHTOOL, bytes",
    "cnpIgnored, HW_COUNTERS, packets",
    "rx_dropped.nic, ETHTOOL, packets",
    "symbol_error, COUNTERS, events"
  })
  void unitOfAClassifiedCounterComesFromItsKind(String name, CounterGroup group, String unit) {
    assertEquals(unit, CounterSemantics.unitOf(counter(name, group, 64)));
  }

  @Test
  void wrapFractionMustBeAShareOfTheRange() {
    assertThrows(IllegalArgumentException.class, () -> new CounterSemantics(0));
    assertThrows(IllegalArgumentException.class, () -> new CounterSemantics(1.5));
    assertThrows(IllegalArgumentException.class, () -> new CounterSemantics(Double.NaN));
  }
}
