package io.fabricpulse.schemas.health;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Decides when to say that a neighbour (Kafka, the time-series store) is unreachable: once it has
 * failed for {@code warnAfter}, then again every {@code repeatEvery} while it keeps failing, and
 * once when it answers again. So an outage is loud within seconds and its log volume is bounded
 * however long it lasts. The caller observes the neighbour (an answer, an acknowledgement) and logs
 * the line this class returns; times are the caller's monotonic nanoseconds, so tests drive it
 * without a clock.
 */
public final class OutageLog {

  /** A line to log: a warning while down, an information line when it answers again. */
  public record Line(boolean warning, String text) {}

  private final String what;
  private final long warnAfterNanos;
  private final long repeatEveryNanos;
  private long failingSinceNanos;
  private boolean failing;
  private boolean warned;
  private long lastWarningNanos;
  private volatile boolean down;

  /**
   * @param what the neighbour as the lines name it, e.g. {@code Kafka at 127.0.0.1:9092}
   */
  public OutageLog(String what, Duration warnAfter, Duration repeatEvery) {
    if (warnAfter.isNegative() || repeatEvery.isNegative() || repeatEvery.isZero()) {
      throw new IllegalArgumentException("warnAfter >= 0 and repeatEvery > 0 required");
    }
    this.what = what;
    this.warnAfterNanos = warnAfter.toNanos();
    this.repeatEveryNanos = repeatEvery.toNanos();
  }

  /** The neighbour answered at {@code nowNanos}; a line when it had been reported unreachable. */
  public synchronized Optional<Line> answered(long nowNanos) {
    boolean wasReported = warned;
    long since = failingSinceNanos;
    failing = false;
    warned = false;
    down = false;
    if (!wasReported) {
      return Optional.empty();
    }
    return Optional.of(new Line(false, what + " answers again after " + seconds(nowNanos - since)));
  }

  /**
   * The neighbour failed at {@code nowNanos} ({@code detail}: what failed, never a secret); a
   * warning when it has failed for {@code warnAfter} and the last warning is {@code repeatEvery}
   * old.
   */
  public synchronized Optional<Line> failed(long nowNanos, String detail) {
    if (!failing) {
      failing = true;
      failingSinceNanos = nowNanos;
    }
    long failingFor = nowNanos - failingSinceNanos;
    if (failingFor < warnAfterNanos) {
      return Optional.empty();
    }
    down = true;
    if (warned && nowNanos - lastWarningNanos < repeatEveryNanos) {
      return Optional.empty();
    }
    warned = true;
    lastWarningNanos = nowNanos;
    return Optional.of(
        new Line(true, what + " unreachable for " + seconds(failingFor) + ": " + detail));
  }

  /** True from the first warning of an outage until the neighbour answers again. */
  public boolean down() {
    return down;
  }

  private static String seconds(long nanos) {
    return TimeUnit.NANOSECONDS.toSeconds(nanos) + " s";
  }
}
