package io.fabricpulse.streams.detect.link;

import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.Thresholds;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The phy_errors condition of one rule (docs/thresholds.md B1/B3/B4, NVSentinel's numbers
 * [NVS-046]): symbol_error over the last hour or per second, link_error_recovery over the last
 * minute, port_rcv_errors and port_xmit_discards per second, any increase of
 * excessive_buffer_overrun_errors or local_link_integrity_errors. ONE observation per port: every
 * counter over its threshold is in the evidence, the first one gives value and threshold. Only
 * deltas tagged normal or wrap count.
 */
final class PhyErrorsCheck {

  /** One counter over its threshold. */
  private record Crossing(String key, double measured, double threshold, String unit) {
    String text() {
      return Numbers.format(measured) + unit + " > " + Numbers.format(threshold) + unit;
    }
  }

  private final Rule rule;
  private final double symbolPerHour;
  private final double symbolPerSecond;
  private final double recoveryPerMinute;
  private final double rcvErrorsPerSecond;
  private final double xmitDiscardsPerSecond;
  private final long bufferOverrun;
  private final long linkIntegrity;

  PhyErrorsCheck(Rule rule) {
    this.rule = rule;
    Thresholds t = rule.thresholds();
    this.symbolPerHour = t.number("symbol_error_per_hour");
    this.symbolPerSecond = t.number("symbol_error_per_second");
    this.recoveryPerMinute = t.number("link_error_recovery_per_minute");
    this.rcvErrorsPerSecond = t.number("port_rcv_errors_per_second");
    this.xmitDiscardsPerSecond = t.number("port_xmit_discards_per_second");
    this.bufferOverrun = t.integer("excessive_buffer_overrun_errors");
    this.linkIntegrity = t.integer("local_link_integrity_errors");
  }

  Rule rule() {
    return rule;
  }

  FiringPolicy policy() {
    return FiringPolicy.IMMEDIATE;
  }

  /** {@code st} already holds this sample's symbol_error and link_error_recovery increases. */
  Observation evaluate(PortLinkState st, LinkSample s, Lineage lineage) {
    long now = s.time();
    List<Crossing> crossings = new ArrayList<>();
    above(crossings, "symbol_error_per_hour", st.symbolErrors.sum(now), symbolPerHour, "/h");
    above(crossings, "symbol_error_per_second", s.perSecond("symbol_error"), symbolPerSecond, "/s");
    above(
        crossings,
        "link_error_recovery_per_minute",
        st.linkErrorRecovery.sum(now),
        recoveryPerMinute,
        "/min");
    above(
        crossings,
        "port_rcv_errors_per_second",
        s.perSecond("port_rcv_errors"),
        rcvErrorsPerSecond,
        "/s");
    above(
        crossings,
        "port_xmit_discards_per_second",
        s.perSecond("port_xmit_discards"),
        xmitDiscardsPerSecond,
        "/s");
    above(
        crossings,
        "excessive_buffer_overrun_errors",
        s.increase("excessive_buffer_overrun_errors"),
        bufferOverrun,
        "");
    above(
        crossings,
        "local_link_integrity_errors",
        s.increase("local_link_integrity_errors"),
        linkIntegrity,
        "");
    if (crossings.isEmpty()) {
      return Observation.clean(LinkSubjects.of(st), now, lineage);
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    List<String> texts = new ArrayList<>();
    for (Crossing c : crossings) {
      evidence.put(c.key(), c.text());
      texts.add(c.key().replaceFirst("_per_(hour|second|minute)$", "") + " " + c.text());
    }
    Crossing first = crossings.get(0);
    return Observation.holds(
            LinkSubjects.of(st),
            now,
            first.measured(),
            first.threshold(),
            first.unit().isEmpty() ? "events" : "events" + first.unit(),
            Message.of(
                "phy_errors.firing", LinkSubjects.of(st).shortName(), String.join(", ", texts)),
            evidence,
            lineage)
        .firingNow();
  }

  private static void above(
      List<Crossing> out, String key, double measured, double threshold, String unit) {
    if (measured > threshold) {
      out.add(new Crossing(key, measured, threshold, unit));
    }
  }
}
