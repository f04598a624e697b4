package io.fabricpulse.streams.rules;

import io.fabricpulse.avro.Severity;
import java.time.Duration;
import java.util.Map;

/**
 * One validated rule of alert-rules/*.yaml.
 *
 * @param hysteresis clean event time after which a FIRING alert resolves (default 60s)
 * @param source citation keys from docs/thresholds.md for the numbers, e.g. {@code [SONIC-pfcwd]}
 * @param origin {@code file:line} where the rule starts, for messages
 */
public record Rule(
    String id,
    Detector detector,
    Severity severity,
    Thresholds thresholds,
    Duration hysteresis,
    Selectors selectors,
    Map<String, String> labels,
    boolean enabled,
    String source,
    String description,
    String origin) {

  public static final Duration DEFAULT_HYSTERESIS = Duration.ofSeconds(60);

  public Rule {
    labels = Map.copyOf(labels);
  }

  /** A rule with the detector's default thresholds, for tests and programmatic use. */
  public static Rule withDefaults(String id, Detector detector, Severity severity) {
    return new Rule(
        id,
        detector,
        severity,
        Thresholds.defaultsOf(detector),
        DEFAULT_HYSTERESIS,
        Selectors.ANY,
        Map.of(),
        true,
        "",
        "",
        "<code>");
  }
}
