package io.fabricpulse.bridges.delivery;

import java.time.Duration;

/** What a robot answered to one message. */
public sealed interface SendResult {

  /** errcode 0: the robot posted it to the group. */
  record Accepted() implements SendResult {}

  /**
   * The robot refuses messages for a while (rate limit): nothing may be sent to it before {@code
   * lockout} has passed.
   */
  record Throttled(int errcode, String errmsg, Duration lockout) implements SendResult {}

  /** The message is over the robot's size limit: split it further and send again. */
  record TooLarge(int errcode, String errmsg) implements SendResult {}

  /**
   * Anything else: a network error, a 5xx, a busy server, or a refusal such as a wrong key or a
   * missing keyword. Retried with back-off until the give-up time; {@code reason} never holds a
   * secret.
   */
  record Failed(String reason) implements SendResult {}
}
