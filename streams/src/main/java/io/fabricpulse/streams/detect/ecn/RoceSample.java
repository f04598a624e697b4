package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.alerts.AlertSubject;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Read access to the congestion and drop counters of one fabric.rates record of a RoCE port (source
 * ECN, PFC, or PORT with link_layer Ethernet). Only deltas the rate stage tagged {@code normal} or
 * {@code wrap} count: {@code clear}/{@code reboot} deltas are whole counter values and {@code
 * first}/{@code saturated}/{@code unavailable} have none, so they never fire.
 */
final class RoceSample {

  static final String NP_ECN_MARKED = "np_ecn_marked_roce_packets";
  static final String NP_CNP_SENT = "np_cnp_sent";
  static final String RP_CNP_HANDLED = "rp_cnp_handled";
  static final String RP_CNP_IGNORED = "rp_cnp_ignored";

  /** Receive-buffer drops of a RoCE port: ethtool [K-ethdoc] and hw_counters [K-mlx5cnt]. */
  static final String RX_OUT_OF_BUFFER = "rx_out_of_buffer";

  static final String RX_DISCARDS_PHY = "rx_discards_phy";
  static final String OUT_OF_BUFFER = "out_of_buffer";

  /** The counters this family reads; the others are dropped before the checks. */
  private static final Pattern RELEVANT =
      Pattern.compile(
          "np_ecn_marked_roce_packets|np_cnp_sent|rp_cnp_handled|rp_cnp_ignored"
              + "|rx_out_of_buffer|rx_discards_phy|out_of_buffer"
              + "|(rx|tx)_prio[0-7]_pause_duration|rx_prio[0-7]_(marked|buf_discard|cong_discard)");

  private static final double MICROS_PER_SECOND = 1e6;

  private final CounterRates record;
  private final Map<String, CounterRate> byName = new HashMap<>();

  RoceSample(CounterRates record) {
    this.record = record;
    for (CounterRate r : record.getRates()) {
      byName.put(r.getName(), r);
    }
  }

  /** Whether a fabric.rates record concerns a RoCE port (ethtool and ECN samples always do). */
  static boolean isRoce(CounterRates r) {
    return r.getSource() == RateSource.ECN
        || r.getSource() == RateSource.PFC
        || (r.getSource() == RateSource.PORT && "Ethernet".equalsIgnoreCase(r.getLinkLayer()));
  }

  static boolean relevant(String counter) {
    return RELEVANT.matcher(counter).matches();
  }

  /**
   * The port an alert of this family is about: the netdev when the record names it (PORT, PFC and
   * most ECN samples), else the RDMA device and port. Every source of one port is in its node's
   * partition, so they all meet in one task.
   */
  static AlertSubject subjectOf(CounterRates r) {
    AlertSubject node = AlertSubject.node(r.getCluster(), r.getNode());
    if (r.getNetdev() != null && !r.getNetdev().isBlank()) {
      return node.withNetdev(r.getNetdev());
    }
    return node.withDevice(r.getDevice()).withPort(r.getPort());
  }

  CounterRates record() {
    return record;
  }

  long time() {
    return record.getTime().toEpochMilli();
  }

  /** The increase of {@code counter} in the interval, when the rate stage could tell it. */
  OptionalLong delta(String counter) {
    CounterRate r = usable(counter);
    return r == null || r.getDelta() == null ? OptionalLong.empty() : OptionalLong.of(r.getDelta());
  }

  /**
   * Fraction of the interval the port was paused (rx) or pausing its peer (tx) on {@code prio}, the
   * larger of the two: per-second {@code _pause_duration} µs / 1e6 [K-ethdoc], the same ratio the
   * pause_storm detector compares with its threshold.
   */
  OptionalDouble pauseRatio(int prio) {
    OptionalDouble rx = ratio("rx_prio" + prio + "_pause_duration");
    OptionalDouble tx = ratio("tx_prio" + prio + "_pause_duration");
    if (rx.isEmpty() && tx.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(Math.max(rx.orElse(0), tx.orElse(0)));
  }

  private OptionalDouble ratio(String counter) {
    CounterRate r = usable(counter);
    return r == null || r.getPerSecond() == null
        ? OptionalDouble.empty()
        : OptionalDouble.of(r.getPerSecond() / MICROS_PER_SECOND);
  }

  private CounterRate usable(String counter) {
    CounterRate r = byName.get(counter);
    if (r == null) {
      return null;
    }
    return r.getTag() == RateTag.normal || r.getTag() == RateTag.wrap ? r : null;
  }
}
