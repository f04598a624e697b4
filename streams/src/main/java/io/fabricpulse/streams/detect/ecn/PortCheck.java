package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Rule;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.state.KeyValueStore;

/** The condition of one rule of the ECN family, evaluated on one sample of one RoCE port. */
interface PortCheck {

  Rule rule();

  FiringPolicy policy();

  /**
   * The observation this sample makes, or empty when it carries none of the counters the rule needs
   * (or none the rate stage could rate). {@code windows} holds the port's windowed state, under
   * {@code <rule id>|<subject key>}.
   */
  Optional<Observation> evaluate(
      RoceSample sample, KeyValueStore<String, EcnWindow> windows, Lineage lineage);

  static void putSampleFacts(Map<String, String> evidence, RoceSample s) {
    var r = s.record();
    evidence.put("source", r.getSource().name());
    if (r.getDevice() != null) {
      evidence.put("device", r.getDevice());
    }
    if (r.getIntervalMs() != null) {
      evidence.put("interval_ms", Long.toString(r.getIntervalMs()));
    }
    evidence.put("boot_id", r.getBootId());
    evidence.put("seq", Long.toString(r.getSeq()));
  }

  static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.0f%%", ratio * 100);
  }

  static String fmt(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
