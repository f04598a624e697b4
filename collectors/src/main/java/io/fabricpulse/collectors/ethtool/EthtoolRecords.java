package io.fabricpulse.collectors.ethtool;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.counters.CounterMeaning;
import io.fabricpulse.schemas.counters.CounterMeanings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the raw records of one {@code ethtool -S} sample: {@link PfcPauseFrames} and {@link
 * EcnMarks}. Counters keep the driver's raw names and raw values; their meaning ({@link
 * CounterMeanings}, the one classifier the rate stage also uses) only selects which counters go
 * into which record: per-priority ECN marks into EcnMarks, every other known counter into
 * PfcPauseFrames, unknown names nowhere.
 */
public final class EthtoolRecords {
  /** Driver name as {@code /sys/class/net/<netdev>/device/driver} and {@code ethtool -i} say. */
  public static final String MLX5_DRIVER = "mlx5_core";

  public static final String ICE_DRIVER = "ice";

  /**
   * mlx5 reads the port counters it exposes through ethtool as 64-bit big-endian ({@code
   * MLX5E_READ_CTR64_BE}) [K-enstats]; ice keeps u64 statistics as well [INTEL-pfc].
   */
  public static final int ETHTOOL_WIDTH = 64;

  /**
   * The hw_counters congestion counters of a RoCE port. mlx5 reads them from the 64-bit {@code
   * _high} fields, present only when the device allows congestion-control queries
   * [K-mlx5cnt][K-mlx5cc]; Intel irdma (E810) names them RxECNMrkd, cnpSent, cnpHandled and
   * cnpIgnored and accumulates the 32-bit hardware counts into 64-bit values (torvalds/linux
   * drivers/infiniband/hw/irdma/verbs.c irdma_hw_stat_names, IRDMA_STATS_DELTA).
   */
  public static final List<String> HW_CONGESTION_COUNTERS =
      List.of(
          "np_ecn_marked_roce_packets",
          "np_cnp_sent",
          "rp_cnp_handled",
          "rp_cnp_ignored",
          "RxECNMrkd",
          "cnpSent",
          "cnpHandled",
          "cnpIgnored");

  public static final int HW_CONGESTION_WIDTH = 64;

  private EthtoolRecords() {}

  /**
   * The PFC/pause/storm/discard/physical/per-priority-traffic counters of one netdev.
   *
   * @param driver kernel driver, carried in the record; null when unknown
   * @param rdmaDevice RDMA device bound to the netdev (mlx5_0), null when unknown
   */
  public static PfcPauseFrames pfcPauseFrames(
      SampleContext ctx, String netdev, String driver, String rdmaDevice, List<EthtoolStat> stats) {
    List<Counter> counters = select(stats, false);
    return PfcPauseFrames.newBuilder()
        .setCluster(ctx.cluster())
        .setNode(ctx.node())
        .setBootId(ctx.bootId())
        .setSeq(ctx.nextSeq())
        .setTime(ctx.time())
        .setNetdev(netdev)
        .setDriver(driver)
        .setDevice(rdmaDevice)
        .setCounters(counters)
        .build();
  }

  /** ECN marks from ethtool alone ({@code rx_prio{p}_marked}), for a netdev without hw_counters. */
  public static EcnMarks ecnMarks(
      SampleContext ctx,
      String netdev,
      String driver,
      String rdmaDevice,
      Integer port,
      List<EthtoolStat> stats) {
    return ecnMarks(ctx, netdev, driver, rdmaDevice, port, stats, Map.of());
  }

  /**
   * ECN marks from ethtool ({@code rx_prio{p}_marked}) merged with the RoCE congestion counters of
   * the port's hw_counters ({@link #HW_CONGESTION_COUNTERS}; other names in the map are ignored).
   *
   * @param hwCounters hw_counters of the RDMA port by file name, raw values; empty when absent
   */
  public static EcnMarks ecnMarks(
      SampleContext ctx,
      String netdev,
      String driver,
      String rdmaDevice,
      Integer port,
      List<EthtoolStat> stats,
      Map<String, Long> hwCounters) {
    List<Counter> counters = ecnCounters(stats, driver, hwCounters);
    return EcnMarks.newBuilder()
        .setCluster(ctx.cluster())
        .setNode(ctx.node())
        .setBootId(ctx.bootId())
        .setSeq(ctx.nextSeq())
        .setTime(ctx.time())
        .setDevice(rdmaDevice)
        .setPort(port)
        .setNetdev(netdev)
        .setCounters(counters)
        .build();
  }

  /**
   * The counters an {@link EcnMarks} of this sample would carry; empty when the port has none (then
   * publish no record rather than an empty one).
   */
  public static List<Counter> ecnCounters(
      List<EthtoolStat> stats, String driver, Map<String, Long> hwCounters) {
    List<Counter> counters = select(stats, true);
    for (String name : HW_CONGESTION_COUNTERS) {
      Long value = hwCounters.get(name);
      if (value != null) {
        counters.add(new Counter(name, CounterGroup.HW_COUNTERS, value, HW_CONGESTION_WIDTH, null));
      }
    }
    return counters;
  }

  /**
   * The known counters of the EcnMarks record ({@code ecn}: per-priority ECN marks) or of the
   * PfcPauseFrames record (every other known counter).
   */
  private static List<Counter> select(List<EthtoolStat> stats, boolean ecn) {
    List<Counter> counters = new ArrayList<>();
    for (EthtoolStat stat : stats) {
      Optional<CounterMeaning> meaning = CounterMeanings.of(stat.name());
      if (meaning.isPresent() && (meaning.get().kind() == CounterKind.PRIO_ECN_MARKED) == ecn) {
        counters.add(
            new Counter(stat.name(), CounterGroup.ETHTOOL, stat.value(), ETHTOOL_WIDTH, null));
      }
    }
    return counters;
  }
}
