package io.fabricpulse.collectors.lldp;

import java.util.Set;

/**
 * One LLDP neighbour as lldpd reports it: who is at the other end of one local interface.
 *
 * @param localInterface the local interface the neighbour was heard on ({@code ens9f0np0}, {@code
 *     swp51})
 * @param chassisIdType the chassis ID subtype as lldpcli names it: {@code mac}, {@code ip}, {@code
 *     ifname}, {@code ifalias} or {@code local}
 * @param chassisId the chassis ID ({@code 1c:34:da:71:0c:0c} for {@code mac})
 * @param systemName SysName ({@code leaf-r01}); null when the neighbour sends none
 * @param capabilitiesEnabled the enabled system capabilities ({@code Bridge}, {@code Router},
 *     {@code Station}, ...)
 * @param portIdType the port ID subtype: {@code ifname} (switches configured as Cumulus Linux and
 *     SONiC do), {@code mac} (lldpd's default on a Linux host), {@code local}, ...
 * @param portId the port ID ({@code swp12})
 * @param portDescription PortDescr (lldpd puts the interface name there when the ID is a MAC); null
 *     when sent none
 * @param line the 1-based line of the neighbour's first key
 */
public record LldpNeighbor(
    String localInterface,
    String chassisIdType,
    String chassisId,
    String systemName,
    Set<String> capabilitiesEnabled,
    String portIdType,
    String portId,
    String portDescription,
    long line) {

  public LldpNeighbor {
    capabilitiesEnabled = Set.copyOf(capabilitiesEnabled);
  }

  /** A switch or router: it advertises the Bridge or Router capability as enabled. */
  public boolean isSwitch() {
    return capabilitiesEnabled.contains("Bridge") || capabilitiesEnabled.contains("Router");
  }

  /** A host: only the Station capability is enabled. */
  public boolean isStation() {
    return capabilitiesEnabled.equals(Set.of("Station"));
  }

  /**
   * The neighbour's interface name: its port ID when that is a name, else its port description
   * (lldpd on a host sends the MAC as ID and the netdev as description); null when neither names
   * it.
   */
  public String portName() {
    if (!portIdType.equals("mac") && !portIdType.equals("ip")) {
      return portId;
    }
    return portDescription;
  }
}
