package io.fabricpulse.collectors.fabric;

import java.util.Locale;

/**
 * InfiniBand per-lane signalling rates. ibnetdiscover prints the name ({@code 4x EDR}), iblinkinfo
 * the per-lane Gb/s ({@code 4X 25.78125 Gbps}), ibstatus both ({@code 100 Gb/sec (4X EDR)}); the
 * values are those infiniband-diags prints for PortInfo:LinkSpeedActive and LinkSpeedExtActive
 * (docs/formats.md, "Link width and speed").
 */
public enum IbSpeed {
  SDR("2.5"),
  DDR("5.0"),
  QDR("10.0"),
  FDR10("10.3125"),
  FDR("14.0625"),
  EDR("25.78125"),
  HDR("53.125"),
  NDR("106.25"),
  XDR("212.5");

  private final String laneGbps;

  IbSpeed(String laneGbps) {
    this.laneGbps = laneGbps;
  }

  /** The per-lane rate as iblinkinfo prints it, e.g. {@code 25.78125} for EDR. */
  public String laneGbps() {
    return laneGbps;
  }

  /**
   * The speed named {@code name} ({@code EDR}, {@code edr}), or null for {@code ???} and others.
   */
  public static IbSpeed fromName(String name) {
    for (IbSpeed speed : values()) {
      if (speed.name().equals(name.toUpperCase(Locale.ROOT))) {
        return speed;
      }
    }
    return null;
  }

  /**
   * The speed whose per-lane rate is {@code gbps} as printed ({@code 2.5}, {@code 53.125}), or
   * null.
   */
  public static IbSpeed fromLaneGbps(String gbps) {
    for (IbSpeed speed : values()) {
      if (speed.laneGbps.equals(gbps)) {
        return speed;
      }
    }
    return null;
  }
}
