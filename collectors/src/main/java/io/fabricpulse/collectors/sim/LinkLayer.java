package io.fabricpulse.collectors.sim;

/** What the simulated HCAs run: native InfiniBand, or RoCE (Ethernet link layer with netdevs). */
public enum LinkLayer {
  INFINIBAND("InfiniBand"),
  ROCE("Ethernet");

  private final String sysfsText;

  LinkLayer(String sysfsText) {
    this.sysfsText = sysfsText;
  }

  /** The content of ports/N/link_layer. */
  public String sysfsText() {
    return sysfsText;
  }
}
