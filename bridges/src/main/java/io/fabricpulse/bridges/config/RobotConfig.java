package io.fabricpulse.bridges.config;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One robot of bridge.yaml.
 *
 * @param name the robot's name in logs, metrics and the delivery ledger (stable: renaming a robot
 *     makes the bridge treat every alert as new to it)
 * @param url the webhook endpoint without its secret query parameter
 * @param key the WeCom key or DingTalk access token
 * @param signSecret DingTalk's signing secret ({@code SEC...}), or null without the signature
 *     setting
 * @param keyword DingTalk's custom keyword the robot requires in every message, or null
 * @param wecomText WeCom: post {@code text} messages (with {@code mentioned_list}) instead of
 *     {@code markdown}
 * @param messagesPerMinute the send budget; the robots allow 20
 * @param quietHours null for none
 * @param where {@code file:line} of the robot's entry, for errors found after loading
 */
public record RobotConfig(
    String name,
    RobotType type,
    String url,
    SecretRef key,
    SecretRef signSecret,
    String keyword,
    boolean wecomText,
    int messagesPerMinute,
    List<Route> routes,
    QuietHours quietHours,
    String where) {

  /** The routes that match, empty when the robot does not get the alert. */
  public List<Route> matching(Alert alert) {
    return routes.stream().filter(r -> r.matches(alert)).toList();
  }

  /**
   * Who is mentioned for the alert: the matching routes' people when a CRITICAL alert fires (a
   * RESOLVED notice wakes nobody).
   */
  public Set<Person> mentionsFor(Alert alert) {
    Set<Person> people = new LinkedHashSet<>();
    if (alert.getSeverity() == Severity.CRITICAL && alert.getState() == AlertState.FIRING) {
      matching(alert).forEach(r -> people.addAll(r.mention()));
    }
    return people;
  }

  public Optional<QuietHours> quiet() {
    return Optional.ofNullable(quietHours);
  }
}
