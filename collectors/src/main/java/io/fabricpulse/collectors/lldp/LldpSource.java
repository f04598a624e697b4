package io.fabricpulse.collectors.lldp;

import java.io.IOException;

/** Where the LLDP source's text comes from: lldpd's lldpcli on the node. */
public interface LldpSource {
  /** {@code lldpcli -f keyvalue show neighbors details}. */
  String neighbors() throws IOException, InterruptedException;

  /** {@code lldpcli -f keyvalue show chassis}: read on switches only. */
  String chassis() throws IOException, InterruptedException;
}
