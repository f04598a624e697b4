package io.fabricpulse.streams.alerts;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.schemas.topics.FabricTopics;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * Writes a detector's alert stream (key alert_id) to both alert topics:
 *
 * <ul>
 *   <li>{@code fabric.alerts}: every FIRING and RESOLVED record (the event log).
 *   <li>{@code fabric.alerts.active} (compacted): the FIRING record, and a tombstone (null value)
 *       when the alert resolves, so the compacted topic holds exactly the alerts currently open and
 *       a table built from it needs no filtering. The RESOLVED record itself is in fabric.alerts.
 * </ul>
 *
 * <p>With {@link GrafanaLinks#BASE_URL} in the application config, every alert first gets its
 * dashboard link as label {@value GrafanaLinks#LABEL}.
 */
public final class AlertSinks {

  private AlertSinks() {}

  /**
   * @param name prefix of the three processor names, unique per detector (e.g. {@code pfc})
   */
  public static void addTo(
      KStream<String, Alert> detected, String name, FabricTopics topics, Serde<Alert> alertSerde) {
    KStream<String, Alert> alerts =
        detected.processValues(GrafanaLinks::new, Named.as(name + "-grafana-link"));
    Produced<String, Alert> produced = Produced.with(Serdes.String(), alertSerde);
    alerts.to(topics.alerts().name(), produced.withName(name + "-to-alerts"));
    alerts
        .mapValues(
            a -> a.getState() == AlertState.RESOLVED ? null : a,
            Named.as(name + "-active-or-tombstone"))
        .to(
            topics.alertsActive().name(),
            Produced.with(Serdes.String(), alertSerde).withName(name + "-to-alerts-active"));
  }
}
