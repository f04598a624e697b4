package io.fabricpulse.collectors.sysfs;

import io.fabricpulse.avro.CounterGroup;
import java.util.Map;
import java.util.Set;

/**
 * Declared widths, in bits, of the counters the sysfs collector reads. The rate stage uses them to
 * tell a wrap (mlx5 32-bit q counters) from saturation and clears (PMA counters).
 *
 * <p>PMA counters in {@code counters/} per drivers/infiniband/core/sysfs.c [K-sysfs]
 * (docs/counters.md, IB PMA counters). The data and packet counters ({@code
 * port_{xmit,rcv}_{data,packets}}) are 32-bit in the base PMA attribute set and 64-bit when the
 * port's ClassPortInfo advertises extended width; sysfs does not say which set it chose, so we
 * decide from what is visible:
 *
 * <ol>
 *   <li>{@code unicast_*}/{@code multicast_*} files in the same {@code counters/} directory exist
 *       only in the extended attribute set ({@code pma_attrs_ext}), so they prove 64-bit;
 *   <li>a value above 2^32-1 proves 64-bit (a 32-bit PMA counter stops at all ones);
 *   <li>otherwise 32-bit. (our reading) A port on the extended-without-IETF set ({@code
 *       pma_attrs_noietf}) is reported 32-bit until its value passes 2^32-1; the only cost is that
 *       a value of exactly 4294967295 would be read as saturated for that one sample.
 * </ol>
 *
 * <p>mlx5 q counters in {@code hw_counters/} are read with be32_to_cpu, 32-bit and wrapping;
 * congestion counters {@code np_*}/{@code rp_*} and {@code rx_icrc_encapsulated} are 64-bit
 * [K-mlx5cnt][K-mlx5cc]. Legacy {@code counters_ext/} counters are all 64-bit [procfs]. A counter
 * this table does not know is declared 64-bit, so the rate stage never invents a wrap or a
 * saturation for it.
 */
public final class CounterWidths {

  public static final int UNKNOWN_WIDTH = 64;

  private static final Map<String, Integer> PMA_WIDTHS =
      Map.ofEntries(
          Map.entry("symbol_error", 16),
          Map.entry("port_rcv_errors", 16),
          Map.entry("port_rcv_remote_physical_errors", 16),
          Map.entry("port_rcv_switch_relay_errors", 16),
          Map.entry("port_xmit_discards", 16),
          Map.entry("VL15_dropped", 16),
          Map.entry("link_error_recovery", 8),
          Map.entry("link_downed", 8),
          Map.entry("port_xmit_constraint_errors", 8),
          Map.entry("port_rcv_constraint_errors", 8),
          Map.entry("local_link_integrity_errors", 4),
          Map.entry("excessive_buffer_overrun_errors", 4),
          Map.entry("port_xmit_wait", 32),
          Map.entry("unicast_xmit_packets", 64),
          Map.entry("unicast_rcv_packets", 64),
          Map.entry("multicast_xmit_packets", 64),
          Map.entry("multicast_rcv_packets", 64));

  /** 32-bit in the base PMA set, 64-bit when extended (see the class comment). */
  private static final Set<String> EXTENDABLE =
      Set.of("port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets");

  /** mlx5 q counters, read with be32_to_cpu [K-mlx5cnt] (list in docs/counters.md). */
  private static final Set<String> MLX5_Q_COUNTERS_32 =
      Set.of(
          "rx_write_requests",
          "rx_read_requests",
          "rx_atomic_requests",
          "out_of_buffer",
          "out_of_sequence",
          "duplicate_request",
          "rnr_nak_retry_err",
          "packet_seq_err",
          "implied_nak_seq_err",
          "local_ack_timeout_err",
          "req_cqe_error",
          "req_cqe_flush_error",
          "req_remote_access_errors",
          "req_remote_invalid_request",
          "resp_cqe_error",
          "resp_cqe_flush_error",
          "resp_local_length_error",
          "resp_remote_access_errors",
          "roce_adp_retrans",
          "roce_adp_retrans_to",
          "roce_slow_restart",
          "roce_slow_restart_cnps",
          "roce_slow_restart_trans",
          "rx_dct_connect");

  private CounterWidths() {}

  /** True when the {@code counters/} directory holds the extended-only unicast/multicast files. */
  public static boolean hasExtendedOnlyCounters(Iterable<String> counterNames) {
    for (String name : counterNames) {
      if (name.startsWith("unicast_") || name.startsWith("multicast_")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Declared width of one counter.
   *
   * @param extendedPma whether the port's counters/ set is known to be extended (rule 1 above)
   * @param value the value read, or null; a value above 2^32-1 proves 64-bit (rule 2)
   */
  public static int widthOf(CounterGroup group, String name, boolean extendedPma, Long value) {
    switch (group) {
      case COUNTERS:
        if (EXTENDABLE.contains(name)) {
          boolean above32 = value != null && Long.compareUnsigned(value, 0xFFFF_FFFFL) > 0;
          return extendedPma || above32 ? 64 : 32;
        }
        return PMA_WIDTHS.getOrDefault(name, UNKNOWN_WIDTH);
      case HW_COUNTERS:
        return MLX5_Q_COUNTERS_32.contains(name) ? 32 : UNKNOWN_WIDTH;
      case COUNTERS_EXT:
        return 64;
      default:
        return UNKNOWN_WIDTH;
    }
  }
}
