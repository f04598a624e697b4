package io.fabricpulse.streams.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import io.fabricpulse.streams.testing.RoceRates;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two stores only the query API reads, filled inside the production topology. */
class QueryStoresTest {

  private static final String REGISTRY = "mock://query-stores-test";

  @TempDir Path stateDir;

  @Test
  void theLatestRatesOfEachNodeAndSourceAndTheOpenAlertsAreKept() throws Exception {
    Properties props = DriverSettings.of("query-stores-test", stateDir.toString());
    props.put(StreamsSettings.QUERY_STORES, "true");
    FabricTopics topics = FabricTopics.defaults();
    DetectorSerdes serdes = DetectorSerdes.forRegistry(REGISTRY);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            FabricTopology.build(
                topics,
                REGISTRY,
                RuleSet.load(RepoPaths.alertRules()),
                RateConfig.defaults(),
                props),
            props,
            Instant.ofEpochMilli(RoceRates.T0))) {
      var rates =
          driver.createInputTopic(
              topics.rates().name(),
              new StringSerializer(),
              serdes.value(NodeRates.class).serializer());
      var active =
          driver.createInputTopic(
              topics.alertsActive().name(), new StringSerializer(), serdes.alert().serializer());

      // 03:00:01 and 03:00:02: gpu007's PFC counters; 03:00:02 its port counters too
      NodeRates pfc1 = node(RoceRates.pfc("gpu007", "ens3np0", 1).rxPaused(3, 0.2));
      NodeRates pfc2 = node(RoceRates.pfc("gpu007", "ens3np0", 2).rxPaused(3, 0.7));
      NodeRates port2 = node(RoceRates.port("gpu007", "ens3np0", 2));
      rates.pipeInput("c1/gpu007", pfc1, pfc1.getTime());
      rates.pipeInput("c1/gpu007", pfc2, pfc2.getTime());
      rates.pipeInput("c1/gpu007", port2, port2.getTime());
      // a late copy of the 03:00:01 cycle arrives after the 03:00:02 one: it does not replace it
      rates.pipeInput("c1/gpu007", pfc1, pfc2.getTime());

      KeyValueStore<String, NodeRates> latest =
          driver.getKeyValueStore(QueryStores.LATEST_RATES_STORE);
      assertEquals(pfc2, latest.get("c1/gpu007|PFC"));
      assertEquals(port2, latest.get("c1/gpu007|PORT"));
      assertNull(latest.get("c1/gpu007|ECN"));

      // an alert opens on fabric.alerts.active and is closed by its tombstone
      Alert storm = alert("a-1", Instant.ofEpochMilli(RoceRates.T0 + 3_000));
      active.pipeInput("a-1", storm, RoceRates.T0 + 3_000);
      active.pipeInput("a-2", alert("a-2", Instant.ofEpochMilli(RoceRates.T0 + 4_000)));
      KeyValueStore<String, Object> open = driver.getKeyValueStore(QueryStores.ACTIVE_ALERTS_STORE);
      assertEquals(storm, valueOf(open.get("a-1")));
      active.pipeInput("a-1", null, RoceRates.T0 + 5_000);
      assertNull(open.get("a-1"));
      assertEquals("a-2", ((Alert) valueOf(open.get("a-2"))).getAlertId());
    }
  }

  /** A table's store in the test driver holds the value with its timestamp. */
  private static Object valueOf(Object stored) {
    return stored instanceof org.apache.kafka.streams.state.ValueAndTimestamp<?> v
        ? v.value()
        : stored;
  }

  private static NodeRates node(RoceRates sample) {
    return NodeRecords.ofRates(List.of(sample.build()));
  }

  private static Alert alert(String id, Instant started) {
    return Alert.newBuilder()
        .setAlertId(id)
        .setRule("pause_storm")
        .setKind(AlertKind.PAUSE_STORM)
        .setSeverity(Severity.CRITICAL)
        .setState(AlertState.FIRING)
        .setCluster("c1")
        .setNode("gpu007")
        .setNetdev("ens3np0")
        .setPriority(3)
        .setStartedAt(started)
        .setSummary("pause storm on ens3np0 prio 3")
        .setEvidence(Map.of())
        .setLabels(Map.of())
        .build();
  }
}
