package io.fabricpulse.collectors.ethtool;

import static io.fabricpulse.collectors.ethtool.EthtoolCounterKind.*;

import io.fabricpulse.collectors.ethtool.EthtoolCounterClass.Direction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Per-driver name map: classifies raw {@code ethtool -S} names into {@link EthtoolCounterClass}.
 * Drivers name the same hardware counter differently, and mlx5 renamed its counters over time, so
 * detectors must not match raw names [K-ethdoc][INTEL-pfc]. A pattern's group {@code dir} (rx/tx)
 * gives the direction, group {@code prio} the priority.
 */
public final class EthtoolCounterMap {
  /** Driver name as {@code /sys/class/net/<netdev>/device/driver} and {@code ethtool -i} say. */
  public static final String MLX5_DRIVER = "mlx5_core";

  public static final String ICE_DRIVER = "ice";

  private static final String P = "(?<prio>[0-7])";
  private static final String D = "(?<dir>rx|tx)";

  /**
   * mlx5 names since about kernel 4.10 [K-ethdoc][K-enstats]. Per-priority PFC counters exist only
   * for priorities with PFC enabled: the driver builds them as {@code rx_%s_pause} with {@code
   * prio%d} or {@code global}; the storm counters only with the stall-detect capability.
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
          rule("tx_pause_storm_warning_events", PAUSE_STORM_WARNING),
          rule("tx_pause_storm_error_events", PAUSE_STORM_ERROR),
          rule("rx_prio" + P + "_buf_discard", PRIO_BUF_DISCARD),
          rule("rx_prio" + P + "_cong_discard", PRIO_CONG_DISCARD),
          rule("rx_prio" + P + "_discards", PRIO_DISCARDS),
          rule("rx_prio" + P + "_marked", PRIO_ECN_MARKED),
          rule(D + "_prio" + P + "_bytes", PRIO_BYTES),
          rule(D + "_prio" + P + "_packets", PRIO_PACKETS),
          rule("link_down_events_phy", LINK_DOWN),
          rule("rx_buffer_passed_thres_phy", BUFFER_PASSED_THRESHOLD),
          rule("rx_(pcs_)?symbol_err_phy", SYMBOL_ERRORS),
          rule("rx_corrected_bits_phy", CORRECTED_BITS),
          rule("rx_bits_phy", RX_BITS),
          rule(D + "_discards_phy", DISCARDS_PHY),
          rule("rx_out_of_buffer", OUT_OF_BUFFER),
          rule("module_(unplug|high_temp|bus_stuck|bad_shorted)", MODULE_EVENT),
          rule("outbound_pci_stalled_(rd|wr)(_events)?", PCI_STALL),
          rule(D + "_pci_signal_integrity", PCI_SIGNAL_INTEGRITY));

  /**
   * mlx5 names of kernels before about 4.10 (and MLNX_OFED of that time): per-priority counters
   * printed as {@code "prio%d_%s"}, so {@code prio3_rx_pause}, {@code prio3_rx_pause_duration},
   * {@code prio0_rx_octets}; IEEE 802.3 group {@code pause_ctrl_rx}, {@code symbol_err}; RFC 2863
   * group {@code in_discards} (renamed rx_discards_phy) [K-enstats] (en_ethtool.c and en_stats.h
   * history).
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
          rule("(?<dir>in)_discards", DISCARDS_PHY));

  /**
   * Intel E810 (ice) [INTEL-pfc]: {@code tx_priority_N_xoff.nic} counts PFC pause (XOFF) frames;
   * XON frames end a pause, so (our reading) they are the Xoff to Xon transitions of mlx5. The
   * link-level pair is {@code link_xoff_rx.nic} / {@code link_xon_tx.nic} etc.
   */
  private static final List<Rule> ICE =
      List.of(
          rule(D + "_priority_" + P + "_xoff\\.nic", PFC_PAUSE),
          rule(D + "_priority_" + P + "_xon\\.nic", PFC_PAUSE_TRANSITION),
          rule("link_xoff_" + D + "\\.nic", GLOBAL_PAUSE),
          rule("link_xon_" + D + "\\.nic", GLOBAL_PAUSE_TRANSITION));

  public static final EthtoolCounterMap MLX5 = new EthtoolCounterMap(MLX5_MODERN, MLX5_LEGACY);
  public static final EthtoolCounterMap INTEL_ICE = new EthtoolCounterMap(ICE);

  /** Every known name, for a netdev whose driver is unknown (the names do not collide). */
  public static final EthtoolCounterMap ANY = new EthtoolCounterMap(MLX5_MODERN, MLX5_LEGACY, ICE);

  private final List<Rule> rules;

  @SafeVarargs
  private EthtoolCounterMap(List<Rule>... ruleLists) {
    List<Rule> all = new ArrayList<>();
    for (List<Rule> list : ruleLists) {
      all.addAll(list);
    }
    this.rules = List.copyOf(all);
  }

  /** The map for a kernel driver name; {@link #ANY} when the driver is unknown or null. */
  public static EthtoolCounterMap forDriver(String driver) {
    if (driver == null) {
      return ANY;
    }
    return switch (driver.strip().toLowerCase(Locale.ROOT)) {
      case MLX5_DRIVER -> MLX5;
      case ICE_DRIVER -> INTEL_ICE;
      default -> ANY;
    };
  }

  /** The meaning of a raw counter name, or empty when this map does not track it. */
  public Optional<EthtoolCounterClass> classify(String rawName) {
    for (Rule rule : rules) {
      Optional<EthtoolCounterClass> match = rule.classify(rawName);
      if (match.isPresent()) {
        return match;
      }
    }
    return Optional.empty();
  }

  private static Rule rule(String regex, EthtoolCounterKind kind) {
    return new Rule(Pattern.compile(regex), kind);
  }

  private record Rule(Pattern pattern, EthtoolCounterKind kind) {
    Optional<EthtoolCounterClass> classify(String rawName) {
      Matcher m = pattern.matcher(rawName);
      if (!m.matches()) {
        return Optional.empty();
      }
      String regex = pattern.pattern();
      Integer priority = regex.contains("(?<prio>") ? Integer.valueOf(m.group("prio")) : null;
      return Optional.of(new EthtoolCounterClass(kind, direction(m, regex), priority));
    }

    private static Direction direction(Matcher m, String regex) {
      String dir = regex.contains("(?<dir>") ? m.group("dir") : regex;
      if (dir.startsWith("tx")) {
        return Direction.TX;
      }
      // "in" is the RFC 2863 name of the receive side (legacy in_discards).
      if (dir.startsWith("rx") || dir.startsWith("in")) {
        return Direction.RX;
      }
      return Direction.NONE;
    }
  }
}
