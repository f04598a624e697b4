package io.fabricpulse.sinks.influx;

import java.util.List;

/** Writes one batch of points, synchronously: return = the server has them. */
public interface PointWriter extends AutoCloseable {

  /**
   * @throws PointsRejectedException when the server refuses the points themselves (retrying the
   *     same batch cannot succeed)
   * @throws RuntimeException any other failure (server down, timeout, 5xx, auth): retryable
   */
  void write(List<SinkPoint> points);

  @Override
  void close();

  /**
   * The server requires a token (HTTP 401 or 403) and none is configured: no retry can succeed, the
   * sink stops.
   */
  final class TokenRequiredException extends RuntimeException {
    public TokenRequiredException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The server answered that the data is invalid (HTTP 400 or 422). */
  final class PointsRejectedException extends RuntimeException {
    public PointsRejectedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
