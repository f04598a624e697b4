package io.fabricpulse.streams.rules;

import java.time.Duration;
import java.util.List;

/**
 * The threshold schema of every detector, with defaults from DOMAIN.md section 3 (source keys in
 * the docs). A detector without a case here accepts no thresholds: any key is reported as unknown.
 * To add one: write a constant below and a case in {@link #forDetector}.
 */
public final class ThresholdSchemas {

  /** DOMAIN.md 3.2 P3/P4: SONiC's 0.8 factor, N consecutive polls; P2 mlx5 storm events. */
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
          .build();

  /** DOMAIN.md 3.2 P4 "Beat": fabric-wide attribution of the source NIC. */
  public static final ThresholdSchema PAUSE_PROPAGATION =
      ThresholdSchema.builder()
          .integer("min_nodes", 3, 2, 100_000, "nodes with a pause storm that make an incident")
          .duration(
              "window",
              "30s",
              Duration.ofSeconds(1),
              "a storm that resolved less than this long ago still counts towards min_nodes")
          .build();

  /** DOMAIN.md 3.2 P6: PFC only on the RDMA (lossless) priority [K-ethdoc]. */
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

  /**
   * DOMAIN.md 3.6 S1: OpenSM's standby polls the master every 10 s x 4 retries, so a handoff takes
   * about 40 s [OSM-base]; a poller sees the gap with up to one poll interval of slack.
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
          .build();

  /** DOMAIN.md 2.5: the activity count of a live master keeps increasing [SMINFO] (our reading). */
  public static final ThresholdSchema SM_HUNG =
      ThresholdSchema.builder()
          .integer(
              "stale_polls",
              3,
              1,
              1000,
              "consecutive MASTER answers of one poller whose activity count did not increase")
          .build();

  /** DOMAIN.md 3.6 S2: no published sweep-storm threshold (n/f) [OSM-trap]; baseline per fabric. */
  public static final ThresholdSchema SM_UNSTABLE =
      ThresholdSchema.builder()
          .integer(
              "max_heavy_sweeps",
              10,
              1,
              1_000_000,
              "heavy sweeps per window above which the SM is unstable (n/f, our default)")
          .duration("window", "10m", Duration.ofSeconds(1), "rolling window for the sweep count")
          .build();

  /**
   * DOMAIN.md 3.5 E1: DCGM fails on DBE > 0, retired pages >= 63, row-remap failure [DCGM-health].
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

  /** Operators' field note 003: corrected ECC growth is an early ageing signal; DCGM SBE rate. */
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

  /** DOMAIN.md 3.5 E2/E4: Xids are events; repeats are counted, not lost [DCGMX-239]. */
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

  /** Operators' field note 003: GPU temperature above 85 C pages the team. */
  public static final ThresholdSchema GPU_HOT =
      ThresholdSchema.builder()
          .integer("temperature_c", 85, 0, 200, "temperature.gpu above which a sample is hot")
          .duration("duration", "60s", Duration.ZERO, "hot samples must span this before FIRING")
          .build();

  private ThresholdSchemas() {}

  public static ThresholdSchema forDetector(Detector detector) {
    return switch (detector) {
      case PAUSE_STORM -> PAUSE_STORM;
      case PAUSE_PROPAGATION -> PAUSE_PROPAGATION;
      case PFC_MISCONFIG -> PFC_MISCONFIG;
      case SM_ABSENT -> SM_ABSENT;
      case SM_HUNG -> SM_HUNG;
      case SM_UNSTABLE -> SM_UNSTABLE;
      case GPU_ECC -> GPU_ECC;
      case GPU_ECC_AGING -> GPU_ECC_AGING;
      case GPU_XID -> GPU_XID;
      case GPU_HOT -> GPU_HOT;
      default -> ThresholdSchema.empty();
    };
  }
}
