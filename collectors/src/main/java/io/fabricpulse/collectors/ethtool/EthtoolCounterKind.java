package io.fabricpulse.collectors.ethtool;

/**
 * What an ethtool counter means, independent of the driver's name for it [K-ethdoc][INTEL-pfc].
 * Each kind says which raw record carries it: {@code PfcPauseFrames} (fabric.raw.pfc) or {@code
 * EcnMarks} (fabric.raw.ecn).
 */
public enum EthtoolCounterKind {
  /** Per-priority PFC pause frames (mlx5 rx/tx_prio{p}_pause, ice *_priority_{p}_xoff.nic). */
  PFC_PAUSE(Record.PFC),
  /** Time a priority was paused, microseconds (mlx5 rx/tx_prio{p}_pause_duration). */
  PFC_PAUSE_DURATION(Record.PFC),
  /** Xoff to Xon transitions (mlx5 rx_prio{p}_pause_transition, ice *_priority_{p}_xon.nic). */
  PFC_PAUSE_TRANSITION(Record.PFC),
  /** Link-level (802.3x) pause frames (mlx5 rx/tx_global_pause, ice link_xoff_rx/tx.nic). */
  GLOBAL_PAUSE(Record.PFC),
  /** Link-level pause time, microseconds (mlx5 rx/tx_global_pause_duration). */
  GLOBAL_PAUSE_DURATION(Record.PFC),
  /** Link-level Xoff to Xon transitions (mlx5 rx_global_pause_transition, ice link_xon_*.nic). */
  GLOBAL_PAUSE_TRANSITION(Record.PFC),
  /** MAC control pause frames counted by the physical port (mlx5 rx/tx_pause_ctrl_phy). */
  PAUSE_CTRL_PHY(Record.PFC),
  /** PFC stall prevention minor watermark crossed (tx_pause_storm_warning_events) [K-pfcstall]. */
  PAUSE_STORM_WARNING(Record.PFC),
  /** PFC stall prevention stopped pause generation (tx_pause_storm_error_events) [K-pfcstall]. */
  PAUSE_STORM_ERROR(Record.PFC),
  /** Per-priority drops for lack of receive buffer (rx_prio{p}_buf_discard). */
  PRIO_BUF_DISCARD(Record.PFC),
  /** Per-priority drops by congestion control (rx_prio{p}_cong_discard). */
  PRIO_CONG_DISCARD(Record.PFC),
  /** Per-priority discards (rx_prio{p}_discards). */
  PRIO_DISCARDS(Record.PFC),
  /** Per-priority bytes (mlx5 rx/tx_prio{p}_bytes). */
  PRIO_BYTES(Record.PFC),
  /** Per-priority packets (mlx5 rx/tx_prio{p}_packets). */
  PRIO_PACKETS(Record.PFC),
  /** Link down events; "may imply port flapping" (link_down_events_phy). */
  LINK_DOWN(Record.PFC),
  /** Receive buffer above 85% full (rx_buffer_passed_thres_phy). */
  BUFFER_PASSED_THRESHOLD(Record.PFC),
  /** Physical symbol errors (rx_pcs_symbol_err_phy, rx_symbol_err_phy). */
  SYMBOL_ERRORS(Record.PFC),
  /** FEC corrected bits, the numerator of the pre-FEC BER (rx_corrected_bits_phy). */
  CORRECTED_BITS(Record.PFC),
  /** Bits received, the denominator of the BER (rx_bits_phy). */
  RX_BITS(Record.PFC),
  /** Packets the physical port dropped (rx/tx_discards_phy). */
  DISCARDS_PHY(Record.PFC),
  /** Packets dropped for lack of receive WQEs (rx_out_of_buffer). */
  OUT_OF_BUFFER(Record.PFC),
  /** Cable module events (module_unplug, module_high_temp, module_bus_stuck, ...). */
  MODULE_EVENT(Record.PFC),
  /** PCIe stalls, percent of the last second or event seconds (outbound_pci_stalled_*). */
  PCI_STALL(Record.PFC),
  /** PCIe signal-integrity events (rx/tx_pci_signal_integrity). */
  PCI_SIGNAL_INTEGRITY(Record.PFC),
  /** Packets received with ECN Congestion Experienced on a priority (rx_prio{p}_marked). */
  PRIO_ECN_MARKED(Record.ECN);

  /** The raw record a counter of this kind goes into. */
  public enum Record {
    PFC,
    ECN
  }

  private final Record record;

  EthtoolCounterKind(Record record) {
    this.record = record;
  }

  public Record record() {
    return record;
  }
}
