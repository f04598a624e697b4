package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.PortSample;
import io.fabricpulse.avro.RateSource;

/**
 * One port of a node record as the rate stage names it: its key within the node and the fields its
 * rates carry. A port that names too little to be told apart from its neighbours is refused.
 *
 * <p>Keys: {@code device/port} for port counters (PORT, PERFQUERY), {@code netdev} for PFC, and for
 * ECN whichever of {@code netdev}, {@code device} and {@code port} the sample names, joined by
 * {@code /}. {@code cluster/node/key} is the port's subject, the store key of the per-port state of
 * fabricpulse 0.2.0 and earlier ({@link NodeLastSamples#LEGACY_PORT}).
 *
 * @param port the device's port number; null for PFC, as the per-port PFC record has none
 */
public record RatePort(String key, String device, Integer port, String netdev) {

  public static RatePort of(RateSource source, PortSample p) {
    switch (source) {
      case PFC:
        require(p.getNetdev(), "netdev");
        return new RatePort(p.getNetdev(), p.getDevice(), null, p.getNetdev());
      case ECN:
        return ecn(p);
      default:
        require(p.getDevice(), "device");
        int port = p.getPort() == null ? 0 : p.getPort();
        return new RatePort(p.getDevice() + "/" + port, p.getDevice(), port, p.getNetdev());
    }
  }

  private static RatePort ecn(PortSample p) {
    boolean hasNetdev = p.getNetdev() != null && !p.getNetdev().isBlank();
    boolean hasDevice = p.getDevice() != null && !p.getDevice().isBlank();
    if (!hasNetdev && !hasDevice) {
      throw new InvalidSampleException("ECN sample names neither netdev nor device");
    }
    StringBuilder key = new StringBuilder();
    if (hasNetdev) {
      key.append(p.getNetdev());
    }
    if (hasDevice) {
      if (hasNetdev) {
        key.append('/');
      }
      key.append(p.getDevice());
      if (p.getPort() != null) {
        key.append('/').append(p.getPort());
      }
    }
    return new RatePort(key.toString(), p.getDevice(), p.getPort(), p.getNetdev());
  }

  static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new InvalidSampleException("sample has an empty " + field);
    }
  }

  /** A sample that decodes but cannot be rated (its subject is incomplete). */
  public static final class InvalidSampleException extends RuntimeException {
    public InvalidSampleException(String message) {
      super(message);
    }
  }
}
