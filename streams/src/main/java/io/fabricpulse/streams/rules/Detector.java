package io.fabricpulse.streams.rules;

import io.fabricpulse.avro.AlertKind;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The detectors a rule can name ({@code detector:} in alert-rules/*.yaml). A new detector adds a
 * constant here and, when it takes thresholds, a case in {@link ThresholdSchemas}.
 */
public enum Detector {
  PAUSE_STORM("pause_storm", AlertKind.PAUSE_STORM),
  PAUSE_PROPAGATION("pause_propagation", AlertKind.PAUSE_PROPAGATION),
  PFC_MISCONFIG("pfc_misconfig", AlertKind.PFC_MISCONFIG),
  LINK_FLAP("link_flap", AlertKind.LINK_FLAP),
  LINK_DOWN("link_down", AlertKind.LINK_DOWN),
  LINK_DEGRADED("link_degraded", AlertKind.LINK_DEGRADED),
  PHY_ERRORS("phy_errors", AlertKind.PHY_ERRORS),
  GDR_FALLBACK("gdr_fallback", AlertKind.GDR_FALLBACK),
  NET_FALLBACK_SOCKET("net_fallback_socket", AlertKind.NET_FALLBACK_SOCKET),
  NCCL_ERROR("nccl_error", AlertKind.NCCL_ERROR),
  SM_FAILOVER("sm_failover", AlertKind.SM_FAILOVER),
  SM_ABSENT("sm_absent", AlertKind.SM_ABSENT),
  SM_HUNG("sm_hung", AlertKind.SM_HUNG),
  SM_UNSTABLE("sm_unstable", AlertKind.SM_UNSTABLE),
  GPU_ECC("gpu_ecc", AlertKind.GPU_ECC_UNCORRECTABLE),
  GPU_RESET_REQUIRED("gpu_reset_required", AlertKind.GPU_RESET_REQUIRED),
  GPU_ECC_AGING("gpu_ecc_aging", AlertKind.GPU_ECC_AGING),
  GPU_XID("gpu_xid", AlertKind.GPU_XID),
  GPU_HOT("gpu_hot", AlertKind.GPU_HOT),
  ECN_MISCONFIG("ecn_misconfig", AlertKind.ECN_MISCONFIG),
  ECN_NOT_EFFECTIVE("ecn_not_effective", AlertKind.ECN_NOT_EFFECTIVE),
  LOSSLESS_DROP("lossless_drop", AlertKind.LOSSLESS_DROP),
  MTU_MISMATCH("mtu_mismatch", AlertKind.MTU_MISMATCH),
  COLLECTOR_SILENT("collector_silent", AlertKind.COLLECTOR_SILENT),
  IBDIAGNET_FINDING("ibdiagnet_finding", AlertKind.IBDIAGNET_FINDING),
  LINK_BELOW_CAPABILITY("link_below_capability", AlertKind.LINK_BELOW_CAPABILITY),
  XMIT_WAIT("xmit_wait", AlertKind.XMIT_WAIT);

  private final String id;
  private final AlertKind defaultKind;

  Detector(String id, AlertKind defaultKind) {
    this.id = id;
    this.defaultKind = defaultKind;
  }

  /** The name used in rule files, e.g. {@code pause_storm}. */
  public String id() {
    return id;
  }

  /** The alert kind this detector raises (a detector may raise finer kinds, e.g. gpu_ecc). */
  public AlertKind defaultKind() {
    return defaultKind;
  }

  public ThresholdSchema thresholdSchema() {
    return ThresholdSchemas.forDetector(this);
  }

  public static Optional<Detector> fromId(String id) {
    return Arrays.stream(values()).filter(d -> d.id.equals(id)).findFirst();
  }

  /** All ids, comma separated, for error messages and documentation. */
  public static String allIds() {
    return Arrays.stream(values()).map(Detector::id).collect(Collectors.joining(", "));
  }
}
