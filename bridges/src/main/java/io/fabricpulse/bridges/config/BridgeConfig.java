package io.fabricpulse.bridges.config;

import io.fabricpulse.bridges.render.MessageTemplates;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * A loaded bridge.yaml (see the sample bridge.yaml at the top of the repository and {@link
 * BridgeConfigLoader}).
 *
 * @param language the language of the rendered messages
 * @param zone the zone of start times and quiet hours (default Asia/Shanghai)
 * @param grafanaUrl a dashboard link added to each alert, or null
 * @param giveUpAfter how long a robot may keep failing (network, 5xx, refusals other than throttle
 *     and size) before the alerts waiting for it go to fabric.alerts.undelivered
 * @param templates message templates that replace built-in ones ({@code templates}), or null
 */
public record BridgeConfig(
    Language language,
    ZoneId zone,
    String grafanaUrl,
    Duration giveUpAfter,
    Map<String, Person> people,
    List<RobotConfig> robots,
    MessageTemplates templates) {

  /** A configuration with the built-in message templates. */
  public BridgeConfig(
      Language language,
      ZoneId zone,
      String grafanaUrl,
      Duration giveUpAfter,
      Map<String, Person> people,
      List<RobotConfig> robots) {
    this(language, zone, grafanaUrl, giveUpAfter, people, robots, null);
  }

  public static final ZoneId DEFAULT_ZONE = ZoneId.of("Asia/Shanghai");
  public static final Duration DEFAULT_GIVE_UP_AFTER = Duration.ofHours(1);

  /** The language of the message templates. */
  public enum Language {
    ZH,
    EN
  }

  public List<RobotConfig> robotsOf(RobotType type) {
    return robots.stream().filter(r -> r.type() == type).toList();
  }
}
