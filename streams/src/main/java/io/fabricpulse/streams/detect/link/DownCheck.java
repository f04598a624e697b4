package io.fabricpulse.streams.detect.link;

import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The link_down condition of one rule (docs/thresholds.md F2/F5): a port that was ACTIVE within
 * connected_within [SCK-alerts] is not ACTIVE, continuously and with link_downed unchanged, for
 * down_for [GPUD-drop][NVS-047]. Holds on every down sample and at every stream-time punctuation;
 * the {@link FiringPolicy} fires once the run spans down_for, with started_at = the first down
 * sample. ACTIVE samples are clean.
 */
final class DownCheck {

  private final Rule rule;
  private final Duration downFor;
  private final long connectedWithinMs;

  DownCheck(Rule rule) {
    this.rule = rule;
    this.downFor = rule.thresholds().duration("down_for");
    this.connectedWithinMs = rule.thresholds().duration("connected_within").toMillis();
  }

  Rule rule() {
    return rule;
  }

  FiringPolicy policy() {
    return new FiringPolicy(1, downFor);
  }

  /** Whether a down port counts: it was ACTIVE not long before it went down. */
  boolean eligible(PortLinkState st) {
    return st.down()
        && st.lastActiveAt != PortLinkState.NEVER
        && st.downSince - st.lastActiveAt <= connectedWithinMs;
  }

  Observation evaluate(PortLinkState st, long now, Lineage lineage) {
    if (!eligible(st)) {
      return Observation.clean(LinkSubjects.of(st), now, lineage);
    }
    long downMs = Math.max(0, now - st.downSince);
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("state", String.valueOf(st.state));
    evidence.put("down_since", java.time.Instant.ofEpochMilli(st.downSince).toString());
    evidence.put("last_active", java.time.Instant.ofEpochMilli(st.lastActiveAt).toString());
    return Observation.holds(
        LinkSubjects.of(st),
        now,
        downMs / 1000.0,
        downFor.toSeconds(),
        "s",
        Message.of(
            "link_down.firing",
            LinkSubjects.of(st).shortName(),
            st.state,
            Durations.format(Duration.ofSeconds(downMs / 1000)),
            Durations.format(downFor)),
        evidence,
        lineage);
  }
}
