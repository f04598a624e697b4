package io.fabricpulse.schemas.counters;

import static io.fabricpulse.avro.CounterKind.*;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one classifier of counter names: ethtool -S names of mlx5 (modern and legacy) and Intel ice,
 * and the RoCE congestion and drop names of sysfs hw_counters (mlx5 and Intel irdma). Drivers name
 * the same hardware counter differently and mlx5 renamed its counters over time, so everything
 * downstream (collector routing, rate stage, detectors, sink) reads the typed {@link
 * CounterMeaning} and never matches a vendor name itself. The names of the tables do not collide,
 * so a name alone decides its meaning.
 *
 * <p>Each name is matched once and the answer cached (the set of names a fleet reports is small),
 * so the rate stage pays a map look-up per counter, not a regex. The cache memoizes a pure function
 * of the name, so sharing it between threads and topologies changes no answer.
 */
public final class CounterMeanings {

  public static final String PACKETS = "packets";
  public static final String BYTES = "bytes";
  public static final String MICROSECONDS = "microseconds";
  public static final String EVENTS = "events";

  private static final String P = "(?<prio>[0-7])";
  private static final String D = "(?<dir>rx|tx)";

  /**
   * mlx5 names since about kernel 4.10, torvalds/linux
   * Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst and
   * drivers/net/ethernet/mellanox/mlx5/core/en_stats.c. Per-priority PFC counters exist only for
   * priorities with PFC enabled; the storm counters only with the stall-detect capability.
   */
  private static final List<Rule> MLX5_MODERN =
      List.of(
          rule(D + "_prio" + P + "_pause", PFC_PAUSE),
          rule(D + "_prio" + P + "_pause_duration", PFC_PAUSE_DURATION),
          rule(D + "_prio" + P + "_pause_transition", PFC_PAUSE_TRANSITION),
          rule(D + "_global_pause", GLOBAL_PAUSE),
          rule(D + "_global_pause_duration", GLOBAL_PAUSE_DURATION),
          rule(D + "_global_pause_transition", GLOBAL_PAUSE_TRANSITION),
          rule(D + "_pause_ctrl_phy", PAUSE_CTRL_PHY),
          rule("(?<dir>tx)_pause_storm_warning_events", PAUSE_STORM_WARNING),
          rule("(?<dir>tx)_pause_storm_error_events", PAUSE_STORM_ERROR),
          rule("(?<dir>rx)_prio" + P + "_buf_discard", PRIO_BUF_DISCARD),
          rule("(?<dir>rx)_prio" + P + "_cong_discard", PRIO_CONG_DISCARD),
          rule("(?<dir>rx)_prio" + P + "_discards", PRIO_DISCARDS),
          rule("(?<dir>rx)_prio" + P + "_marked", PRIO_ECN_MARKED),
          rule(D + "_prio" + P + "_bytes", PRIO_BYTES),
          rule(D + "_prio" + P + "_packets", PRIO_PACKETS),
          rule("link_down_events_phy", LINK_DOWN),
          rule("(?<dir>rx)_buffer_passed_thres_phy", BUFFER_PASSED_THRESHOLD),
          rule("(?<dir>rx)_(pcs_)?symbol_err_phy", SYMBOL_ERRORS),
          rule("(?<dir>rx)_corrected_bits_phy", CORRECTED_BITS),
          rule("(?<dir>rx)_bits_phy", RX_BITS),
          rule(D + "_discards_phy", DISCARDS_PHY),
          rule("(?<dir>rx)_out_of_buffer", OUT_OF_BUFFER),
          rule("module_(unplug|high_temp|bus_stuck|bad_shorted)", MODULE_EVENT),
          rule("outbound_pci_stalled_(rd|wr)(_events)?", PCI_STALL),
          rule(D + "_pci_signal_integrity", PCI_SIGNAL_INTEGRITY));

  /**
   * mlx5 names of kernels before about 4.10 (and MLNX_OFED of that time): per-priority counters
   * printed as {@code "prio%d_%s"}, so {@code prio3_rx_pause}, {@code prio3_rx_pause_duration},
   * {@code prio0_rx_octets}; IEEE 802.3 group {@code pause_ctrl_rx}, {@code symbol_err}; RFC 2863
   * group {@code in_discards} (renamed rx_discards_phy), per the history of en_ethtool.c and
   * en_stats.h in torvalds/linux.
   */
  private static final List<Rule> MLX5_LEGACY =
      List.of(
          rule("prio" + P + "_" + D + "_pause", PFC_PAUSE),
          rule("prio" + P + "_" + D + "_pause_duration", PFC_PAUSE_DURATION),
          rule("prio" + P + "_" + D + "_pause_transition", PFC_PAUSE_TRANSITION),
          rule("prio" + P + "_" + D + "_octets", PRIO_BYTES),
          rule("prio" + P + "_" + D + "_frames", PRIO_PACKETS),
          rule("pause_ctrl_" + D, PAUSE_CTRL_PHY),
          rule("symbol_err", SYMBOL_ERRORS),
          // "in" is the RFC 2863 name of the receive side
          rule("in_discards", DISCARDS_PHY, CounterDirection.RX));

  /**
   * Intel E810 (ice), drivers/net/ethernet/intel/ice/ice_ethtool.c and Intel's "800 Series Linux
   * Flow Control Configuration Guide for RDMA" (priority flow control verification, {@code
   * tx_priority_N_xon.nic} / {@code tx_priority_N_xoff.nic}):
   * https://edc.intel.com/content/www/us/en/design/products/ethernet/800-series-linux-flow-control-configuration-guide-for-rdma-use-c/priority-flow-control-verification/
   * XOFF frames are the pause frames; an XON frame ends a pause, so (our reading) XON frames are
   * the Xoff to Xon transitions of mlx5. {@code rx_dropped.nic} is the port's receive discard count
   * ({@code stats.eth.rx_discards}, reported as rx_missed_errors: "drops from the port level"). ice
   * has no pause-duration counter.
   */
  private static final List<Rule> ICE =
      List.of(
          rule(D + "_priority_" + P + "_xoff\\.nic", PFC_PAUSE),
          rule(D + "_priority_" + P + "_xon\\.nic", PFC_PAUSE_TRANSITION),
          rule("link_xoff_" + D + "\\.nic", GLOBAL_PAUSE),
          rule("link_xon_" + D + "\\.nic", GLOBAL_PAUSE_TRANSITION),
          rule("(?<dir>rx)_dropped\\.nic", DISCARDS_PHY));

  /**
   * RoCE congestion and drop counters of sysfs {@code hw_counters}: mlx5 (drivers/infiniband/hw/
   * mlx5/counters.c: np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled, rp_cnp_ignored,
   * out_of_buffer) and Intel irdma on E810 (drivers/infiniband/hw/irdma/verbs.c
   * irdma_hw_stat_names: RxECNMrkd = RXNPECNMARKEDPKTS, cnpSent = TXNPCNPSENT, cnpHandled =
   * RXRPCNPHANDLED, cnpIgnored = RXRPCNPIGNORED).
   */
  private static final List<Rule> HW_COUNTERS =
      List.of(
          rule("np_ecn_marked_roce_packets", ECN_MARKED, CounterDirection.RX),
          rule("np_cnp_sent", CNP_SENT, CounterDirection.TX),
          rule("rp_cnp_handled", CNP_HANDLED, CounterDirection.RX),
          rule("rp_cnp_ignored", CNP_IGNORED, CounterDirection.RX),
          rule("out_of_buffer", OUT_OF_BUFFER, CounterDirection.RX),
          rule("RxECNMrkd", ECN_MARKED, CounterDirection.RX),
          rule("cnpSent", CNP_SENT, CounterDirection.TX),
          rule("cnpHandled", CNP_HANDLED, CounterDirection.RX),
          rule("cnpIgnored", CNP_IGNORED, CounterDirection.RX));

  private static final List<Rule> RULES = concat(MLX5_MODERN, MLX5_LEGACY, ICE, HW_COUNTERS);

  /** Beyond this many distinct names, answers are computed but no longer cached. */
  private static final int CACHE_LIMIT = 100_000;

  private static final Map<String, Optional<CounterMeaning>> CACHE = new ConcurrentHashMap<>();

  private CounterMeanings() {}

  /** The meaning of a raw counter name, or empty when no table knows it. */
  public static Optional<CounterMeaning> of(String rawName) {
    Optional<CounterMeaning> cached = CACHE.get(rawName);
    if (cached != null) {
      return cached;
    }
    Optional<CounterMeaning> meaning = classify(rawName);
    if (CACHE.size() < CACHE_LIMIT) {
      CACHE.put(rawName, meaning);
    }
    return meaning;
  }

  /** Unit of the delta of a counter of this kind. */
  public static String unitOf(CounterKind kind) {
    return switch (kind) {
      case PFC_PAUSE_DURATION, GLOBAL_PAUSE_DURATION -> MICROSECONDS;
      case PRIO_BYTES -> BYTES;
      case PFC_PAUSE,
          GLOBAL_PAUSE,
          PAUSE_CTRL_PHY,
          PRIO_BUF_DISCARD,
          PRIO_CONG_DISCARD,
          PRIO_DISCARDS,
          PRIO_ECN_MARKED,
          PRIO_PACKETS,
          DISCARDS_PHY,
          OUT_OF_BUFFER,
          ECN_MARKED,
          CNP_SENT,
          CNP_HANDLED,
          CNP_IGNORED ->
          PACKETS;
      default -> EVENTS;
    };
  }

  private static Optional<CounterMeaning> classify(String rawName) {
    for (Rule rule : RULES) {
      Optional<CounterMeaning> match = rule.classify(rawName);
      if (match.isPresent()) {
        return match;
      }
    }
    return Optional.empty();
  }

  private static Rule rule(String regex, CounterKind kind) {
    return new Rule(Pattern.compile(regex), kind, null);
  }

  private static Rule rule(String regex, CounterKind kind, CounterDirection direction) {
    return new Rule(Pattern.compile(regex), kind, direction);
  }

  @SafeVarargs
  private static List<Rule> concat(List<Rule>... lists) {
    return Arrays.stream(lists).flatMap(List::stream).toList();
  }

  /**
   * A name pattern; group {@code dir} (rx/tx) gives the direction, group {@code prio} the priority.
   */
  private record Rule(Pattern pattern, CounterKind kind, CounterDirection direction) {
    Optional<CounterMeaning> classify(String rawName) {
      Matcher m = pattern.matcher(rawName);
      if (!m.matches()) {
        return Optional.empty();
      }
      String regex = pattern.pattern();
      Integer priority = regex.contains("(?<prio>") ? Integer.valueOf(m.group("prio")) : null;
      CounterDirection dir = direction;
      if (dir == null && regex.contains("(?<dir>")) {
        dir = m.group("dir").equals("tx") ? CounterDirection.TX : CounterDirection.RX;
      }
      return Optional.of(new CounterMeaning(kind, dir, priority, unitOf(kind)));
    }
  }
}
