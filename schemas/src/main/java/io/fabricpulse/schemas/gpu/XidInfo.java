package io.fabricpulse.schemas.gpu;

import io.fabricpulse.avro.Severity;

/**
 * What an Xid code means and what to do about it.
 *
 * @param mnemonic NVIDIA's name for the code (e.g. ROBUST_CHANNEL_GPU_ECC_DBE)
 * @param description NVIDIA's one-line description
 * @param severity our alert severity for one occurrence (see {@link XidCatalog})
 * @param action NVIDIA's immediate resolution bucket (RESTART_APP, RESET_GPU, RESTART_BM, IGNORE,
 *     WORKFLOW_...) followed by a short operator hint
 */
public record XidInfo(
    int code, String mnemonic, String description, Severity severity, String action) {}
