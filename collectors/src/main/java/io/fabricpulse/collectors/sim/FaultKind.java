package io.fabricpulse.collectors.sim;

import io.fabricpulse.avro.AlertKind;
import java.util.List;
import java.util.Optional;

/**
 * Every kind of trouble the fabric simulator can script (issue 3), with the alert each must raise.
 * {@link #COUNTER_CLEAR} and {@link #NODE_REBOOT} are the negative cases: they change counters the
 * way real clears and reboots do and must raise no alert.
 */
public enum FaultKind {
  /** PFC pause storm from one NIC spreading to its neighbours (ethtool source). */
  PFC_PAUSE_STORM(Source.ETHTOOL, AlertKind.PAUSE_STORM),
  /** Port goes DOWN and back ACTIVE repeatedly; link_downed increments at each drop. */
  LINK_FLAP(Source.PORT, AlertKind.LINK_FLAP),
  /** Port DOWN for minutes, then back. */
  LINK_DOWN(Source.PORT, AlertKind.LINK_DOWN),
  /** Port comes back slower or narrower, e.g. 400 Gb/sec (4X NDR) to 200 Gb/sec (4X HDR). */
  LINK_DEGRADED(Source.PORT, AlertKind.LINK_DEGRADED),
  /** symbol_error (and port_rcv_errors) climbing fast for a while. */
  SYMBOL_ERROR_BURST(Source.PORT, AlertKind.PHY_ERRORS),
  /** Subnet manager master moves to another node (OpenSM log, sminfo). */
  SM_FAILOVER(Source.SM, AlertKind.SM_FAILOVER),
  /** Correctable GPU ECC errors growing (nvidia-smi). */
  GPU_ECC_GROWTH(Source.GPU, AlertKind.GPU_ECC_AGING),
  /** An uncorrectable GPU ECC error (nvidia-smi, Xid 48). */
  GPU_ECC_UNCORRECTABLE(Source.GPU, AlertKind.GPU_ECC_UNCORRECTABLE),
  /** A row marked for remapping, pending until the GPU is reset (nvidia-smi, Xid 63). */
  GPU_ROW_REMAP_PENDING(Source.GPU, AlertKind.GPU_RESET_REQUIRED),
  /** NCCL job without GPUDirect RDMA (peermem missing): NET/IB without GDRDMA. */
  NCCL_GDR_FALLBACK(Source.NCCL, AlertKind.GDR_FALLBACK),
  /** NCCL job on sockets instead of IB. */
  NCCL_SOCKET_FALLBACK(Source.NCCL, AlertKind.NET_FALLBACK_SOCKET),
  /** Every PMA counter of a port reset to 0 without a reboot (perfquery -R, OpenSM PerfMgr). */
  COUNTER_CLEAR(Source.PORT, null),
  /** The node reboots: new boot_id, every counter restarts from 0. */
  NODE_REBOOT(Source.NODE, null),
  /** PFC pause frames on a priority that should be lossy (PFC enabled on prio 0 by mistake). */
  PFC_MISCONFIG(Source.ETHTOOL, AlertKind.PFC_MISCONFIG),
  /** The RoCE reaction point ignores CNPs (DCQCN off): rp_cnp_ignored rising [NE-ib]. */
  ECN_MISCONFIG(Source.ETHTOOL, AlertKind.ECN_MISCONFIG),
  /** Drops on the lossless priority: rx_prio3_buf_discard and rx_out_of_buffer rising. */
  LOSSLESS_DROP(Source.ETHTOOL, AlertKind.LOSSLESS_DROP),
  /** One netdev at MTU 1500 while the fabric runs 9000 (sysfs class/net/NETDEV/mtu, netdev_mtu). */
  MTU_MISMATCH(Source.PORT, AlertKind.MTU_MISMATCH),
  /** A GPU running hot (temperature.gpu around 92 C). */
  GPU_HOT(Source.GPU, AlertKind.GPU_HOT),
  /**
   * A leaf-spine cable goes down and up again and again: LinkDownedCounter rises at both ends (the
   * fabric role's perfquery sweep), one LINK_FLAP incident over the two switch ports.
   */
  ISL_FLAP(Source.FABRIC, AlertKind.LINK_FLAP),
  /** A dirty leaf-spine cable: the spine port's SymbolErrorCounter rises every second. */
  ISL_SYMBOL_ERRORS(Source.FABRIC, AlertKind.PHY_ERRORS),
  /**
   * A leaf-spine cable trains at 2X while both ends support 4X: iblinkinfo's {@code Could be 4X},
   * one LINK_BELOW_CAPABILITY for the cable; the width also fell from what the ports ran before,
   * which is one LINK_DEGRADED incident over both ends.
   */
  ISL_NARROW_WIDTH(Source.FABRIC, AlertKind.LINK_BELOW_CAPABILITY, AlertKind.LINK_DEGRADED);

  /** Which collector source shows the fault. */
  public enum Source {
    PORT,
    ETHTOOL,
    SM,
    GPU,
    NCCL,
    NODE,
    /** The fabric role's sweep of the switches (iblinkinfo, perfquery). */
    FABRIC
  }

  private final Source source;
  private final AlertKind expectedAlert;
  private final List<AlertKind> alsoExpected;

  FaultKind(Source source, AlertKind expectedAlert, AlertKind... alsoExpected) {
    this.source = source;
    this.expectedAlert = expectedAlert;
    this.alsoExpected = List.of(alsoExpected);
  }

  public Source source() {
    return source;
  }

  /** The alert a correct pipeline raises for this fault; empty when it must raise none. */
  public Optional<AlertKind> expectedAlert() {
    return Optional.ofNullable(expectedAlert);
  }

  /** Further alerts, of other kinds, a correct pipeline also raises for this fault. */
  public List<AlertKind> alsoExpected() {
    return alsoExpected;
  }
}
