package io.fabricpulse.collectors.ibstat;

/**
 * One port of {@code ibstat} output.
 *
 * @param device the CA name ({@code mlx5_0})
 * @param caType {@code CA type:} ({@code MT4129} is a ConnectX-7); null when not printed
 * @param firmware {@code Firmware version:}; null when not printed
 * @param nodeGuid {@code Node GUID:}, normalized; null when not printed
 * @param port the port number
 * @param state {@code State:} ({@code Active}, {@code Down}, {@code Initializing}, ...)
 * @param physicalState {@code Physical state:} ({@code LinkUp}, {@code Polling}, {@code Disabled})
 * @param rateGbps {@code Rate:}, the port's total rate in Gb/s (width x lane speed); null when not
 *     printed
 * @param baseLid {@code Base lid:}; null when not printed
 * @param smLid {@code SM lid:}; null when not printed
 * @param portGuid {@code Port GUID:}, normalized; null when not printed
 * @param linkLayer {@code Link layer:} ({@code InfiniBand}, {@code Ethernet}); null when not
 *     printed
 * @param line the 1-based line of the {@code Port N:} header
 */
public record IbstatPort(
    String device,
    String caType,
    String firmware,
    String nodeGuid,
    int port,
    String state,
    String physicalState,
    Double rateGbps,
    Integer baseLid,
    Integer smLid,
    String portGuid,
    String linkLayer,
    long line) {}
