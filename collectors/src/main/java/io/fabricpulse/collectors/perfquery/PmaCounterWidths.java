package io.fabricpulse.collectors.perfquery;

import java.util.Map;

/**
 * Declared widths of the IB PMA counters under their perfquery names: the PortCounters attribute
 * (libibmad fields.c, the same widths as the kernel's sysfs.c table in docs/counters.md [K-sysfs])
 * and PortCountersExtended, where every counter is 64-bit, including the error counters that PMAs
 * with {@code IsAdditionalPortCountersExtendedSupported} (CapMask2 bit 1) add after {@code
 * CounterSelect2} [PQ]. Counters of width below 64 saturate at all ones [IBbook].
 */
public final class PmaCounterWidths {
  public static final int EXTENDED_WIDTH = 64;

  /** Width of an unknown name in a PortCounters section: the widest PortCounters field. */
  public static final int BASIC_DEFAULT_WIDTH = 32;

  private static final Map<String, Integer> BASIC =
      Map.ofEntries(
          Map.entry("SymbolErrorCounter", 16),
          Map.entry("LinkErrorRecoveryCounter", 8),
          Map.entry("LinkDownedCounter", 8),
          Map.entry("PortRcvErrors", 16),
          Map.entry("PortRcvRemotePhysicalErrors", 16),
          Map.entry("PortRcvSwitchRelayErrors", 16),
          Map.entry("PortXmitDiscards", 16),
          Map.entry("PortXmitConstraintErrors", 8),
          Map.entry("PortRcvConstraintErrors", 8),
          Map.entry("LocalLinkIntegrityErrors", 4),
          Map.entry("ExcessiveBufferOverrunErrors", 4),
          Map.entry("VL15Dropped", 16),
          Map.entry("QP1Dropped", 16),
          Map.entry("PortXmitData", 32),
          Map.entry("PortRcvData", 32),
          Map.entry("PortXmitPkts", 32),
          Map.entry("PortRcvPkts", 32),
          Map.entry("PortXmitWait", 32));

  private PmaCounterWidths() {}

  /** Width of a counter read through the PortCounters attribute ({@code perfquery} without -x). */
  public static int basic(String perfqueryName) {
    return BASIC.getOrDefault(perfqueryName, BASIC_DEFAULT_WIDTH);
  }

  /** Whether the name is one of the PortCounters attribute's counters. */
  public static boolean isBasicCounter(String perfqueryName) {
    return BASIC.containsKey(perfqueryName);
  }
}
