package io.fabricpulse.bridges.delivery;

import io.fabricpulse.bridges.render.Message;

/** One group robot: how it wants a message (JSON body, size limit) and how to send it. */
public interface Robot {

  /** The name from bridge.yaml. */
  String name();

  /** Whether the robot accepts a message this large (its limit in UTF-8 bytes). */
  boolean fits(Message message);

  /**
   * The exact JSON body for {@code message}, UTF-8.
   *
   * @param idempotencyKey stable for the same alert state changes, so a robot that supports it can
   *     drop a resend after a timeout
   */
  byte[] body(Message message, String idempotencyKey);

  /** Posts the body; never throws for what the network or the robot does. */
  SendResult send(Message message, String idempotencyKey);

  /** The endpoint with every secret masked, for logs and --dry-run. */
  String maskedEndpoint();
}
