package io.fabricpulse.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.detect.gpu.GpuHealthDetector;
import io.fabricpulse.streams.detect.sm.SubnetManagerDetector;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
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

/** The SM and GPU families inside the one production topology, with the shipped rules. */
class FabricTopologySmGpuTest {

  @TempDir Path stateDir;

  @Test
  void smAndGpuDetectorsRunInTheFullTopologyWithExplicitNames() throws Exception {
    Properties props = DriverSettings.of("fabric-smgpu-test", stateDir.toString());
    FabricTopics topics = FabricTopics.defaults();
    RuleSet rules = RuleSet.load(RepoPaths.alertRules());
    Topology topology =
        FabricTopology.build(topics, "mock://fabric-smgpu", rules, RateConfig.defaults(), props);
    String described = topology.describe().toString();
    assertTrue(described.contains(SubnetManagerDetector.PROCESSOR), described);
    assertTrue(described.contains(GpuHealthDetector.PROCESSOR), described);
    assertFalse(described.matches("(?s).*KSTREAM-[A-Z]+-\\d+.*"), described);
    assertTrue(FabricTopology.detectedKinds().contains(AlertKind.SM_FAILOVER));
    assertTrue(FabricTopology.detectedKinds().contains(AlertKind.GPU_ECC_AGING));

    DetectorSerdes serdes = DetectorSerdes.forRegistry("mock://fabric-smgpu");
    Instant t0 = Instant.parse("2025-03-10T06:00:00Z");
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, t0)) {
      var sm =
          driver.createInputTopic(
              topics.sm().name(), new StringSerializer(), serdes.value(SmSweep.class).serializer());
      var alerts =
          driver.createOutputTopic(
              topics.alerts().name(), new StringDeserializer(), serdes.alert().deserializer());
      sm.pipeInput("c1/gpu001", poll(t0, "0x1", 1), t0);
      sm.pipeInput("c1/gpu001", poll(t0.plusSeconds(10), "0x2", 2), t0.plusSeconds(10));
      List<Alert> fired = alerts.readValuesToList();
      assertEquals(1, fired.size(), fired.toString());
      assertEquals(AlertKind.SM_FAILOVER, fired.get(0).getKind());
    }
  }

  private static SmSweep poll(Instant t, String guid, int lid) {
    return SmSweep.newBuilder()
        .setCluster("c1")
        .setNode("gpu001")
        .setBootId("b")
        .setSeq(lid)
        .setTime(t)
        .setSource(io.fabricpulse.avro.SmSource.SMINFO)
        .setEvent(io.fabricpulse.avro.SmEventKind.SMINFO_POLL)
        .setSmState("MASTER")
        .setSmGuid(guid)
        .setSmLid(lid)
        .setActivityCount(100L)
        .setRawLine("sminfo: sm lid " + lid + " sm guid " + guid + ", activity count 100")
        .build();
  }
}
