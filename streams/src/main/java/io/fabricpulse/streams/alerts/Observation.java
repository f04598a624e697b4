package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.AlertKind;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One evaluation of a rule's condition on one subject at one event time, with what an alert needs
 * if this observation makes it fire. Built by detectors, consumed by {@link AlertTracker}.
 *
 * @param kind null for the rule's detector default
 * @param immediate fire on this observation regardless of the consecutive-sample policy (events
 *     such as mlx5 pause-storm counters)
 * @param labels added to the rule's labels on the alert (e.g. role=origin)
 */
public record Observation(
    AlertSubject subject,
    long eventTime,
    boolean holds,
    boolean immediate,
    AlertKind kind,
    Double value,
    Double threshold,
    String unit,
    Message summary,
    Map<String, String> evidence,
    Map<String, String> labels,
    Lineage lineage) {

  public Observation {
    evidence = Map.copyOf(new LinkedHashMap<>(evidence));
    labels = Map.copyOf(labels);
  }

  /** A clean observation: the condition does not hold. */
  public static Observation clean(AlertSubject subject, long eventTime, Lineage lineage) {
    return new Observation(
        subject, eventTime, false, false, null, null, null, null, null, Map.of(), Map.of(),
        lineage);
  }

  /** The condition holds; chain {@link #firingNow()} for one-shot events. */
  public static Observation holds(
      AlertSubject subject,
      long eventTime,
      double value,
      double threshold,
      String unit,
      Message summary,
      Map<String, String> evidence,
      Lineage lineage) {
    return new Observation(
        subject, eventTime, true, false, null, value, threshold, unit, summary, evidence, Map.of(),
        lineage);
  }

  public Observation firingNow() {
    return new Observation(
        subject, eventTime, holds, true, kind, value, threshold, unit, summary, evidence, labels,
        lineage);
  }

  public Observation withKind(AlertKind k) {
    return new Observation(
        subject, eventTime, holds, immediate, k, value, threshold, unit, summary, evidence, labels,
        lineage);
  }

  public Observation withLabels(Map<String, String> extra) {
    return new Observation(
        subject, eventTime, holds, immediate, kind, value, threshold, unit, summary, evidence,
        extra, lineage);
  }
}
