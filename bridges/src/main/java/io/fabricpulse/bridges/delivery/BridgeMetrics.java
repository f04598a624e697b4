package io.fabricpulse.bridges.delivery;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one robot; read from any thread. They are what JMX shows ({@link RobotMetricsMXBean})
 * and what the bridge publishes to fabric.bridge.counters for the store.
 */
public final class BridgeMetrics implements RobotMetricsMXBean {
  /** Messages the robot accepted. */
  public final AtomicLong messagesSent = new AtomicLong();

  /** Alert state changes the robot accepted, in any message. */
  public final AtomicLong alertsDelivered = new AtomicLong();

  /** Alert state changes that went out in a digest of several. */
  public final AtomicLong alertsDigested = new AtomicLong();

  /** Throttle replies (WeCom 45009, DingTalk 130101/410100). */
  public final AtomicLong throttled = new AtomicLong();

  /** Size refusals (WeCom 40058/45002, DingTalk 460101/101002). */
  public final AtomicLong tooLarge = new AtomicLong();

  /** Failed requests (network, 5xx, other errcodes), each retried. */
  public final AtomicLong failures = new AtomicLong();

  /** Alert state changes given up on and written to fabric.alerts.undelivered. */
  public final AtomicLong undelivered = new AtomicLong();

  /** Gauge: alert state changes waiting for the robot, as of the dispatcher's last step. */
  final AtomicLong pending = new AtomicLong();

  /** Gauge: end of the robot's throttle lockout, epoch ms (0 when it was never locked). */
  final AtomicLong lockedUntilMs = new AtomicLong();

  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("messages_sent", messagesSent.get());
    m.put("alerts_delivered", alertsDelivered.get());
    m.put("alerts_digested", alertsDigested.get());
    m.put("throttled", throttled.get());
    m.put("too_large", tooLarge.get());
    m.put("failures", failures.get());
    m.put("undelivered", undelivered.get());
    return m;
  }

  @Override
  public long getMessagesSent() {
    return messagesSent.get();
  }

  @Override
  public long getAlertsDelivered() {
    return alertsDelivered.get();
  }

  @Override
  public long getAlertsDigested() {
    return alertsDigested.get();
  }

  @Override
  public long getThrottled() {
    return throttled.get();
  }

  @Override
  public long getTooLarge() {
    return tooLarge.get();
  }

  @Override
  public long getFailures() {
    return failures.get();
  }

  @Override
  public long getUndelivered() {
    return undelivered.get();
  }

  @Override
  public long getPending() {
    return pending.get();
  }

  @Override
  public long getLockedUntilEpochMs() {
    return lockedUntilMs.get();
  }
}
