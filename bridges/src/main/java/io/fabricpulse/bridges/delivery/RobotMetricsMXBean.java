package io.fabricpulse.bridges.delivery;

/**
 * What JMX shows of one robot, as MBean {@code io.fabricpulse:type=bridge,bridge=<wecom|dingtalk>,
 * robot=<name>} ({@link BridgeJmx}): the counters since the bridge started and two gauges.
 */
public interface RobotMetricsMXBean {
  long getMessagesSent();

  long getAlertsDelivered();

  long getAlertsDigested();

  long getThrottled();

  long getTooLarge();

  long getFailures();

  long getUndelivered();

  /** Alert state changes waiting for the robot. */
  long getPending();

  /** When the robot's throttle lockout ends (or ended), epoch ms; 0 when it was never locked. */
  long getLockedUntilEpochMs();
}
