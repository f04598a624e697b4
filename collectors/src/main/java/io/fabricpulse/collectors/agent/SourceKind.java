package io.fabricpulse.collectors.agent;

import java.time.Duration;

/** The sources of the node agent, with their configuration section and default interval. */
public enum SourceKind {
  /**
   * IB/RoCE port counters from sysfs, every second (docs/design.md section 1: one record per port).
   */
  SYSFS("sysfs", Duration.ofSeconds(1), true),
  /** ethtool -S PFC/ECN counters of the RoCE netdevs. */
  ETHTOOL("ethtool", Duration.ofSeconds(1), true),
  /** nvidia-smi ECC, retired pages, remapped rows and temperatures: slow to run, every 10 s. */
  GPU("gpu", Duration.ofSeconds(10), true),
  /** Kernel log Xid lines: polled each second from a reader thread. */
  KMSG("kmsg", Duration.ofSeconds(1), true),
  /** sminfo: who is SM master. Needs infiniband-diags and umad access, so off by default. */
  SMINFO("sminfo", Duration.ofSeconds(10), false),
  /** The OpenSM log, on the SM hosts only, so off by default. */
  OPENSM("opensm", Duration.ofSeconds(1), false),
  /** NCCL_DEBUG logs of the jobs; needs globs, so off by default. */
  NCCL("nccl", Duration.ofSeconds(1), false),
  /**
   * The fabric's links from ibnetdiscover/iblinkinfo sweeps and new ibdiagnet runs: one host per
   * fabric (the SM or a management host), so off by default; every 5 minutes, at least every minute
   * (a sweep sends SMPs to every port of the fabric).
   */
  FABRIC("fabric", Duration.ofMinutes(5), false),
  /**
   * The Ethernet (RoCE) links lldpd's neighbours show: needs lldpd running on the node, so off by
   * default; every 30 s (lldpd sends a frame every 30 s and keeps a neighbour 120 s).
   */
  LLDP("lldp", Duration.ofSeconds(30), false);

  private final String section;
  private final Duration defaultInterval;
  private final boolean enabledByDefault;

  SourceKind(String section, Duration defaultInterval, boolean enabledByDefault) {
    this.section = section;
    this.defaultInterval = defaultInterval;
    this.enabledByDefault = enabledByDefault;
  }

  /** The configuration section, {@code sources.<section>}. */
  public String section() {
    return section;
  }

  public Duration defaultInterval() {
    return defaultInterval;
  }

  public boolean enabledByDefault() {
    return enabledByDefault;
  }

  /** The full key of one option of this source, e.g. {@code sources.sysfs.interval}. */
  public String key(String option) {
    return "sources." + section + "." + option;
  }
}
