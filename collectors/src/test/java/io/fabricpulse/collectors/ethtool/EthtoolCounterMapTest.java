package io.fabricpulse.collectors.ethtool;

import static io.fabricpulse.collectors.ethtool.EthtoolCounterKind.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.fabricpulse.collectors.ethtool.EthtoolCounterClass.Direction;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EthtoolCounterMapTest {

  private static Optional<EthtoolCounterClass> of(
      EthtoolCounterKind kind, Direction direction, Integer priority) {
    return Optional.of(new EthtoolCounterClass(kind, direction, priority));
  }

  @Test
  void modernMlx5NamesCarryDirectionAndPriority() {
    EthtoolCounterMap mlx5 = EthtoolCounterMap.MLX5;
    assertEquals(of(PFC_PAUSE, Direction.RX, 3), mlx5.classify("rx_prio3_pause"));
    assertEquals(of(PFC_PAUSE, Direction.TX, 7), mlx5.classify("tx_prio7_pause"));
    assertEquals(of(PFC_PAUSE_DURATION, Direction.TX, 3), mlx5.classify("tx_prio3_pause_duration"));
    assertEquals(
        of(PFC_PAUSE_TRANSITION, Direction.RX, 0), mlx5.classify("rx_prio0_pause_transition"));
    assertEquals(of(GLOBAL_PAUSE, Direction.TX, null), mlx5.classify("tx_global_pause"));
    assertEquals(
        of(GLOBAL_PAUSE_DURATION, Direction.RX, null), mlx5.classify("rx_global_pause_duration"));
    assertEquals(of(PAUSE_CTRL_PHY, Direction.RX, null), mlx5.classify("rx_pause_ctrl_phy"));
    assertEquals(
        of(PAUSE_STORM_WARNING, Direction.TX, null),
        mlx5.classify("tx_pause_storm_warning_events"));
    assertEquals(
        of(PAUSE_STORM_ERROR, Direction.TX, null), mlx5.classify("tx_pause_storm_error_events"));
    assertEquals(of(PRIO_BUF_DISCARD, Direction.RX, 3), mlx5.classify("rx_prio3_buf_discard"));
    assertEquals(of(PRIO_CONG_DISCARD, Direction.RX, 3), mlx5.classify("rx_prio3_cong_discard"));
    assertEquals(of(PRIO_DISCARDS, Direction.RX, 5), mlx5.classify("rx_prio5_discards"));
    assertEquals(of(PRIO_ECN_MARKED, Direction.RX, 3), mlx5.classify("rx_prio3_marked"));
    assertEquals(of(PRIO_BYTES, Direction.RX, 0), mlx5.classify("rx_prio0_bytes"));
    assertEquals(of(PRIO_PACKETS, Direction.TX, 6), mlx5.classify("tx_prio6_packets"));
    assertEquals(of(LINK_DOWN, Direction.NONE, null), mlx5.classify("link_down_events_phy"));
    assertEquals(
        of(BUFFER_PASSED_THRESHOLD, Direction.RX, null),
        mlx5.classify("rx_buffer_passed_thres_phy"));
    assertEquals(of(SYMBOL_ERRORS, Direction.RX, null), mlx5.classify("rx_pcs_symbol_err_phy"));
    assertEquals(of(CORRECTED_BITS, Direction.RX, null), mlx5.classify("rx_corrected_bits_phy"));
    assertEquals(of(RX_BITS, Direction.RX, null), mlx5.classify("rx_bits_phy"));
    assertEquals(of(DISCARDS_PHY, Direction.RX, null), mlx5.classify("rx_discards_phy"));
    assertEquals(of(OUT_OF_BUFFER, Direction.RX, null), mlx5.classify("rx_out_of_buffer"));
    assertEquals(of(MODULE_EVENT, Direction.NONE, null), mlx5.classify("module_high_temp"));
    assertEquals(
        of(PCI_STALL, Direction.NONE, null), mlx5.classify("outbound_pci_stalled_wr_events"));
    assertEquals(
        of(PCI_SIGNAL_INTEGRITY, Direction.TX, null), mlx5.classify("tx_pci_signal_integrity"));
  }

  @Test
  void legacyMlx5NamesMapToTheSameMeaning() {
    EthtoolCounterMap mlx5 = EthtoolCounterMap.MLX5;
    assertEquals(mlx5.classify("rx_prio3_pause"), mlx5.classify("prio3_rx_pause"));
    assertEquals(
        mlx5.classify("tx_prio3_pause_duration"), mlx5.classify("prio3_tx_pause_duration"));
    assertEquals(
        mlx5.classify("rx_prio3_pause_transition"), mlx5.classify("prio3_rx_pause_transition"));
    assertEquals(mlx5.classify("rx_prio0_bytes"), mlx5.classify("prio0_rx_octets"));
    assertEquals(mlx5.classify("tx_prio0_packets"), mlx5.classify("prio0_tx_frames"));
    assertEquals(mlx5.classify("tx_pause_ctrl_phy"), mlx5.classify("pause_ctrl_tx"));
    assertEquals(mlx5.classify("rx_discards_phy"), mlx5.classify("in_discards"));
  }

  @Test
  void iceXoffIsPauseAndXonIsTransition() {
    EthtoolCounterMap ice = EthtoolCounterMap.INTEL_ICE;
    assertEquals(of(PFC_PAUSE, Direction.TX, 0), ice.classify("tx_priority_0_xoff.nic"));
    assertEquals(of(PFC_PAUSE_TRANSITION, Direction.RX, 3), ice.classify("rx_priority_3_xon.nic"));
    assertEquals(of(GLOBAL_PAUSE, Direction.RX, null), ice.classify("link_xoff_rx.nic"));
    assertEquals(Optional.empty(), ice.classify("rx_prio3_pause"));
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
      assertEquals(Optional.empty(), EthtoolCounterMap.ANY.classify(name), name);
    }
  }

  @Test
  void driverSelectsTheMap() {
    assertSame(EthtoolCounterMap.MLX5, EthtoolCounterMap.forDriver("mlx5_core"));
    assertSame(EthtoolCounterMap.INTEL_ICE, EthtoolCounterMap.forDriver("ice"));
    assertSame(EthtoolCounterMap.ANY, EthtoolCounterMap.forDriver("bnxt_en"));
    assertSame(EthtoolCounterMap.ANY, EthtoolCounterMap.forDriver(null));
  }
}
