package io.fabricpulse.app.demo;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The alert records of a run, read back from their topic for the fault tests' verdicts. */
final class AlertRecords {

  private AlertRecords() {}

  /** Every committed alert record of {@code topic}, in partition order. */
  static List<Alert> decodeAll(String bootstrap, String registry, String topic) {
    AvroDeserializer<Alert> decoder = new AvroDeserializer<>(Alert.class);
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
    return Sequences.readAll(bootstrap, topic).stream()
        .map(r -> decoder.deserialize(topic, r.value()))
        .toList();
  }

  /** "alert id state" of every alert record that repeats an earlier one's id and state. */
  static List<String> writtenTwice(List<Alert> alerts) {
    Set<String> seen = new HashSet<>();
    List<String> twice = new ArrayList<>();
    for (Alert a : alerts) {
      String id = a.getAlertId() + " " + a.getState();
      if (!seen.add(id)) {
        twice.add(id);
      }
    }
    return twice;
  }
}
