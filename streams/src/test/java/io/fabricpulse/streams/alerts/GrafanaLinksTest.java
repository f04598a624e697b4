package io.fabricpulse.streams.alerts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.junit.jupiter.api.Test;

/**
 * A pause storm on gpu007 pages with a link to the PFC and ECN dashboard, 15 minutes either side of
 * the incident, filtered to its cluster and node, when Grafana's base URL is configured.
 */
class GrafanaLinksTest {

  private static final String REGISTRY = "mock://grafana-links-test";
  private static final Instant STARTED = Instant.parse("2025-03-01T03:04:18Z");

  @Test
  void anAlertCarriesItsDashboardLinkWhenGrafanaIsConfigured() {
    List<Alert> out = run("https://grafana.example.com/");
    assertEquals(
        "https://grafana.example.com/d/fabricpulse-pfc-ecn?from="
            + STARTED.minusSeconds(900).toEpochMilli()
            + "&to="
            + STARTED.plusSeconds(900).toEpochMilli()
            + "&var-cluster=demo&var-node=gpu007",
        out.get(0).getLabels().get(GrafanaLinks.LABEL));
    assertEquals("pfc", out.get(0).getLabels().get("team"), "the rule's labels are kept");
  }

  @Test
  void aSwitchPortsCongestionLinksToTheSwitchDashboardWithItsSwitch() {
    Alert wait =
        Alert.newBuilder(storm())
            .setKind(AlertKind.XMIT_WAIT)
            .setNode("leaf-07")
            .setDevice("0x7cfe9003009ce5b0")
            .setPort(30)
            .setNetdev(null)
            .setPriority(null)
            .build();
    String link = GrafanaLinks.link("https://grafana.example.com/", wait);
    assertTrue(link.startsWith("https://grafana.example.com/d/fabricpulse-switch-isl?from="), link);
    assertTrue(link.endsWith("&var-cluster=demo&var-switch=leaf-07"), link);
  }

  @Test
  void withoutABaseUrlAlertsPassUnchanged() {
    List<Alert> out = run(null);
    assertFalse(out.get(0).getLabels().containsKey(GrafanaLinks.LABEL));
  }

  @Test
  void everyAlertKindHasADashboard() {
    for (AlertKind kind : AlertKind.values()) {
      Alert a = Alert.newBuilder(storm()).setKind(kind).build();
      String uid = GrafanaLinks.dashboard(a);
      assertFalse(uid.isBlank(), kind.name());
    }
  }

  private static List<Alert> run(String baseUrl) {
    Serde<Alert> serde = AvroSerde.forValues(Alert.class, REGISTRY);
    FabricTopics topics = FabricTopics.defaults();
    StreamsBuilder builder = new StreamsBuilder();
    AlertSinks.addTo(
        builder.stream("detected", Consumed.with(Serdes.String(), serde).withName("detected")),
        "test",
        topics,
        serde);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "grafana-links-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    if (baseUrl != null) {
      props.put(GrafanaLinks.BASE_URL, baseUrl);
    }
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
      Alert storm = storm();
      driver
          .createInputTopic("detected", Serdes.String().serializer(), serde.serializer())
          .pipeInput(storm.getAlertId(), storm, STARTED);
      return driver
          .createOutputTopic(
              topics.alerts().name(), Serdes.String().deserializer(), serde.deserializer())
          .readValuesToList();
    }
  }

  private static Alert storm() {
    return Alert.newBuilder()
        .setAlertId("pause-storm/demo/gpu007/ens9f0np0/3/" + STARTED.toEpochMilli())
        .setRule("pause-storm")
        .setKind(AlertKind.PAUSE_STORM)
        .setSeverity(Severity.CRITICAL)
        .setState(AlertState.FIRING)
        .setCluster("demo")
        .setNode("gpu007")
        .setNetdev("ens9f0np0")
        .setPriority(3)
        .setStartedAt(STARTED)
        .setSummary("NIC gpu007 ens9f0np0 reported 1 PFC pause-storm event(s)")
        .setLabels(Map.of("team", "pfc"))
        .build();
  }
}
