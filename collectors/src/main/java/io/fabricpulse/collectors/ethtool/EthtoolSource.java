package io.fabricpulse.collectors.ethtool;

import java.io.IOException;

/** The operating system behind the ethtool collector, so tests and the simulator inject text. */
public interface EthtoolSource {

  /** The complete {@code ethtool -S <netdev>} output. */
  String stats(String netdev) throws IOException;

  /** The kernel driver of the netdev (mlx5_core, ice, ...), or null when unknown. */
  String driver(String netdev);
}
