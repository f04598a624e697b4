package io.fabricpulse.collectors.ibdiagnet;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The counters of one port section of {@code ibdiagnet2.pm} ({@code ibdiagnet2.pm_info} in older
 * write-ups).
 *
 * @param runTime the file's {@code Running timestamp}; null when it has none
 * @param guid the port's GUID as printed (a switch's node GUID), normalized
 * @param lid the port's LID ({@code Lid=0x00b4} is 180)
 * @param port the port number
 * @param deviceId the PCI device id ibdiagnet prints as {@code Device=} (54002 is a Quantum-2)
 * @param portName ibdiagnet's name of the port ({@code ib-switch-sequoia/U1/P1/1/2})
 * @param counters raw values by ibdiagnet's counter name, in file order ({@code
 *     symbol_error_counter}, {@code link_down_counter}, {@code port_xmit_data_extended}, ...); the
 *     32-bit attribute's counters saturate at 0xffffffff, the {@code _extended} ones are 64-bit
 * @param unavailable names whose value is {@code NA} (the device does not implement the counter)
 * @param line the 1-based line of the section's {@code Port=} header
 */
public record IbdiagnetPortCounters(
    Instant runTime,
    String guid,
    int lid,
    int port,
    int deviceId,
    String portName,
    Map<String, Long> counters,
    List<String> unavailable,
    long line) {

  public IbdiagnetPortCounters {
    counters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(counters));
    unavailable = List.copyOf(unavailable);
  }
}
