package io.fabricpulse.streams.detect.link;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Durations;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The link_degraded condition of one rule: an ACTIVE port whose speed (rate_gbps) or width (lanes
 * of link_width) is below its {@link EstablishedValue} (e.g. 400 Gb/sec 4X NDR back as 200 Gb/sec
 * 4X HDR, or 4X -> 2X), for consecutive_samples samples. Not evaluated while the port is down.
 *
 * <p>A port held at the lower value for reestablish_after runs slower on purpose: the lower value
 * becomes established and the alert resolves at once with {@link #accepted}, which says so.
 */
final class DegradedCheck {

  private final Rule rule;
  private final long consecutive;
  private final long settleMs;
  private final long reestablishMs;

  /** What re-establishing a lower value replaced: the previous values, and since when it ran. */
  record Lowered(double previousGbps, int previousLanes, long since) {}

  DegradedCheck(Rule rule) {
    this.rule = rule;
    this.consecutive = rule.thresholds().integer("consecutive_samples");
    this.settleMs = rule.thresholds().duration("settle_time").toMillis();
    this.reestablishMs = rule.thresholds().duration("reestablish_after").toMillis();
  }

  Rule rule() {
    return rule;
  }

  long settleMs() {
    return settleMs;
  }

  long reestablishMs() {
    return reestablishMs;
  }

  FiringPolicy policy() {
    return FiringPolicy.consecutive(consecutive);
  }

  /** Null while the port is not ACTIVE (no evidence either way). */
  Observation evaluate(PortLinkState st, LinkSample s, Lineage lineage) {
    if (!s.active()) {
      return null;
    }
    double gbps = s.rates().getRateGbps() == null ? 0 : s.rates().getRateGbps();
    int lanes = s.lanes();
    boolean slower = st.speed.below(gbps);
    boolean narrower = st.lanes.below(lanes);
    if (!slower && !narrower) {
      return Observation.clean(LinkSubjects.of(st), s.time(), lineage);
    }
    String now = describe(gbps, lanes);
    String established = describe(st.speed.value, (int) st.lanes.value);
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("rate_gbps", Numbers.format(gbps));
    evidence.put("established_rate_gbps", Numbers.format(st.speed.value));
    evidence.put("link_width", String.valueOf(s.rates().getLinkWidth()));
    evidence.put("established_link_width", lanesText((int) st.lanes.value));
    evidence.put("slower", Boolean.toString(slower));
    evidence.put("narrower", Boolean.toString(narrower));
    return Observation.holds(
        LinkSubjects.of(st),
        s.time(),
        gbps,
        st.speed.value,
        "Gb/s",
        Message.of("link_degraded.firing", LinkSubjects.of(st).shortName(), now, established),
        evidence,
        lineage);
  }

  /**
   * The FIRING alert of this port resolves at once: its lower speed or width, held since {@code
   * lowered.since()}, is now its established value ({@code st} already holds it).
   */
  Optional<Alert> accepted(
      AlertTracker tracker, PortLinkState st, Lowered lowered, long now, Lineage lineage) {
    String established = describe(st.speed.value, (int) st.lanes.value);
    String previous = describe(lowered.previousGbps(), lowered.previousLanes());
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("established_rate_gbps", Numbers.format(st.speed.value));
    evidence.put("established_link_width", lanesText((int) st.lanes.value));
    evidence.put("previous_established_rate_gbps", Numbers.format(lowered.previousGbps()));
    evidence.put("previous_established_link_width", lanesText(lowered.previousLanes()));
    evidence.put("lower_since", Instant.ofEpochMilli(lowered.since()).toString());
    evidence.put("reestablish_after", Durations.format(Duration.ofMillis(reestablishMs)));
    evidence.put("reestablished", "true");
    return tracker.accept(
        LinkSubjects.of(st),
        now,
        Message.of(
            "link_degraded.reestablished",
            LinkSubjects.of(st).shortName(),
            established,
            Durations.format(Duration.ofMillis(now - lowered.since())),
            previous),
        evidence,
        lineage);
  }

  private static String describe(double gbps, int lanes) {
    return Numbers.format(gbps) + " Gb/s " + lanesText(lanes);
  }

  private static String lanesText(int lanes) {
    return lanes > 0 ? lanes + "X" : "?X";
  }
}
