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

  private ThresholdSchemas() {}

  public static ThresholdSchema forDetector(Detector detector) {
    return switch (detector) {
      case PAUSE_STORM -> PAUSE_STORM;
      case PAUSE_PROPAGATION -> PAUSE_PROPAGATION;
      case PFC_MISCONFIG -> PFC_MISCONFIG;
      default -> ThresholdSchema.empty();
    };
  }
}
