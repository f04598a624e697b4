package io.fabricpulse.collectors.ethtool;

import static io.fabricpulse.collectors.testing.Samples.read;
import static io.fabricpulse.collectors.testing.Samples.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EthtoolRecordsTest {
  private static final Instant T = Instant.parse("2025-03-01T10:00:00Z");
  private final SampleContext ctx = SampleContext.of(new NodeIdentity("c1", "gpu017", "boot-a"), T);

  private static List<EthtoolStat> stats(String text) {
    return new EthtoolStatsParser().parse("test", text).records();
  }

  private static Map<String, Long> byName(List<Counter> counters) {
    return counters.stream().collect(Collectors.toMap(Counter::getName, Counter::getValue));
  }

  @Test
  void pfcRecordOfStormFixtureCarriesPriority3PausesAndStormEvents() throws Exception {
    List<EthtoolStat> stats = stats(resource("ethtool/mlx5-pfc-storm-prio3-synthetic.txt"));

    PfcPauseFrames pfc =
        EthtoolRecords.pfcPauseFrames(ctx, "ens5f0np0", "mlx5_core", "mlx5_0", stats);

    assertEquals("c1", pfc.getCluster());
    assertEquals("gpu017", pfc.getNode());
    assertEquals("boot-a", pfc.getBootId());
    assertEquals(0L, pfc.getSeq());
    assertEquals(T, pfc.getTime());
    assertEquals("ens5f0np0", pfc.getNetdev());
    assertEquals("mlx5_core", pfc.getDriver());
    assertEquals("mlx5_0", pfc.getDevice());
    Map<String, Long> v = byName(pfc.getCounters());
    assertEquals(41927L, v.get("rx_prio3_pause"));
    assertEquals(1290418L, v.get("tx_prio3_pause"));
    assertEquals(91400000L, v.get("tx_prio3_pause_duration"));
    assertEquals(20964L, v.get("rx_prio3_pause_transition"));
    assertEquals(14L, v.get("tx_pause_storm_warning_events"));
    assertEquals(1L, v.get("tx_pause_storm_error_events"));
    assertEquals(77L, v.get("rx_buffer_passed_thres_phy"));
    assertEquals(1207L, v.get("rx_out_of_buffer"));
    assertEquals(5L, v.get("rx_prio3_discards"));
    assertEquals(40933871204512L, v.get("rx_prio3_bytes"));
    assertFalse(v.containsKey("rx_prio3_marked"), "ECN marks travel in EcnMarks");
    assertFalse(v.containsKey("rx_packets"));
    assertFalse(v.containsKey("rx0_packets"));
    assertEquals(30, pfc.getCounters().size());
    assertTrue(
        pfc.getCounters().stream()
            .allMatch(c -> c.getGroup() == CounterGroup.ETHTOOL && c.getWidth() == 64));
    // Valid against its schema: encodes and decodes unchanged.
    ByteBuffer bytes = PfcPauseFrames.getEncoder().encode(pfc);
    assertEquals(pfc, PfcPauseFrames.getDecoder().decode(bytes));
  }

  @Test
  void ecnRecordMergesEthtoolMarksWithHwCongestionCounters() throws Exception {
    List<EthtoolStat> stats = stats(resource("ethtool/mlx5-pfc-storm-prio3-synthetic.txt"));
    Map<String, Long> hw =
        Map.of(
            "np_ecn_marked_roce_packets", 88211L,
            "np_cnp_sent", 70112L,
            "rp_cnp_handled", 65002L,
            "rp_cnp_ignored", 3L,
            "out_of_sequence", 12L);

    EcnMarks ecn = EthtoolRecords.ecnMarks(ctx, "ens5f0np0", "mlx5_core", "mlx5_0", 1, stats, hw);

    assertEquals(0L, ecn.getSeq());
    assertEquals("mlx5_0", ecn.getDevice());
    assertEquals(1, ecn.getPort());
    assertEquals("ens5f0np0", ecn.getNetdev());
    assertEquals(
        List.of(
            new Counter("rx_prio3_marked", CounterGroup.ETHTOOL, 9147732L, 64, null),
            new Counter("np_ecn_marked_roce_packets", CounterGroup.HW_COUNTERS, 88211L, 64, null),
            new Counter("np_cnp_sent", CounterGroup.HW_COUNTERS, 70112L, 64, null),
            new Counter("rp_cnp_handled", CounterGroup.HW_COUNTERS, 65002L, 64, null),
            new Counter("rp_cnp_ignored", CounterGroup.HW_COUNTERS, 3L, 64, null)),
        ecn.getCounters());
    assertEquals(ecn, EcnMarks.getDecoder().decode(EcnMarks.getEncoder().encode(ecn)));
  }

  @Test
  void ethqConnectX4DumpYieldsEveryPausePhyAndPriorityCounter() {
    List<EthtoolStat> stats = stats(read("ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"));

    PfcPauseFrames pfc = EthtoolRecords.pfcPauseFrames(ctx, "enp1s0f0", "mlx5_core", null, stats);

    Map<String, Long> v = byName(pfc.getCounters());
    // 12 phy/pci/buffer counters, 4 PCIe stall, 32 per-priority traffic, 5 global pause, 4 module.
    assertEquals(57, v.size());
    assertEquals(34L, v.get("tx_pci_signal_integrity"));
    assertEquals(0L, v.get("rx_discards_phy"));
    assertEquals(2202570777997L, v.get("rx_prio0_bytes"));
    assertEquals(845715962L, v.get("rx_prio0_packets"));
    assertEquals(0L, v.get("rx_global_pause"));
    assertEquals(0L, v.get("rx_pause_ctrl_phy"));
    assertEquals(0L, v.get("link_down_events_phy"));
    assertEquals(0L, v.get("module_bad_shorted"));
    assertFalse(v.containsKey("rx_prio0_pause"), "PFC was not enabled on this port");
    assertNull(pfc.getDevice());
    assertTrue(EthtoolRecords.ecnCounters(stats, "mlx5_core", Map.of()).isEmpty());
  }

  @Test
  void bytepsPriorityTrafficIsCarried() {
    List<EthtoolStat> stats =
        stats(read("ethtool/byteps-179-mlx5-prio-counters-before-benchmark.txt"));

    PfcPauseFrames pfc = EthtoolRecords.pfcPauseFrames(ctx, "enp178s0f0", "mlx5_core", null, stats);

    assertEquals(32, pfc.getCounters().size());
    assertEquals(88034564921216L, byName(pfc.getCounters()).get("rx_prio0_bytes"));
    assertEquals(13906677385186L, byName(pfc.getCounters()).get("tx_prio0_bytes"));
  }

  @Test
  void legacyMlx5NamesAreKeptRawAndSelected() {
    List<EthtoolStat> stats = stats(resource("ethtool/mlx5-legacy-names-pfc-prio3-synthetic.txt"));

    PfcPauseFrames pfc = EthtoolRecords.pfcPauseFrames(ctx, "eth2", "mlx5_core", null, stats);

    Map<String, Long> v = byName(pfc.getCounters());
    assertEquals(17, v.size());
    assertEquals(4417L, v.get("prio3_rx_pause"));
    assertEquals(88340L, v.get("prio3_rx_pause_duration"));
    assertEquals(2208L, v.get("prio3_rx_pause_transition"));
    assertEquals(34L, v.get("pause_ctrl_tx"));
    assertEquals(9L, v.get("in_discards"));
    assertFalse(v.containsKey("rx_packets"));
  }

  @Test
  void iceDriverPriorityXoffAndXonAreCarried() {
    List<EthtoolStat> stats = stats(resource("ethtool/ice-e810-pfc-prio3-synthetic.txt"));

    PfcPauseFrames pfc = EthtoolRecords.pfcPauseFrames(ctx, "ens801f0", "ice", null, stats);

    Map<String, Long> v = byName(pfc.getCounters());
    assertEquals(12, v.size());
    assertEquals(6434L, v.get("tx_priority_0_xoff.nic"));
    assertEquals(1L, v.get("tx_priority_0_xon.nic"));
    assertEquals(52211L, v.get("tx_priority_3_xoff.nic"));
    assertEquals(0L, v.get("link_xoff_rx.nic"));
    assertFalse(v.containsKey("rx_unicast"));
    assertEquals("ice", pfc.getDriver());
  }

  @Test
  void eachRecordTakesTheNextSequenceNumber() {
    List<EthtoolStat> stats = stats(resource("ethtool/mlx5-pfc-storm-prio3-synthetic.txt"));

    PfcPauseFrames first = EthtoolRecords.pfcPauseFrames(ctx, "a", "mlx5_core", null, stats);
    EcnMarks second = EthtoolRecords.ecnMarks(ctx, "a", "mlx5_core", null, null, stats);

    assertEquals(0L, first.getSeq());
    assertEquals(1L, second.getSeq());
    assertEquals(1, second.getCounters().size());
  }
}
