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

  /** DOMAIN.md 3.7 G1: GDR expected wherever the inter-node path is IB [NCCL-topo][NCCL-net]. */
  public static final ThresholdSchema GDR_FALLBACK =
      ThresholdSchema.builder()
          .flag(
              "expect_gdr",
              true,
              "GPUDirect RDMA is expected on the selected nodes; false exempts them (e.g. nodes"
                  + " without peermem)")
          .build();

  /** DOMAIN.md 3.7 G2: NCCL on sockets where IB/RoCE is expected [NCCL-ibinit][NCCL-init]. */
  public static final ThresholdSchema NET_FALLBACK_SOCKET =
      ThresholdSchema.builder()
          .choice(
              "expect_net",
              "IB",
              List.of("IB", "any", "Socket"),
              "IB: Socket fires on the selected nodes; any: Socket fires only when the node's port"
                  + " records show an ACTIVE IB/RoCE port; Socket: sockets are expected")
          .build();

  /** DOMAIN.md 3.3 F6 and 2.9: NCCL WARN completion errors, with link events near them. */
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

  private ThresholdSchemas() {}

  public static ThresholdSchema forDetector(Detector detector) {
    return switch (detector) {
      case PAUSE_STORM -> PAUSE_STORM;
      case PAUSE_PROPAGATION -> PAUSE_PROPAGATION;
      case PFC_MISCONFIG -> PFC_MISCONFIG;
      case GDR_FALLBACK -> GDR_FALLBACK;
      case NET_FALLBACK_SOCKET -> NET_FALLBACK_SOCKET;
      case NCCL_ERROR -> NCCL_ERROR;
      default -> ThresholdSchema.empty();
    };
  }
}
