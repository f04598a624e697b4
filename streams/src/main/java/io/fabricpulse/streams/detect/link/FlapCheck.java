package io.fabricpulse.streams.detect.link;

import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The link_flap condition of one rule (docs/thresholds.md F1/F2): at least down_events down events
 * within window fire at once [NVS-046][GPUD-flap]. While FIRING it holds on every sample with a new
 * down event or with the port not ACTIVE, so it resolves after the hysteresis of ACTIVE samples
 * without new drops. The events that made an alert are not counted again for this rule.
 */
final class FlapCheck {

  private final Rule rule;
  private final int downEvents;
  private final long windowMs;

  FlapCheck(Rule rule) {
    this.rule = rule;
    this.downEvents = Math.toIntExact(rule.thresholds().integer("down_events"));
    this.windowMs = rule.thresholds().duration("window").toMillis();
  }

  Rule rule() {
    return rule;
  }

  long windowMs() {
    return windowMs;
  }

  FiringPolicy policy() {
    return FiringPolicy.IMMEDIATE;
  }

  Observation evaluate(
      PortLinkState st, long now, boolean newDownEvent, boolean firing, Lineage lineage) {
    int count = st.downEvents(rule.id(), now, windowMs);
    boolean holds = firing ? newDownEvent || !st.active() : count >= downEvents;
    if (!holds) {
      return Observation.clean(LinkSubjects.of(st), now, lineage);
    }
    String window = Durations.format(rule.thresholds().duration("window"));
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("down_events", Integer.toString(count));
    evidence.put("window", window);
    evidence.put("state_transitions", Long.toString(st.transitions.size()));
    evidence.put("link_downed_increases", Long.toString(st.linkDowned.size()));
    evidence.put("link_down_events_phy_increases", Long.toString(st.phyDowns.size()));
    evidence.put("state", String.valueOf(st.state));
    return Observation.holds(
            LinkSubjects.of(st),
            now,
            count,
            downEvents,
            "events",
            Message.of(
                "link_flap.firing", LinkSubjects.of(st).shortName(), count, window, downEvents),
            evidence,
            lineage)
        .firingNow();
  }
}
