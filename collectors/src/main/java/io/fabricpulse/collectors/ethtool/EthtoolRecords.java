package io.fabricpulse.collectors.ethtool;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.SampleContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds the raw records of one {@code ethtool -S} sample: {@link PfcPauseFrames} and {@link
 * EcnMarks}. Counters keep the driver's raw names and raw values; the driver's {@link
 * EthtoolCounterMap} only selects which counters go into which record.
 */
public final class EthtoolRecords {
  /**
   * mlx5 reads the port counters it exposes through ethtool as 64-bit big-endian ({@code
   * MLX5E_READ_CTR64_BE}) [K-enstats]; ice keeps u64 statistics as well [INTEL-pfc].
   */
  public static final int ETHTOOL_WIDTH = 64;

  /**
   * The hw_counters congestion counters of a RoCE port, read from the 64-bit {@code _high} fields,
   * present only when the device allows congestion-control queries [K-mlx5cnt][K-mlx5cc].
   */
  public static final List<String> HW_CONGESTION_COUNTERS =
      List.of("np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored");

  public static final int HW_CONGESTION_WIDTH = 64;

  private EthtoolRecords() {}

  /**
   * The PFC/pause/storm/discard/physical/per-priority-traffic counters of one netdev.
   *
   * @param driver kernel driver (selects the name map); null when unknown
   * @param rdmaDevice RDMA device bound to the netdev (mlx5_0), null when unknown
   */
  public static PfcPauseFrames pfcPauseFrames(
      SampleContext ctx, String netdev, String driver, String rdmaDevice, List<EthtoolStat> stats) {
    List<Counter> counters = select(stats, driver, EthtoolCounterKind.Record.PFC);
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
    List<Counter> counters = select(stats, driver, EthtoolCounterKind.Record.ECN);
    for (String name : HW_CONGESTION_COUNTERS) {
      Long value = hwCounters.get(name);
      if (value != null) {
        counters.add(new Counter(name, CounterGroup.HW_COUNTERS, value, HW_CONGESTION_WIDTH, null));
      }
    }
    return counters;
  }

  private static List<Counter> select(
      List<EthtoolStat> stats, String driver, EthtoolCounterKind.Record record) {
    EthtoolCounterMap map = EthtoolCounterMap.forDriver(driver);
    List<Counter> counters = new ArrayList<>();
    for (EthtoolStat stat : stats) {
      Optional<EthtoolCounterClass> meaning = map.classify(stat.name());
      if (meaning.isPresent() && meaning.get().kind().record() == record) {
        counters.add(
            new Counter(stat.name(), CounterGroup.ETHTOOL, stat.value(), ETHTOOL_WIDTH, null));
      }
    }
    return counters;
  }
}
