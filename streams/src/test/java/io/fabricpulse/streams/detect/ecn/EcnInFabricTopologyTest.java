package io.fabricpulse.streams.detect.ecn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.detect.silence.CollectorSilenceDetector;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import io.fabricpulse.streams.testing.RoceRates;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ECN and silence families inside the whole pipeline topology (FabricTopology with the default
 * alert-rules/ and explicit-naming enforcement), next to the PFC detectors.
 */
class EcnInFabricTopologyTest {

  @TempDir Path stateDir;

  @Test
  void aPauseStormRaisesPauseStormButNotAlsoEcnNotEffective() throws Exception {
    Properties props = DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.toString());
    FabricTopics topics = FabricTopics.defaults();
    String registry = "mock://ecn-fabric-topology";
    Topology topology =
        FabricTopology.build(
            topics, registry, RuleSet.load(RepoPaths.alertRules()), RateConfig.defaults(), props);
    String described = topology.describe().toString();
    for (String name :
        List.of(
            LosslessHealthDetector.PORT_PROCESSOR,
            LosslessHealthDetector.MTU_PROCESSOR,
            CollectorSilenceDetector.PROCESSOR,
            "ecn-mtu-by-cluster-repartition")) {
      assertTrue(described.contains(name), name);
    }
    assertFalse(described.contains("silence-by-cluster"), described);
    DetectorSerdes serdes = DetectorSerdes.forRegistry(registry);
    try (TopologyTestDriver driver =
        new TopologyTestDriver(topology, props, Instant.ofEpochMilli(RoceRates.T0))) {
      var rates =
          driver.createInputTopic(
              topics.rates().name(), new StringSerializer(), serdes.rates().serializer());
      var alerts =
          driver.createOutputTopic(
              topics.alerts().name(), new StringDeserializer(), serdes.alert().deserializer());
      // gpu017 ens1np0 prio 3: paused 40% for 30 s, a 90% storm for 40 s, 40% again for 50 s,
      // with ECN counters flat all along; a neighbour keeps stream time moving.
      for (int s = 0; s <= 200; s++) {
        double ratio = s < 30 ? 0.4 : s < 70 ? 0.9 : s < 120 ? 0.4 : 0.0;
        for (RoceRates r :
            List.of(
                RoceRates.pfc("gpu017", "ens1np0", s).rxPaused(3, ratio),
                RoceRates.ecn("gpu017", "ens1np0", s).ecnHealthy(0),
                RoceRates.port("gpu017", "ens1np0", s),
                RoceRates.port("gpu018", "ens1np0", s),
                RoceRates.port("gpu019", "ens1np0", s))) {
          rates.pipeInput(r.key(), r.build(), r.time());
        }
      }
      List<Alert> out = alerts.readValuesToList();
      assertEquals(
          List.of(AlertKind.PAUSE_STORM, AlertKind.PAUSE_STORM),
          out.stream().map(Alert::getKind).toList(),
          out.toString());
      assertEquals(AlertState.FIRING, out.get(0).getState());
      assertEquals("gpu017", out.get(0).getNode());
      assertEquals(Instant.ofEpochMilli(RoceRates.T0 + 30_000), out.get(0).getStartedAt());
      assertEquals(AlertState.RESOLVED, out.get(1).getState());
    }
  }
}
