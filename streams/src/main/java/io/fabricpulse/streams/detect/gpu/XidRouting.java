package io.fabricpulse.streams.detect.gpu;

import io.fabricpulse.avro.AlertKind;
import java.util.Map;
import java.util.Optional;

/**
 * Xids that are the kernel's side of a fault the nvidia-smi counters also show, so the fault is ONE
 * alert, not an ECC alert plus an Xid alert (docs/thresholds.md E2, gpud's grouping [GPUD-xid]):
 *
 * <ul>
 *   <li>48 (double-bit ECC), 95 (uncontained memory error), 140 (ECC unrecovered): an uncorrectable
 *       ECC error. The Xid raises (or joins) the gpu_ecc alert of its GPU as GPU_ECC_UNCORRECTABLE,
 *       whichever of the Xid and the counter increase comes first.
 *   <li>64 (remap/retirement failure): GPU_ROW_REMAP_FAILURE of the gpu_ecc rule.
 *   <li>63 (row remap / retirement pending, "reset gpu to activate"): GPU_RESET_REQUIRED, or joins
 *       a FIRING gpu_ecc alert of the GPU (which already asks for the reset).
 * </ul>
 *
 * Codes that only accompany such a fault when it is already known fold into the FIRING alert and
 * are otherwise GPU_XID alerts of their own: 94 (contained memory error) into gpu_ecc, 92 (high
 * single-bit ECC rate) into gpu_ecc_aging.
 */
enum XidRouting {
  /** Raises or joins the gpu_ecc alert with {@link #kind}. */
  ECC,
  /** Raises gpu_reset_required, or joins a FIRING gpu_ecc alert. */
  RESET,
  /** Joins a FIRING gpu_ecc alert, else GPU_XID. */
  FOLD_INTO_ECC,
  /** Joins a FIRING gpu_ecc_aging alert, else GPU_XID. */
  FOLD_INTO_AGING,
  /** GPU_XID with the catalog's severity. */
  XID;

  private static final Map<Integer, XidRouting> BY_CODE =
      Map.of(
          48, ECC, 95, ECC, 140, ECC, 64, ECC, 63, RESET, 94, FOLD_INTO_ECC, 92, FOLD_INTO_AGING);

  static XidRouting of(Integer code) {
    return code == null ? XID : BY_CODE.getOrDefault(code, XID);
  }

  /** The gpu_ecc alert kind an {@link #ECC} code raises. */
  static Optional<AlertKind> eccKind(Integer code) {
    if (code == null) {
      return Optional.empty();
    }
    return switch (code) {
      case 64 -> Optional.of(AlertKind.GPU_ROW_REMAP_FAILURE);
      case 48, 95, 140 -> Optional.of(AlertKind.GPU_ECC_UNCORRECTABLE);
      default -> Optional.empty();
    };
  }
}
