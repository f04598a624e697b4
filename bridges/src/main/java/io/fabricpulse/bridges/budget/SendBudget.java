package io.fabricpulse.bridges.budget;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A robot's send budget: at most {@code perMinute} requests in any 60 s (both robots allow 20 a
 * minute; DingTalk locks a robot for 10 minutes above that), kept as the times of the last sends so
 * the limit holds in every window, not only on average. A throttle reply locks the budget until its
 * lockout ends: no request at all goes to a locked robot.
 */
public final class SendBudget {
  public static final Duration WINDOW = Duration.ofMinutes(1);

  private final int perMinute;
  private final Deque<Instant> sends = new ArrayDeque<>();
  private Instant lockedUntil = Instant.MIN;

  public SendBudget(int perMinute) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("perMinute must be positive: " + perMinute);
    }
    this.perMinute = perMinute;
  }

  public int perMinute() {
    return perMinute;
  }

  /** Requests that may go out at {@code now} without breaking the limit (0 while locked). */
  public int available(Instant now) {
    if (now.isBefore(lockedUntil)) {
      return 0;
    }
    expire(now);
    return perMinute - sends.size();
  }

  /** The earliest time a request may go out: now, the end of a lockout, or a window's end. */
  public Instant nextSendAt(Instant now) {
    expire(now);
    Instant at = sends.size() < perMinute ? now : sends.peekFirst().plus(WINDOW);
    return at.isBefore(lockedUntil) ? lockedUntil : at;
  }

  /**
   * Counts a request whose answer came back at {@code now}, whatever the answer (a refused one
   * counts too).
   */
  public void recordSend(Instant now) {
    expire(now);
    if (sends.size() >= perMinute || now.isBefore(lockedUntil)) {
      throw new IllegalStateException("no budget left at " + now);
    }
    sends.addLast(now);
  }

  /** The robot refuses everything until {@code until}. */
  public void lockUntil(Instant until) {
    if (until.isAfter(lockedUntil)) {
      lockedUntil = until;
    }
  }

  public boolean isLocked(Instant now) {
    return now.isBefore(lockedUntil);
  }

  public Instant lockedUntil() {
    return lockedUntil;
  }

  /** The time of the last request, or null before the first. */
  public Instant lastSend() {
    return sends.peekLast();
  }

  private void expire(Instant now) {
    while (!sends.isEmpty() && !sends.peekFirst().plus(WINDOW).isAfter(now)) {
      sends.removeFirst();
    }
  }
}
