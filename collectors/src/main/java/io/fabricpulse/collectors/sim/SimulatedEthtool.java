package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * The {@code ethtool -S} counters of one simulated mlx5 netdev and the exact text ethtool prints
 * for them: a {@code NIC statistics:} header, then {@code " name: value"} lines (ethtool's {@code "
 * %.*s: %llu"}) in the driver's group order [K-enstats]: software, q counter, IEEE 802.3 ({@code
 * *_phy}), physical, extended Ethernet, per-priority traffic for priorities 0..7, PFC counters only
 * for priorities with PFC enabled, the stall-detect pair, then the per-TC buffer and congestion
 * counters [K-ethdoc].
 *
 * <p>Priority 3 is the lossless RDMA priority (PFC on, ECN marking on); priority 0 carries the
 * little TCP traffic of the node. All counters are 64-bit ({@code MLX5E_READ_CTR64_BE}).
 *
 * <p>An Intel E810 netdev (driver ice) prints ice's names instead (drivers/net/ethernet/intel/ice/
 * ice_ethtool.c; Intel's 800 Series flow control guide): port counters with a {@code .nic} suffix,
 * {@code rx/tx_priority_N_xon.nic} and {@code _xoff.nic} for all 8 priorities, {@code
 * link_xon/xoff_rx/tx.nic}, the port's receive drops {@code rx_dropped.nic}. ice counts pause
 * frames only: it has no pause duration, no stall-detect and no per-priority discard counters.
 */
final class SimulatedEthtool {
  /** The lossless priority RDMA runs on (the usual RoCE deployment: DSCP 26 -> prio 3). */
  static final int LOSSLESS_PRIORITY = 3;

  /** Share of a port's bytes on the lossless priority; the rest is TCP on priority 0. */
  private static final double RDMA_SHARE = 0.97;

  private static final long MICROS_PER_SECOND = 1_000_000;

  final String netdev;
  private final SimulatedPort.Nic nic;
  private final SplittableRandom random;
  private final TreeSet<Integer> pfcPriorities = new TreeSet<>(List.of(LOSSLESS_PRIORITY));
  private final Map<String, Long> counters = new HashMap<>();

  /** What happens to this netdev in one second, set by the simulator before {@link #second}. */
  static final class Second {
    boolean up = true;
    boolean linkWentDown;
    boolean stormOrigin;
    boolean stormVictim;
    boolean stormStarted;
    boolean stormErrorWatermark;
    final TreeSet<Integer> misconfiguredPause = new TreeSet<>();
    boolean losslessDrop;
  }

  SimulatedEthtool(String netdev, long seed) {
    this(netdev, SimulatedPort.Nic.CONNECTX, seed);
  }

  SimulatedEthtool(String netdev, SimulatedPort.Nic nic, long seed) {
    this.netdev = netdev;
    this.nic = nic;
    this.random = new SplittableRandom(seed);
  }

  /** The kernel driver ethtool -i reports for this netdev. */
  String driver() {
    return nic == SimulatedPort.Nic.E810 ? EthtoolRecords.ICE_DRIVER : EthtoolRecords.MLX5_DRIVER;
  }

  /** PFC is (mis)configured on this priority too, so the driver creates its pause counters. */
  void enablePfc(int priority) {
    pfcPriorities.add(priority);
  }

  /** Every counter back to 0, as after a reboot (the driver reloads). */
  void reset() {
    counters.clear();
  }

  /** Accounts one second of the port's traffic (taken from the RDMA port's last second). */
  void second(SimulatedPort port, Second s) {
    if (nic == SimulatedPort.Nic.E810) {
      iceSecond(port, s);
      return;
    }
    if (s.linkWentDown) {
      add("link_down_events_phy", 1);
    }
    long rxRdma = (long) (port.lastRxBytes * RDMA_SHARE);
    long txRdma = (long) (port.lastTxBytes * RDMA_SHARE);
    traffic(0, port.lastRxBytes - rxRdma, port.lastTxBytes - txRdma, 1500);
    traffic(LOSSLESS_PRIORITY, rxRdma, txRdma, port.mtu >= 4200 ? 4200 : port.mtu);
    add("rx_bytes", port.lastRxBytes);
    add("tx_bytes", port.lastTxBytes);
    add("rx_packets", port.lastRxPackets);
    add("tx_packets", port.lastTxPackets);
    add("rx_bytes_phy", port.lastRxBytes);
    add("tx_bytes_phy", port.lastTxBytes);
    add("rx_packets_phy", port.lastRxPackets);
    add("tx_packets_phy", port.lastTxPackets);
    add("rx_prio3_marked", port.lastEcnMarked);
    add("rx_bits_phy", port.lastRxBytes * 8);
    if (s.up) {
      add("rx_corrected_bits_phy", random.nextInt(40));
    }
    pauses(s);
    if (s.losslessDrop) {
      // Lossless priority dropping: no receive buffer for the RoCE queue [K-ethdoc].
      long drops = 200 + random.nextInt(300);
      add("rx_prio3_buf_discard", drops);
      add("rx_out_of_buffer", drops / 2);
      add("rx_discards_phy", drops);
      add("rx_prio3_discards", drops);
    }
  }

  /**
   * One second of an E810: port traffic, XOFF/XON frames (healthy: a few short pauses on the
   * lossless priority, each ended by an XON; misconfigured priorities: thousands of XOFF frames),
   * and receive drops when the lossless priority drops.
   */
  private void iceSecond(SimulatedPort port, Second s) {
    add("rx_bytes.nic", port.lastRxBytes);
    add("tx_bytes.nic", port.lastTxBytes);
    add("rx_unicast.nic", port.lastRxPackets);
    add("tx_unicast.nic", port.lastTxPackets);
    if (!s.up) {
      return;
    }
    long rxXoff = random.nextInt(30);
    long txXoff = random.nextInt(20);
    if (s.stormVictim) {
      rxXoff = 40_000 + random.nextInt(10_000);
    }
    if (s.stormOrigin) {
      txXoff = 60_000 + random.nextInt(20_000);
    }
    icePause(LOSSLESS_PRIORITY, rxXoff, txXoff);
    for (int prio : s.misconfiguredPause) {
      icePause(prio, 2_000 + random.nextInt(1_000), random.nextInt(5));
    }
    if (s.losslessDrop) {
      add("rx_dropped.nic", 200 + random.nextInt(300));
    }
  }

  /** XOFF frames on one priority, each pause ended by an XON (our reading of the guide). */
  private void icePause(int prio, long rxXoff, long txXoff) {
    add("rx_priority_" + prio + "_xoff.nic", rxXoff);
    add("rx_priority_" + prio + "_xon.nic", rxXoff);
    add("tx_priority_" + prio + "_xoff.nic", txXoff);
    add("tx_priority_" + prio + "_xon.nic", txXoff);
  }

  private void traffic(int prio, long rxBytes, long txBytes, int frameBytes) {
    add("rx_prio" + prio + "_bytes", rxBytes);
    add("tx_prio" + prio + "_bytes", txBytes);
    add("rx_prio" + prio + "_packets", rxBytes / frameBytes + (rxBytes > 0 ? 1 : 0));
    add("tx_prio" + prio + "_packets", txBytes / frameBytes + (txBytes > 0 ? 1 : 0));
  }

  /**
   * Pause frames of one second. Healthy: a few short pauses on the lossless priority (well under 1%
   * of the second). Storm origin: the NIC cannot drain its receive queue and keeps sending XOFF, tx
   * pause far above rx pause [MS16]. Storm victim: receives pauses for at least 90% of every
   * second, so its transmit is stalled [SONIC-pfcwd].
   */
  private void pauses(Second s) {
    if (!s.up) {
      return;
    }
    long rxPause = random.nextInt(30);
    long rxDuration = rxPause * (5 + random.nextInt(40));
    long txPause = random.nextInt(20);
    long txDuration = txPause * (5 + random.nextInt(40));
    if (s.stormVictim) {
      rxPause = 40_000 + random.nextInt(10_000);
      rxDuration = 920_000 + random.nextInt(70_000);
    }
    if (s.stormOrigin) {
      txPause = 60_000 + random.nextInt(20_000);
      txDuration = 950_000 + random.nextInt(45_000);
      if (s.stormStarted) {
        // Stall detect crossed the minor watermark [K-pfcstall].
        add("tx_pause_storm_warning_events", 1);
      }
      if (s.stormErrorWatermark) {
        add("tx_pause_storm_error_events", 1);
      }
    }
    addPause(
        LOSSLESS_PRIORITY,
        rxPause,
        Math.min(rxDuration, MICROS_PER_SECOND),
        txPause,
        Math.min(txDuration, MICROS_PER_SECOND));
    for (int prio : s.misconfiguredPause) {
      long frames = 2_000 + random.nextInt(1_000);
      addPause(prio, frames, frames * (20 + random.nextInt(20)), random.nextInt(5), 0);
    }
  }

  private void addPause(int prio, long rx, long rxMicros, long tx, long txMicros) {
    String p = "prio" + prio;
    add("rx_" + p + "_pause", rx);
    add("rx_" + p + "_pause_duration", rxMicros);
    add("rx_" + p + "_pause_transition", rx);
    add("tx_" + p + "_pause", tx);
    add("tx_" + p + "_pause_duration", txMicros);
    add("rx_pause_ctrl_phy", rx);
    add("tx_pause_ctrl_phy", tx);
  }

  private void add(String name, long delta) {
    counters.merge(name, delta, Long::sum);
  }

  long value(String name) {
    return counters.getOrDefault(name, 0L);
  }

  /** The complete {@code ethtool -S <netdev>} output. */
  String text() {
    StringBuilder out = new StringBuilder("NIC statistics:\n");
    for (String name : names()) {
      out.append("     ").append(name).append(": ").append(Long.toUnsignedString(value(name)));
      out.append('\n');
    }
    return out.toString();
  }

  private List<String> names() {
    if (nic == SimulatedPort.Nic.E810) {
      return iceNames();
    }
    List<String> names = new ArrayList<>();
    names.addAll(List.of("rx_packets", "rx_bytes", "tx_packets", "tx_bytes"));
    names.add("rx_out_of_buffer");
    names.addAll(
        List.of(
            "rx_packets_phy",
            "rx_bytes_phy",
            "tx_packets_phy",
            "tx_bytes_phy",
            "rx_discards_phy",
            "tx_discards_phy",
            "rx_pause_ctrl_phy",
            "tx_pause_ctrl_phy",
            "rx_pcs_symbol_err_phy",
            "rx_corrected_bits_phy",
            "rx_bits_phy",
            "link_down_events_phy",
            "rx_buffer_passed_thres_phy"));
    for (int prio = 0; prio < 8; prio++) {
      for (String format :
          List.of(
              "rx_prio%d_bytes",
              "rx_prio%d_packets", "rx_prio%d_discards", "tx_prio%d_bytes", "tx_prio%d_packets")) {
        names.add(String.format(format, prio));
      }
    }
    for (int prio : pfcPriorities) {
      String p = "prio" + prio;
      names.add("rx_" + p + "_pause");
      names.add("rx_" + p + "_pause_duration");
      names.add("tx_" + p + "_pause");
      names.add("tx_" + p + "_pause_duration");
      names.add("rx_" + p + "_pause_transition");
    }
    names.add("tx_pause_storm_warning_events");
    names.add("tx_pause_storm_error_events");
    for (int prio = 0; prio < 8; prio++) {
      names.add("rx_prio" + prio + "_buf_discard");
    }
    for (int prio = 0; prio < 8; prio++) {
      names.add("rx_prio" + prio + "_cong_discard");
      names.add("rx_prio" + prio + "_marked");
    }
    return names;
  }

  /** ice's order: port (.nic) statistics, link flow control, then the 8 priorities. */
  private static List<String> iceNames() {
    List<String> names =
        new ArrayList<>(
            List.of(
                "rx_unicast.nic",
                "tx_unicast.nic",
                "rx_bytes.nic",
                "tx_bytes.nic",
                "link_xon_rx.nic",
                "link_xoff_rx.nic",
                "link_xon_tx.nic",
                "link_xoff_tx.nic",
                "rx_dropped.nic"));
    for (String dir : List.of("tx", "rx")) {
      for (int prio = 0; prio < 8; prio++) {
        names.add(dir + "_priority_" + prio + "_xon.nic");
        names.add(dir + "_priority_" + prio + "_xoff.nic");
      }
    }
    return names;
  }
}
