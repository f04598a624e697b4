package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.streams.alerts.AlertSubject;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Read access to the congestion and drop counters of one fabric.rates record of a RoCE port (source
 * ECN, PFC, or PORT with link_layer Ethernet), by the typed meaning (kind, direction, priority) the
 * rate stage attached, never by vendor name: mlx5 {@code rp_cnp_ignored} and irdma {@code
 * cnpIgnored} are both CNP_IGNORED. Only deltas the rate stage tagged {@code normal} or {@code
 * wrap} count: {@code clear}/{@code reboot} deltas are whole counter values and {@code
 * first}/{@code saturated}/{@code unavailable} have none, so they never fire.
 */
final class RoceSample {

  /** The kinds this family reads; the other counters are dropped before the checks. */
  private static final Set<CounterKind> RELEVANT =
      EnumSet.of(
          CounterKind.ECN_MARKED,
          CounterKind.CNP_SENT,
          CounterKind.CNP_HANDLED,
          CounterKind.CNP_IGNORED,
          CounterKind.OUT_OF_BUFFER,
          CounterKind.DISCARDS_PHY,
          CounterKind.PFC_PAUSE_DURATION,
          CounterKind.PRIO_ECN_MARKED,
          CounterKind.PRIO_BUF_DISCARD,
          CounterKind.PRIO_CONG_DISCARD);

  private static final double MICROS_PER_SECOND = 1e6;

  private final CounterRates record;

  RoceSample(CounterRates record) {
    this.record = record;
  }

  /** Whether a fabric.rates record concerns a RoCE port (ethtool and ECN samples always do). */
  static boolean isRoce(CounterRates r) {
    return r.getSource() == RateSource.ECN
        || r.getSource() == RateSource.PFC
        || (r.getSource() == RateSource.PORT && "Ethernet".equalsIgnoreCase(r.getLinkLayer()));
  }

  /**
   * Whether the family reads this counter: by the kind the rate stage attached. Only received port
   * discards count ({@code rx_discards_phy}, legacy {@code in_discards}, ice {@code
   * rx_dropped.nic}): transmit discards are not a lossless receiver's drops.
   */
  static boolean relevant(CounterRate counter) {
    CounterKind kind = counter.getKind();
    if (kind == null || !RELEVANT.contains(kind)) {
      return false;
    }
    return kind != CounterKind.DISCARDS_PHY || counter.getDirection() == CounterDirection.RX;
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

  /**
   * The usable counters of this kind on {@code priority} (null: the port-wide ones), in record
   * order; a check sums them and names each in its evidence by the driver's raw name.
   */
  List<CounterRate> usable(CounterKind kind, Integer priority) {
    List<CounterRate> out = new ArrayList<>();
    for (CounterRate r : record.getRates()) {
      if (r.getKind() == kind
          && Objects.equals(r.getPriority(), priority)
          && (r.getTag() == RateTag.normal || r.getTag() == RateTag.wrap)
          && r.getDelta() != null) {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * The increase of the port-wide counter(s) of {@code kind} in the interval (mlx5 and irdma name
   * the same CNP counter differently), when the rate stage could tell it.
   */
  OptionalLong delta(CounterKind kind) {
    List<CounterRate> counters = usable(kind, null);
    if (counters.isEmpty()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(counters.stream().mapToLong(CounterRate::getDelta).sum());
  }

  /** The driver's name of the port-wide counter of {@code kind}, for evidence; the kind if none. */
  String rawName(CounterKind kind) {
    List<CounterRate> counters = usable(kind, null);
    return counters.isEmpty() ? kind.name().toLowerCase(Locale.ROOT) : counters.get(0).getName();
  }

  /**
   * Fraction of the interval the port was paused (rx) or pausing its peer (tx) on {@code prio}, the
   * larger of the two: per-second pause duration (kind PFC_PAUSE_DURATION) µs / 1e6 [K-ethdoc], the
   * same ratio the pause_storm detector compares with its threshold. Empty on a NIC without a
   * duration counter (Intel ice).
   */
  OptionalDouble pauseRatio(int prio) {
    OptionalDouble ratio = OptionalDouble.empty();
    for (CounterRate r : usable(CounterKind.PFC_PAUSE_DURATION, prio)) {
      if (r.getPerSecond() != null) {
        double v = r.getPerSecond() / MICROS_PER_SECOND;
        ratio = OptionalDouble.of(Math.max(v, ratio.orElse(0)));
      }
    }
    return ratio;
  }
}
