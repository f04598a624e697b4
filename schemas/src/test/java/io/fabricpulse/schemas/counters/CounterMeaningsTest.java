package io.fabricpulse.schemas.counters;

import static io.fabricpulse.avro.CounterKind.*;
import static io.fabricpulse.schemas.counters.CounterMeanings.unitOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CounterMeaningsTest {

  private static Optional<CounterMeaning> of(
      CounterKind kind, CounterDirection direction, Integer priority) {
    return Optional.of(new CounterMeaning(kind, direction, priority, unitOf(kind)));
  }

  private static Optional<CounterMeaning> classify(String name) {
    return CounterMeanings.of(name);
  }

  @Test
  void modernMlx5NamesCarryDirectionAndPriority() {
    assertEquals(of(PFC_PAUSE, CounterDirection.RX, 3), classify("rx_prio3_pause"));
    assertEquals(of(PFC_PAUSE, CounterDirection.TX, 7), classify("tx_prio7_pause"));
    assertEquals(
        of(PFC_PAUSE_DURATION, CounterDirection.TX, 3), classify("tx_prio3_pause_duration"));
    assertEquals(
        of(PFC_PAUSE_TRANSITION, CounterDirection.RX, 0), classify("rx_prio0_pause_transition"));
    assertEquals(of(GLOBAL_PAUSE, CounterDirection.TX, null), classify("tx_global_pause"));
    assertEquals(
        of(GLOBAL_PAUSE_DURATION, CounterDirection.RX, null), classify("rx_global_pause_duration"));
    assertEquals(of(PAUSE_CTRL_PHY, CounterDirection.RX, null), classify("rx_pause_ctrl_phy"));
    assertEquals(
        of(PAUSE_STORM_WARNING, CounterDirection.TX, null),
        classify("tx_pause_storm_warning_events"));
    assertEquals(
        of(PAUSE_STORM_ERROR, CounterDirection.TX, null), classify("tx_pause_storm_error_events"));
    assertEquals(of(PRIO_BUF_DISCARD, CounterDirection.RX, 3), classify("rx_prio3_buf_discard"));
    assertEquals(of(PRIO_CONG_DISCARD, CounterDirection.RX, 3), classify("rx_prio3_cong_discard"));
    assertEquals(of(PRIO_DISCARDS, CounterDirection.RX, 5), classify("rx_prio5_discards"));
    assertEquals(of(PRIO_ECN_MARKED, CounterDirection.RX, 3), classify("rx_prio3_marked"));
    assertEquals(of(PRIO_BYTES, CounterDirection.RX, 0), classify("rx_prio0_bytes"));
    assertEquals(of(PRIO_PACKETS, CounterDirection.TX, 6), classify("tx_prio6_packets"));
    assertEquals(of(LINK_DOWN, null, null), classify("link_down_events_phy"));
    assertEquals(
        of(BUFFER_PASSED_THRESHOLD, CounterDirection.RX, null),
        classify("rx_buffer_passed_thres_phy"));
    assertEquals(of(SYMBOL_ERRORS, CounterDirection.RX, null), classify("rx_pcs_symbol_err_phy"));
    assertEquals(of(CORRECTED_BITS, CounterDirection.RX, null), classify("rx_corrected_bits_phy"));
    assertEquals(of(RX_BITS, CounterDirection.RX, null), classify("rx_bits_phy"));
    assertEquals(of(DISCARDS_PHY, CounterDirection.RX, null), classify("rx_discards_phy"));
    assertEquals(of(OUT_OF_BUFFER, CounterDirection.RX, null), classify("rx_out_of_buffer"));
    assertEquals(of(MODULE_EVENT, null, null), classify("module_high_temp"));
    assertEquals(of(PCI_STALL, null, null), classify("outbound_pci_stalled_wr_events"));
    assertEquals(
        of(PCI_SIGNAL_INTEGRITY, CounterDirection.TX, null), classify("tx_pci_signal_integrity"));
  }

  @Test
  void legacyMlx5NamesMapToTheSameMeaning() {
    assertEquals(classify("rx_prio3_pause"), classify("prio3_rx_pause"));
    assertEquals(classify("tx_prio3_pause_duration"), classify("prio3_tx_pause_duration"));
    assertEquals(classify("rx_prio3_pause_transition"), classify("prio3_rx_pause_transition"));
    assertEquals(classify("rx_prio0_bytes"), classify("prio0_rx_octets"));
    assertEquals(classify("tx_prio0_packets"), classify("prio0_tx_frames"));
    assertEquals(classify("tx_pause_ctrl_phy"), classify("pause_ctrl_tx"));
    assertEquals(classify("rx_discards_phy"), classify("in_discards"));
  }

  @Test
  void iceXoffIsPauseAndXonIsTransition() {
    assertEquals(of(PFC_PAUSE, CounterDirection.TX, 0), classify("tx_priority_0_xoff.nic"));
    assertEquals(
        of(PFC_PAUSE_TRANSITION, CounterDirection.RX, 3), classify("rx_priority_3_xon.nic"));
    assertEquals(of(GLOBAL_PAUSE, CounterDirection.RX, null), classify("link_xoff_rx.nic"));
  }

  @Test
  void ordinaryTrafficAndQueueCountersAreNotTracked() {
    for (String name :
        new String[] {
          "rx_packets",
          "rx0_bytes",
          "tx15_xmit_more",
          "rx_vport_unicast_bytes",
          "rx_prio8_pause",
          "rx_prio3_pause_x",
          "rx_unicast"
        }) {
      assertEquals(Optional.empty(), classify(name), name);
    }
  }

  @Test
  void iceDropsAndIrdmaCongestionCountersHaveTheMlx5Meaning() {
    assertEquals(classify("rx_discards_phy"), classify("rx_dropped.nic"));
    assertEquals(classify("np_ecn_marked_roce_packets"), classify("RxECNMrkd"));
    assertEquals(classify("np_cnp_sent"), classify("cnpSent"));
    assertEquals(classify("rp_cnp_handled"), classify("cnpHandled"));
    assertEquals(classify("rp_cnp_ignored"), classify("cnpIgnored"));
    assertEquals(of(CNP_IGNORED, CounterDirection.RX, null), classify("rp_cnp_ignored"));
    assertEquals(of(OUT_OF_BUFFER, CounterDirection.RX, null), classify("out_of_buffer"));
  }

  @Test
  void unitsComeFromTheKind() {
    assertEquals("microseconds", classify("prio3_rx_pause_duration").orElseThrow().unit());
    assertEquals("packets", classify("tx_priority_3_xoff.nic").orElseThrow().unit());
    assertEquals("bytes", classify("prio0_rx_octets").orElseThrow().unit());
    assertEquals("events", classify("tx_pause_storm_error_events").orElseThrow().unit());
  }

  @Test
  void answersAreCachedPerName() {
    assertSame(classify("rx_prio3_pause"), classify("rx_prio3_pause"));
    assertSame(classify("rx_unicast"), classify("rx_unicast"));
  }
}
