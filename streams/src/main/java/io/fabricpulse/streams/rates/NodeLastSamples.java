package io.fabricpulse.streams.rates;

import java.util.Collections;
import java.util.Map;

/**
 * The rate stage's state for one node and source: the last accepted sample of each of the node's
 * ports, keyed by the port's name within the node ({@link RatePort#key}). One store entry per node
 * and source, so a node cycle costs one store read and one write whatever its number of ports.
 *
 * <p>State written by fabricpulse 0.2.0 and earlier has one entry per port under the port's own
 * store key ({@code SOURCE|cluster/node/portKey}); such an entry reads as a NodeLastSamples whose
 * one port is {@link #LEGACY_PORT}, and the rate stage moves it into the node's entry the first
 * time it rates that port.
 */
public record NodeLastSamples(Map<String, LastSample> ports) {

  /** The port name of a state entry written per port, before state was kept per node. */
  public static final String LEGACY_PORT = "";

  public NodeLastSamples {
    ports = Collections.unmodifiableMap(ports);
  }
}
