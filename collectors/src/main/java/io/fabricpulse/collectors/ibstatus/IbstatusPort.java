package io.fabricpulse.collectors.ibstatus;

import io.fabricpulse.collectors.fabric.IbSpeed;

/**
 * One port of {@code ibstatus} output.
 *
 * @param device the device name ({@code mlx5_0})
 * @param port the port number
 * @param defaultGid {@code default gid:}, or null when it reads {@code unknown}
 * @param baseLid {@code base lid:} ({@code 0x33bf} is 13247)
 * @param smLid {@code sm lid:}
 * @param state {@code state:} without its number ({@code ACTIVE} of {@code 4: ACTIVE})
 * @param physicalState {@code phys state:} without its number ({@code LinkUp} of {@code 5: LinkUp})
 * @param rateGbps the total rate ({@code 200} of {@code 200 Gb/sec (4X HDR)})
 * @param width lanes ({@code 4} of {@code 4X HDR}); null when not printed
 * @param speed the lane speed's name ({@code HDR}); null when not printed ({@code 10 Gb/sec (4X)})
 * @param linkLayer {@code link_layer:} ({@code InfiniBand}, {@code Ethernet})
 * @param line the 1-based line of the {@code Infiniband device ... status:} header
 */
public record IbstatusPort(
    String device,
    int port,
    String defaultGid,
    Integer baseLid,
    Integer smLid,
    String state,
    String physicalState,
    Double rateGbps,
    Integer width,
    IbSpeed speed,
    String linkLayer,
    long line) {}
