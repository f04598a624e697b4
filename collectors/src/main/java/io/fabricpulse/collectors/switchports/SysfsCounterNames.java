package io.fabricpulse.collectors.switchports;

import java.util.Map;

/**
 * The sysfs name of each IB PMA counter perfquery prints: a switch port's counters are published
 * under the names a host port's counters carry ({@code ports/N/counters/*}, docs/counters.md), so
 * the rate stage and every reader of fabric.rates treat both ends of a cable alike. Both name the
 * same PortCounters / PortCountersExtended fields [K-sysfs][PQ]; a name without a sysfs file
 * ({@code QP1Dropped}) keeps its perfquery name.
 */
public final class SysfsCounterNames {
  private static final Map<String, String> SYSFS =
      Map.ofEntries(
          Map.entry("SymbolErrorCounter", "symbol_error"),
          Map.entry("LinkErrorRecoveryCounter", "link_error_recovery"),
          Map.entry("LinkDownedCounter", "link_downed"),
          Map.entry("PortRcvErrors", "port_rcv_errors"),
          Map.entry("PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors"),
          Map.entry("PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors"),
          Map.entry("PortXmitDiscards", "port_xmit_discards"),
          Map.entry("PortXmitConstraintErrors", "port_xmit_constraint_errors"),
          Map.entry("PortRcvConstraintErrors", "port_rcv_constraint_errors"),
          Map.entry("LocalLinkIntegrityErrors", "local_link_integrity_errors"),
          Map.entry("ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors"),
          Map.entry("VL15Dropped", "VL15_dropped"),
          Map.entry("PortXmitData", "port_xmit_data"),
          Map.entry("PortRcvData", "port_rcv_data"),
          Map.entry("PortXmitPkts", "port_xmit_packets"),
          Map.entry("PortRcvPkts", "port_rcv_packets"),
          Map.entry("PortXmitWait", "port_xmit_wait"),
          Map.entry("PortUnicastXmitPkts", "unicast_xmit_packets"),
          Map.entry("PortUnicastRcvPkts", "unicast_rcv_packets"),
          Map.entry("PortMulticastXmitPkts", "multicast_xmit_packets"),
          Map.entry("PortMulticastRcvPkts", "multicast_rcv_packets"));

  private SysfsCounterNames() {}

  /** {@code symbol_error} for {@code SymbolErrorCounter}; an unknown name unchanged. */
  public static String of(String perfqueryName) {
    return SYSFS.getOrDefault(perfqueryName, perfqueryName);
  }
}
