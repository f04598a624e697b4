package io.fabricpulse.streams.rules;

import java.time.Duration;
import java.util.List;

/**
 * The threshold schema of every detector, with defaults from docs/thresholds.md (source keys
 * defined there). A detector without a case here accepts no thresholds: any key is reported as
 * unknown. To add one: write a constant below and a case in {@link #forDetector}.
 */
public final class ThresholdSchemas {

  /** docs/thresholds.md P3/P4: SONiC's 0.8 factor, N consecutive polls; P2 mlx5 storm events. */
  public static final ThresholdSchema PAUSE_STORM =
      ThresholdSchema.builder()
          .ratio(
              "pause_ratio",
              0.8,
              "pause ratio (rx or tx pause microseconds / elapsed microseconds) at or above which a"
                  + " sample counts as stormed [SONIC-pfcwd][K-ethdoc]")
          .integer(
              "consecutive_samples",
              2,
              1,
              1000,
              "stormed samples in a row before FIRING (2 at 1 s sampling) [SONIC-pfcwd]")
          .integer(
              "storm_events",
              1,
              1,
              1_000_000,
              "increase of tx_pause_storm_warning_events + tx_pause_storm_error_events in one"
                  + " sample that fires at once [K-pfcstall]")
          .number(
              "origin_factor",
              10.0,
              1.0,
              null,
              "a port whose tx pause-frame delta is at least this many times its rx delta is"
                  + " classified as the storm origin (our reading of P4)")
          .integer(
              "lossless_priority",
              3,
              0,
              7,
              "the RDMA (lossless) priority: the netdev's mlx5 storm-event counters and this"
                  + " priority's pause ratio are one alert subject [K-pfcstall][K-ethdoc]")
          .build();

  /** docs/thresholds.md P4 "Beat": fabric-wide attribution of the source NIC. */
  public static final ThresholdSchema PAUSE_PROPAGATION =
      ThresholdSchema.builder()
          .integer("min_nodes", 3, 2, 100_000, "nodes with a pause storm that make an incident")
          .duration(
              "window",
              "30s",
              Duration.ofSeconds(1),
              "a storm that resolved less than this long ago still counts towards min_nodes")
          .build();

  /** docs/thresholds.md P6: PFC only on the RDMA (lossless) priority [K-ethdoc]. */
  public static final ThresholdSchema PFC_MISCONFIG =
      ThresholdSchema.builder()
          .priorities(
              "lossless_priorities",
              List.of(3),
              "priorities where PFC pause frames are expected; pauses on any other priority fire")
          .integer(
              "min_pause_frames",
              1,
              1,
              1_000_000_000L,
              "rx+tx pause frames on a non-lossless priority in one sample that fire")
          .build();

  /** docs/thresholds.md P6: rp_cnp_ignored "should not raise ... verify ECN enabled" [NE-ib]. */
  public static final ThresholdSchema ECN_MISCONFIG =
      ThresholdSchema.builder()
          .integer(
              "cnp_ignored",
              1,
              1,
              1_000_000_000L,
              "increase of rp_cnp_ignored in one sample that fires [NE-ib][K-mlx5cc]")
          .duration(
              "window",
              "30s",
              Duration.ofSeconds(1),
              "ECN marks received (np_ecn_marked_roce_packets rising) with np_cnp_sent flat for"
                  + " this long fire; longer than the 10 s hw_counters lifespan cache [K-sysfs]")
          .build();

  /** docs/thresholds.md P6 (our reading): PFC doing the congestion control ECN should do. */
  public static final ThresholdSchema ECN_NOT_EFFECTIVE =
      ThresholdSchema.builder()
          .priorities(
              "lossless_priorities",
              List.of(3),
              "priorities whose pause ratio is watched (the RDMA priority) [K-ethdoc]")
          .ratio(
              "pause_ratio",
              0.2,
              "pause ratio (rx or tx pause microseconds / elapsed microseconds) at or above which"
                  + " a sample counts as paused [K-ethdoc]")
          .ratio(
              "storm_ratio",
              0.8,
              "pause ratio at or above which a sample is a pause storm (the pause_storm rule's"
                  + " alert, not this one); such a sample breaks the run [SONIC-pfcwd]")
          .duration(
              "window",
              "60s",
              Duration.ofSeconds(1),
              "paused in the band for this long while no ECN mark or CNP rose")
          .build();

  /** docs/thresholds.md P6: per-priority drops "must be zero" on lossless priorities [K-ethdoc]. */
  public static final ThresholdSchema LOSSLESS_DROP =
      ThresholdSchema.builder()
          .priorities(
              "lossless_priorities",
              List.of(3),
              "priorities whose rx_prio<N>_buf_discard / _cong_discard count [K-ethdoc]")
          .integer(
              "min_drops",
              1,
              1,
              1_000_000_000L,
              "dropped packets in one sample (lossless-priority discards plus rx_out_of_buffer,"
                  + " rx_discards_phy, out_of_buffer) that fire [K-ethdoc][K-mlx5cnt]")
          .build();

  /** Operators' note 002: one 1500-byte hop throttles a 9000 fabric. */
  public static final ThresholdSchema MTU_MISMATCH =
      ThresholdSchema.builder()
          .integer(
              "fabric_mtu",
              0,
              0,
              65_535,
              "the MTU every RoCE netdev must have; 0 = the MTU a strict majority of the"
                  + " cluster's RoCE netdevs report")
          .integer(
              "min_ports",
              3,
              1,
              1_000_000,
              "RoCE netdevs a cluster must report before its majority MTU is trusted")
          .build();

  /** Issue 4 detector 7: a node silent for more than 3 of its own sampling intervals. */
  public static final ThresholdSchema COLLECTOR_SILENT =
      ThresholdSchema.builder()
          .number(
              "missed_intervals",
              3.0,
              1.0,
              null,
              "a node is silent when stream time passes its last sample by more than this many"
                  + " of its sampling intervals")
          .duration(
              "default_interval",
              "1s",
              Duration.ofMillis(1),
              "sampling interval assumed until a node's own is learned")
          .integer(
              "interval_samples",
              9,
              1,
              1000,
              "a node's interval is the median of its last this many sample spacings")
          .duration(
              "grace",
              "10s",
              Duration.ZERO,
              "added to the deadline: fabric.rates merges several producers, so one node's"
                  + " samples can trail stream time by a few seconds without it being silent")
          .build();

  /** docs/thresholds.md F1/F2: 3+ link down events in 10 min [NVS-046][GPUD-flap]. */
  public static final ThresholdSchema LINK_FLAP =
      ThresholdSchema.builder()
          .integer(
              "down_events",
              3,
              1,
              10_000,
              "down events (link_downed increase, ACTIVE -> not ACTIVE, link_down_events_phy;"
                  + " one per physical drop) within window that fire [NVS-046][GPUD-flap]")
          .duration(
              "window",
              "10m",
              Duration.ofSeconds(1),
              "sliding event-time window of the down events [NVS-046]")
          .build();

  /** docs/thresholds.md F2/F5: down >= 4 min with link_downed unchanged [GPUD-drop][NVS-047]. */
  public static final ThresholdSchema LINK_DOWN =
      ThresholdSchema.builder()
          .duration(
              "down_for",
              "4m",
              Duration.ofSeconds(1),
              "a port not ACTIVE this long (stream time) with link_downed unchanged fires"
                  + " [GPUD-drop][NVS-047]")
          .duration(
              "connected_within",
              "7d",
              Duration.ofSeconds(1),
              "only ports seen ACTIVE at most this long before they went down; never-connected"
                  + " ports stay silent [SCK-alerts]")
          .build();

  /**
   * docs/thresholds.md, degraded links (our reading): speed or width below the port's established
   * value.
   */
  public static final ThresholdSchema LINK_DEGRADED =
      ThresholdSchema.builder()
          .integer(
              "consecutive_samples",
              2,
              1,
              1000,
              "ACTIVE samples in a row below the established rate or width before FIRING")
          .duration(
              "settle_time",
              "60s",
              Duration.ofSeconds(0),
              "a higher rate or width held while ACTIVE this long becomes the established value"
                  + " (the first ACTIVE sample establishes it at once; a return to a value the port"
                  + " had established before is accepted at once)")
          .duration(
              "reestablish_after",
              "24h",
              Duration.ofMinutes(1),
              "a lower rate or width held on every ACTIVE sample this long becomes the established"
                  + " value (the port runs slower on purpose): the alert resolves, saying so")
          .build();

  /** docs/thresholds.md B1/B3/B4: NVSentinel's link counter thresholds [NVS-046]. */
  public static final ThresholdSchema PHY_ERRORS =
      ThresholdSchema.builder()
          .number(
              "symbol_error_per_hour",
              120.0,
              0.0,
              null,
              "symbol_error increase over the last hour above which the port fires (IBTA 1e-12"
                  + " BER, fatal) [NVS-046]")
          .number(
              "symbol_error_per_second",
              10.0,
              0.0,
              null,
              "symbol_error per second above which the port fires [NVS-046]")
          .number(
              "link_error_recovery_per_minute",
              5.0,
              0.0,
              null,
              "link_error_recovery increase over the last minute above which it fires [NVS-046]")
          .number(
              "port_rcv_errors_per_second",
              10.0,
              0.0,
              null,
              "port_rcv_errors per second above which it fires [NVS-046]")
          .number(
              "port_xmit_discards_per_second",
              100.0,
              0.0,
              null,
              "port_xmit_discards per second above which it fires [NVS-046]")
          .integer(
              "excessive_buffer_overrun_errors",
              0,
              0,
              1_000_000,
              "excessive_buffer_overrun_errors increase in one sample above which it fires"
                  + " (fatal) [NVS-046]")
          .integer(
              "local_link_integrity_errors",
              0,
              0,
              1_000_000,
              "local_link_integrity_errors increase in one sample above which it fires (fatal)"
                  + " [NVS-046]")
          .build();

  private static final String SM_SOURCE_TIMEOUT_DOC =
      "an SM source (sminfo poller, OpenSM log host) this far behind the most advanced one no"
          + " longer holds back the cluster's event-time order (a quiet or dead OpenSM host); the"
          + " largest value of the cluster's SM rules applies";

  /**
   * Every SM schema has source_timeout: the four SM detectors judge one cluster in one event-time
   * order, built from several sources' partitions (alert-rules/README.md, "Subnet manager").
   */
  public static final ThresholdSchema SM_FAILOVER =
      ThresholdSchema.builder()
          .duration("source_timeout", "2m", Duration.ofSeconds(1), SM_SOURCE_TIMEOUT_DOC)
          .build();

  /**
   * docs/thresholds.md S1: OpenSM's standby polls the master every 10 s x 4 retries, so a handoff
   * takes about 40 s [OSM-base]; a poller sees the gap with up to one poll interval of slack.
   */
  public static final ThresholdSchema SM_ABSENT =
      ThresholdSchema.builder()
          .duration(
              "handoff",
              "40s",
              Duration.ofSeconds(1),
              "OpenSM master handoff bound: 10 s polling x 4 retries [OSM-base]")
          .duration(
              "poll_allowance",
              "10s",
              Duration.ZERO,
              "slack for the sminfo poll interval (one OpenSM sweep period, 10 s [OSM-base]);"
                  + " SM_ABSENT fires when no MASTER answered for longer than handoff +"
                  + " poll_allowance, counted from the first poll that missed it")
          .duration("source_timeout", "2m", Duration.ofSeconds(1), SM_SOURCE_TIMEOUT_DOC)
          .build();

  /**
   * docs/formats.md, OpenSM log and sminfo: the activity count of a live master keeps increasing
   * [SMINFO] (our reading).
   */
  public static final ThresholdSchema SM_HUNG =
      ThresholdSchema.builder()
          .integer(
              "stale_polls",
              3,
              1,
              1000,
              "consecutive MASTER answers of one poller whose activity count did not increase")
          .duration("source_timeout", "2m", Duration.ofSeconds(1), SM_SOURCE_TIMEOUT_DOC)
          .build();

  /**
   * docs/thresholds.md S2: no published sweep-storm threshold (n/f) [OSM-trap]; baseline per
   * fabric.
   */
  public static final ThresholdSchema SM_UNSTABLE =
      ThresholdSchema.builder()
          .integer(
              "max_heavy_sweeps",
              10,
              1,
              1_000_000,
              "heavy sweeps per window above which the SM is unstable (n/f, our default)")
          .duration("window", "10m", Duration.ofSeconds(1), "rolling window for the sweep count")
          .duration("source_timeout", "2m", Duration.ofSeconds(1), SM_SOURCE_TIMEOUT_DOC)
          .build();

  /**
   * docs/thresholds.md E1: DCGM fails on DBE > 0, retired pages >= 63, row-remap failure
   * [DCGM-health].
   */
  public static final ThresholdSchema GPU_ECC =
      ThresholdSchema.builder()
          .integer(
              "uncorrectable_increase",
              1,
              1,
              1_000_000,
              "increase of the uncorrected ECC count (volatile or aggregate) that fires"
                  + " [DCGM-health]")
          .integer(
              "retired_pages",
              63,
              1,
              1_000_000,
              "retired pages (single-bit + double-bit) at or above which the GPU is failed"
                  + " [DCGM-limits]")
          .build();

  /**
   * Operators' requirement [FN-003]: corrected ECC growth is an early ageing signal; DCGM SBE rate.
   */
  public static final ThresholdSchema GPU_ECC_AGING =
      ThresholdSchema.builder()
          .integer(
              "corrected_growth",
              10,
              1,
              1_000_000_000L,
              "growth of the corrected ECC count within window above which the GPU is ageing")
          .duration("window", "1h", Duration.ofMinutes(1), "rolling window of the growth")
          .build();

  /** docs/thresholds.md E2/E4: Xids are events; repeats are counted, not lost [DCGMX-239]. */
  public static final ThresholdSchema GPU_XID =
      ThresholdSchema.builder()
          .integer(
              "min_count",
              1,
              1,
              1_000_000,
              "Xids of one code on one GPU, each within the rule's hysteresis of the previous"
                  + " one, before FIRING [GPUD-xid]")
          .build();

  /** Operators' requirement [FN-003]: GPU temperature above 85 C pages the team. */
  public static final ThresholdSchema GPU_HOT =
      ThresholdSchema.builder()
          .integer("temperature_c", 85, 0, 200, "temperature.gpu above which a sample is hot")
          .duration("duration", "60s", Duration.ZERO, "hot samples must span this before FIRING")
          .build();

  /**
   * docs/thresholds.md G1: GDR expected wherever the inter-node path is IB [NCCL-topo][NCCL-net].
   */
  public static final ThresholdSchema GDR_FALLBACK =
      ThresholdSchema.builder()
          .flag(
              "expect_gdr",
              true,
              "GPUDirect RDMA is expected on the selected nodes; false exempts them (e.g. nodes"
                  + " without peermem)")
          .build();

  /** docs/thresholds.md G2: NCCL on sockets where IB/RoCE is expected [NCCL-ibinit][NCCL-init]. */
  public static final ThresholdSchema NET_FALLBACK_SOCKET =
      ThresholdSchema.builder()
          .choice(
              "expect_net",
              "IB",
              List.of("IB", "any", "Socket"),
              "IB: Socket fires on the selected nodes; any: Socket fires only when the node's port"
                  + " records show an ACTIVE IB/RoCE port; Socket: sockets are expected")
          .build();

  /**
   * docs/thresholds.md F6 and docs/formats.md, NCCL logs: NCCL WARN completion errors, with link
   * events near them.
   */
  public static final ThresholdSchema NCCL_ERROR =
      ThresholdSchema.builder()
          .duration(
              "link_window",
              "60s",
              Duration.ofSeconds(1),
              "port-state changes and link_downed increases of the node this long before the"
                  + " error are attached as evidence (NCCL_IB_TIMEOUT=20 is ~30 s)"
                  + " [NCCL-connect][DBX]")
          .build();

  /**
   * docs/switch-ports.md, ibdiagnet findings: the -W-/-E- lines of an ibdiagnet run's log, by what
   * they are about [IBDIAG-links][IBDIAG-man].
   */
  public static final ThresholdSchema IBDIAGNET_FINDING =
      ThresholdSchema.builder()
          .choice(
              "finding_kind",
              "LINK_SPEED",
              List.of("LINK_SPEED", "LINK_WIDTH", "PORT_COUNTER", "OTHER"),
              "which lines of the run the rule takes (FabricFinding.kind)")
          .choice(
              "min_severity",
              "WARNING",
              List.of("WARNING", "ERROR"),
              "WARNING takes -W- and -E- lines, ERROR only -E- lines")
          .build();

  /**
   * docs/thresholds.md P7: a switch port's PortXmitWait as the share of its bandwidth lost waiting
   * to transmit, each xmit_wait tick standing for {@code bytes_per_tick} bytes that could have gone
   * out [IBDIAG-cong].
   */
  public static final ThresholdSchema XMIT_WAIT =
      ThresholdSchema.builder()
          .ratio(
              "wait_ratio",
              0.1,
              "share of the port's bandwidth lost waiting (xmit_wait ticks/s x bytes_per_tick x 8"
                  + " / port rate) at or above which a sweep counts as congested [IBDIAG-cong]"
                  + " (our reading)")
          .integer(
              "consecutive_samples",
              2,
              1,
              1000,
              "congested sweeps in a row before FIRING (10 min at the 5 min fabric sweep; SckyzO"
                  + " holds 30 min at 1e6 ticks/s) [SCK-alerts]")
          .integer(
              "bytes_per_tick",
              8,
              1,
              4096,
              "bytes one xmit_wait tick stands for: 8 on Quantum, Quantum-2 and Quantum-3"
                  + " ((tick + 1) with PortSamplesControl tick 7); on Switch-IB, Switch-IB 2 and"
                  + " SwitchX 32 per lane, so 128 at 4X [IBDIAG-cong]")
          .build();

  private ThresholdSchemas() {}

  public static ThresholdSchema forDetector(Detector detector) {
    return switch (detector) {
      case PAUSE_STORM -> PAUSE_STORM;
      case PAUSE_PROPAGATION -> PAUSE_PROPAGATION;
      case PFC_MISCONFIG -> PFC_MISCONFIG;
      case ECN_MISCONFIG -> ECN_MISCONFIG;
      case ECN_NOT_EFFECTIVE -> ECN_NOT_EFFECTIVE;
      case LOSSLESS_DROP -> LOSSLESS_DROP;
      case MTU_MISMATCH -> MTU_MISMATCH;
      case COLLECTOR_SILENT -> COLLECTOR_SILENT;
      case LINK_FLAP -> LINK_FLAP;
      case LINK_DOWN -> LINK_DOWN;
      case LINK_DEGRADED -> LINK_DEGRADED;
      case PHY_ERRORS -> PHY_ERRORS;
      case SM_FAILOVER -> SM_FAILOVER;
      case SM_ABSENT -> SM_ABSENT;
      case SM_HUNG -> SM_HUNG;
      case SM_UNSTABLE -> SM_UNSTABLE;
      case GPU_ECC -> GPU_ECC;
      case GPU_ECC_AGING -> GPU_ECC_AGING;
      case GPU_XID -> GPU_XID;
      case GPU_HOT -> GPU_HOT;
      case GDR_FALLBACK -> GDR_FALLBACK;
      case NET_FALLBACK_SOCKET -> NET_FALLBACK_SOCKET;
      case NCCL_ERROR -> NCCL_ERROR;
      case IBDIAGNET_FINDING -> IBDIAGNET_FINDING;
      case XMIT_WAIT -> XMIT_WAIT;
      default -> ThresholdSchema.empty();
    };
  }
}
