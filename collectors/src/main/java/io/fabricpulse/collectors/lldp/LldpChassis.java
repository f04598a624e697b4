package io.fabricpulse.collectors.lldp;

import java.util.Set;

/**
 * The local system as lldpd advertises it ({@code lldpcli -f keyvalue show chassis}): the identity
 * its neighbours see, so a switch's own view of a cable and its neighbour's view give one link.
 *
 * @param idType the chassis ID subtype ({@code mac}, ...)
 * @param id the chassis ID
 * @param name SysName; null when none is set
 * @param capabilitiesEnabled the enabled system capabilities
 */
public record LldpChassis(String idType, String id, String name, Set<String> capabilitiesEnabled) {
  public LldpChassis {
    capabilitiesEnabled = Set.copyOf(capabilitiesEnabled);
  }
}
