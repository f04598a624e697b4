package io.fabricpulse.collectors.sim;

import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.collectors.sysfs.CounterWidths;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Counter state of one simulated HCA port, with the kernel's arithmetic: PMA counters below 64 bits
 * stop at all ones [IBbook], mlx5 q counters wrap at 2^32 [K-mlx5cnt], data counters are octets/4
 * [PQ] and 64-bit (extended PMA set, so unicast_* and multicast_* exist too) [K-sysfs].
 */
final class SimulatedPort {

  /** The extended PMA set of drivers/infiniband/core/sysfs.c (pma_attrs_ext). */
  static final List<String> PMA_COUNTERS =
      List.of(
          "VL15_dropped",
          "excessive_buffer_overrun_errors",
          "link_downed",
          "link_error_recovery",
          "local_link_integrity_errors",
          "multicast_rcv_packets",
          "multicast_xmit_packets",
          "port_rcv_constraint_errors",
          "port_rcv_data",
          "port_rcv_errors",
          "port_rcv_packets",
          "port_rcv_remote_physical_errors",
          "port_rcv_switch_relay_errors",
          "port_xmit_constraint_errors",
          "port_xmit_data",
          "port_xmit_discards",
          "port_xmit_packets",
          "port_xmit_wait",
          "symbol_error",
          "unicast_rcv_packets",
          "unicast_xmit_packets");

  /** mlx5 q counters (32-bit, wrapping) [K-mlx5cnt]. */
  static final List<String> Q_COUNTERS =
      List.of(
          "duplicate_request",
          "implied_nak_seq_err",
          "local_ack_timeout_err",
          "out_of_buffer",
          "out_of_sequence",
          "packet_seq_err",
          "req_cqe_error",
          "req_cqe_flush_error",
          "req_remote_access_errors",
          "req_remote_invalid_request",
          "resp_cqe_error",
          "resp_cqe_flush_error",
          "resp_local_length_error",
          "resp_remote_access_errors",
          "rnr_nak_retry_err",
          "roce_adp_retrans",
          "roce_adp_retrans_to",
          "roce_slow_restart",
          "roce_slow_restart_cnps",
          "roce_slow_restart_trans",
          "rx_atomic_requests",
          "rx_dct_connect",
          "rx_read_requests",
          "rx_write_requests");

  /** mlx5 congestion counters, 64-bit, present when cc_query_allowed (RoCE here) [K-mlx5cc]. */
  static final List<String> CC_COUNTERS =
      List.of("np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored");

  /**
   * Intel irdma's names of the same congestion counters (drivers/infiniband/hw/irdma/verbs.c
   * irdma_hw_stat_names), in the order of {@link #CC_COUNTERS}: CNPs sent, ECN-marked packets, CNPs
   * handled, CNPs ignored. The driver accumulates them into 64-bit values.
   */
  static final List<String> IRDMA_CC_COUNTERS =
      List.of("cnpSent", "RxECNMrkd", "cnpHandled", "cnpIgnored");

  /** Which NIC the port is: its driver decides the counter names. */
  enum Nic {
    /** NVIDIA ConnectX (mlx5_core / mlx5_ib). */
    CONNECTX,
    /** Intel E810 (ice netdev, irdma RDMA device). */
    E810
  }

  static final int IB_MTU_BYTES = 4096;
  static final int ROCE_PAYLOAD_BYTES = 4096; // RoCE path MTU 4096 inside the 9000-byte netdev MTU

  final String device;
  final int port;
  final String netdev;
  final String nominalRate;
  final boolean roce;
  final Nic nic;
  final SplittableRandom random;
  final double txUtilization;
  final double rxUtilization;

  final Map<String, Long> pma = new TreeMap<>();
  final Map<String, Long> hw = new TreeMap<>();
  boolean up = true;
  String rate;

  /** Bytes and ECN-marked packets of the last simulated second (0 when the port was down). */
  long lastTxBytes;

  long lastRxBytes;
  long lastTxPackets;
  long lastRxPackets;
  long lastEcnMarked;

  /** ethtool counters of the netdev; null for InfiniBand ports. */
  SimulatedEthtool ethtool;

  /** Netdev MTU (RoCE ports): 9000 unless an MTU_MISMATCH fault says otherwise. */
  int mtu = 9000;

  SimulatedPort(
      String device, int port, String netdev, String nominalRate, boolean roce, long seed) {
    this(device, port, netdev, nominalRate, roce, Nic.CONNECTX, seed);
  }

  SimulatedPort(
      String device,
      int port,
      String netdev,
      String nominalRate,
      boolean roce,
      Nic nic,
      long seed) {
    this.device = device;
    this.nic = nic;
    this.port = port;
    this.netdev = netdev;
    this.nominalRate = nominalRate;
    this.rate = nominalRate;
    this.roce = roce;
    this.random = new SplittableRandom(seed);
    this.txUtilization = 0.2 + 0.6 * random.nextDouble();
    this.rxUtilization = 0.2 + 0.6 * random.nextDouble();
    resetAll();
    // A node that has been up for a while: traffic counters far from zero, and the 32-bit q
    // counters anywhere in their range so some of them wrap during a run.
    pma.put("port_xmit_data", random.nextLong(1L << 42));
    pma.put("port_rcv_data", random.nextLong(1L << 42));
    pma.put("port_xmit_packets", random.nextLong(1L << 32));
    pma.put("port_rcv_packets", random.nextLong(1L << 32));
    pma.put("unicast_xmit_packets", pma.get("port_xmit_packets"));
    pma.put("unicast_rcv_packets", pma.get("port_rcv_packets"));
    pma.put("port_xmit_wait", random.nextLong(1L << 28));
    if (nic == Nic.CONNECTX) {
      hw.put("rx_write_requests", random.nextLong(1L << 32));
      hw.put("rx_read_requests", random.nextLong(1L << 32));
    }
  }

  /** This NIC's name of the mlx5 congestion counter {@code mlx5Name} (one of CC_COUNTERS). */
  String ccName(String mlx5Name) {
    return nic == Nic.E810 ? IRDMA_CC_COUNTERS.get(CC_COUNTERS.indexOf(mlx5Name)) : mlx5Name;
  }

  /** Every counter back to zero, as after a reboot. */
  void resetAll() {
    clearPma();
    if (ethtool != null) {
      ethtool.reset();
    }
    if (nic == Nic.CONNECTX) {
      for (String name : Q_COUNTERS) {
        hw.put(name, 0L);
      }
    }
    if (roce) {
      for (String name : CC_COUNTERS) {
        hw.put(ccName(name), 0L);
      }
    }
  }

  /** PMA counters to zero, hw_counters untouched: what perfquery -R and OpenSM PerfMgr do. */
  void clearPma() {
    for (String name : PMA_COUNTERS) {
      pma.put(name, 0L);
    }
  }

  /** Adds to a PMA counter, stopping at all ones for widths below 64 [IBbook]. */
  void addPma(String name, long delta) {
    int width = CounterWidths.widthOf(CounterGroup.COUNTERS, name, true, null);
    long sum = pma.get(name) + delta;
    if (width < 64) {
      sum = Math.min(sum, (1L << width) - 1);
    }
    pma.put(name, sum);
  }

  /**
   * Adds to an hw counter; 32-bit ones are rendered modulo 2^32, so they wrap. A counter this NIC
   * does not have (the mlx5 q counters on an E810) stays absent.
   */
  void addHw(String name, long delta) {
    hw.computeIfPresent(name, (n, v) -> v + delta);
  }

  /** Nothing moved this second (port down). */
  void idle() {
    lastTxBytes = 0;
    lastRxBytes = 0;
    lastTxPackets = 0;
    lastRxPackets = 0;
    lastEcnMarked = 0;
  }

  /** One simulated second of traffic at the current rate. */
  void traffic(double rateGbps) {
    traffic(rateGbps, 1, 1, false);
  }

  /**
   * One simulated second of traffic.
   *
   * @param txFactor share of the normal transmit load that gets out (near 0 while paused)
   * @param rxFactor share of the normal receive load that gets in (near 0 while stalled)
   * @param cnpIgnored the reaction point ignores CNPs (DCQCN off): rp_cnp_ignored instead of
   *     rp_cnp_handled [NE-ib]
   */
  void traffic(double rateGbps, double txFactor, double rxFactor, boolean cnpIgnored) {
    double bytesPerSecondAtLineRate = rateGbps * 1e9 / 8;
    long txBytes = (long) (bytesPerSecondAtLineRate * jitter(txUtilization) * txFactor);
    long rxBytes = (long) (bytesPerSecondAtLineRate * jitter(rxUtilization) * rxFactor);
    long txPackets = txBytes / IB_MTU_BYTES + 1;
    long rxPackets = rxBytes / IB_MTU_BYTES + 1;
    addPma("port_xmit_data", txBytes / 4);
    addPma("port_rcv_data", rxBytes / 4);
    addPma("port_xmit_packets", txPackets);
    addPma("port_rcv_packets", rxPackets);
    long multicast = random.nextInt(3);
    addPma("unicast_xmit_packets", txPackets - multicast);
    addPma("multicast_xmit_packets", multicast);
    addPma("unicast_rcv_packets", rxPackets - multicast);
    addPma("multicast_rcv_packets", multicast);
    // Credit stalls in 64 ns ticks (our reading): a busy port waits now and then.
    addPma("port_xmit_wait", txUtilization > 0.6 ? random.nextLong(200_000) : random.nextLong(500));
    if (random.nextDouble() < 1e-4) {
      addPma("symbol_error", 1);
    }
    addHw("rx_write_requests", rxPackets / 4);
    addHw("rx_read_requests", rxPackets / 16);
    addHw("rx_atomic_requests", random.nextInt(4));
    if (random.nextDouble() < 0.01) {
      addHw("out_of_sequence", 1);
      addHw("packet_seq_err", 1);
    }
    lastTxBytes = txBytes;
    lastRxBytes = rxBytes;
    lastTxPackets = txPackets;
    lastRxPackets = rxPackets;
    lastEcnMarked = 0;
    if (roce) {
      // The notification point answers each ECN-marked RoCE packet with a CNP; the reaction point
      // handles the CNPs its peers send, unless DCQCN is off and it ignores them [NE-ib].
      long marked = random.nextLong(2_000);
      lastEcnMarked = marked;
      addHw(ccName("np_ecn_marked_roce_packets"), marked);
      addHw(ccName("np_cnp_sent"), marked);
      long cnps = random.nextLong(2_000);
      addHw(
          ccName(cnpIgnored ? "rp_cnp_ignored" : "rp_cnp_handled"), cnpIgnored ? cnps + 500 : cnps);
    }
  }

  private double jitter(double utilization) {
    return Math.max(0, Math.min(1, utilization + (random.nextDouble() - 0.5) * 0.1));
  }

  /** The text of counters/NAME. */
  String pmaText(String name) {
    return Long.toUnsignedString(pma.get(name)) + "\n";
  }

  /** The text of hw_counters/NAME: q counters are read be32, so only the low 32 bits show. */
  String hwText(String name) {
    long value = hw.get(name);
    int width = CounterWidths.widthOf(CounterGroup.HW_COUNTERS, name, true, value);
    return Long.toUnsignedString(width == 32 ? value & 0xFFFF_FFFFL : value) + "\n";
  }

  String stateText() {
    return up ? "4: ACTIVE\n" : "1: DOWN\n";
  }

  String physStateText() {
    return up ? "5: LinkUp\n" : "2: Polling\n";
  }
}
