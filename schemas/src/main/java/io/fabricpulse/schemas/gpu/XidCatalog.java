package io.fabricpulse.schemas.gpu;

import io.fabricpulse.avro.Severity;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The Xid codes a GPU fleet acts on, with NVIDIA's meaning and resolution bucket.
 *
 * <p>Sources: NVIDIA Xid catalog for Ampere and newer, "Analyzing Xid Errors with the Xid Catalog"
 * (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html) [NV-xidcat]: mnemonic,
 * description and "Resolution Bucket (Immediate Action)"; gpud [GPUD-xid] and DCGM health
 * [DCGM-health] for which codes are fatal (48/95/140 uncorrectable or uncontained, 63/64 row remap,
 * 92 high SBE rate; DCGM fails on an uncontained Xid).
 *
 * <p>Severity (our reading, one occurrence): CRITICAL when NVIDIA's immediate action is a GPU reset
 * or a bare-metal restart, or the error is uncorrectable/uncontained memory or NVLink; WARNING when
 * the application must restart or the memory subsystem is degrading (contained error, row remap
 * pending, high SBE rate); INFO when NVIDIA says IGNORE and the GPU stays healthy. Repeats within a
 * window are the detector's business (gpud reboots after 2, [GPUD-xid]).
 *
 * <p>It lives in the schemas module because both the kmsg collector and the streams GPU_XID
 * detector read it, and streams must not depend on collectors at compile scope.
 */
public final class XidCatalog {
  private static final Map<Integer, XidInfo> BY_CODE = new TreeMap<>();

  static {
    add(
        8,
        "ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT",
        "GPU stopped processing",
        Severity.WARNING,
        "RESTART_APP; contact support if it repeats");
    add(
        13,
        "ROBUST_CHANNEL_GR_EXCEPTION",
        "Graphics Engine Exception",
        Severity.WARNING,
        "RESTART_APP; usually an application fault (run compute-sanitizer)");
    add(
        31,
        "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT",
        "GPU memory page fault",
        Severity.WARNING,
        "RESTART_APP; usually an illegal address in the application");
    add(
        43,
        "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
        "GPU stopped processing",
        Severity.INFO,
        "IGNORE; the application hit a software fault, the GPU stays healthy");
    add(
        45,
        "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL",
        "Preemptive cleanup, due to previous errors",
        Severity.INFO,
        "WORKFLOW_XID_45; alone: application aborted, else follow the other Xid");
    add(
        46,
        "ROBUST_CHANNEL_GPU_TIMEOUT_ERROR",
        "GPU stopped processing",
        Severity.CRITICAL,
        "RESET_GPU");
    add(
        48,
        "ROBUST_CHANNEL_GPU_ECC_DBE",
        "Double Bit ECC Error",
        Severity.CRITICAL,
        "WORKFLOW_XID_48; reset the GPU, check SRAM threshold, RMA if exceeded");
    // Unused on Ampere and newer; on older GPUs: internal micro-controller breakpoint/warning.
    add(
        61,
        "PMU_BREAKPOINT",
        "Internal micro-controller breakpoint/warning",
        Severity.WARNING,
        "CONTACT_SUPPORT; reset the GPU if it repeats");
    add(62, "PMU_HALT_ERROR", "Internal micro-controller halt", Severity.CRITICAL, "RESET_GPU");
    add(
        63,
        "INFOROM_DRAM_RETIREMENT_EVENT",
        "GPU memory remapping event",
        Severity.WARNING,
        "IGNORE per NVIDIA; a row remap or page retirement is pending until the"
            + " next GPU reset: reset when convenient");
    add(
        64,
        "INFOROM_DRAM_RETIREMENT_FAILURE",
        "GPU memory remapping failure",
        Severity.CRITICAL,
        "RESET_GPU; contact support (remap failed)");
    add(
        74,
        "NVLINK_ERROR",
        "NVLINK Error",
        Severity.CRITICAL,
        "WORKFLOW_NVLINK_ERR; reset GPU or reboot node, check the peer end");
    add(
        79,
        "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
        "GPU has fallen off the bus",
        Severity.CRITICAL,
        "RESTART_BM; check PCIe link and system event log");
    add(
        92,
        "EXCESSIVE_SBE_INTERRUPTS",
        "High single-bit ECC error rate",
        Severity.WARNING,
        "IGNORE per NVIDIA; watch ECC counters, contact support if it persists");
    add(
        94,
        "ROBUST_CHANNEL_CONTAINED_ERROR",
        "Contained memory error",
        Severity.WARNING,
        "RESTART_APP; reset the GPU when convenient");
    add(
        95,
        "ROBUST_CHANNEL_UNCONTAINED_ERROR",
        "Uncontained memory error",
        Severity.CRITICAL,
        "RESET_GPU before applications restart");
    add(
        109,
        "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR",
        "Context Switch Timeout Error",
        Severity.CRITICAL,
        "RESET_GPU");
    add(
        119,
        "GSP_RPC_TIMEOUT",
        "GSP RPC Timeout",
        Severity.CRITICAL,
        "RESET_GPU; power-cycle the node if it persists");
    add(
        120,
        "GSP_ERROR",
        "GSP Error",
        Severity.CRITICAL,
        "RESET_GPU; power-cycle the node if it persists");
    add(
        140,
        "UNRECOVERABLE_ECC_ERROR_ESCAPE",
        "ECC Unrecovered Error",
        Severity.CRITICAL,
        "RESET_GPU; contact support if it persists");
  }

  private XidCatalog() {}

  private static void add(
      int code, String mnemonic, String description, Severity severity, String action) {
    BY_CODE.put(code, new XidInfo(code, mnemonic, description, severity, action));
  }

  /** The catalog entry for a code, if we carry one. */
  public static Optional<XidInfo> lookup(int code) {
    return Optional.ofNullable(BY_CODE.get(code));
  }

  /** Severity for a code; unknown codes are WARNING (an Xid is never routine). */
  public static Severity severity(int code) {
    return lookup(code).map(XidInfo::severity).orElse(Severity.WARNING);
  }

  /** Every entry, by code. */
  public static Map<Integer, XidInfo> all() {
    return Collections.unmodifiableMap(BY_CODE);
  }
}
