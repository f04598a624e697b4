package io.fabricpulse.streams.detect.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.LinkLayer;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Detection exactness without a broker: the simulated fabric with {@link DemoFaults} over a
 * 14-minute window, read by the real {@link SysfsPortCounterReader} every simulated second and fed
 * to the whole {@link FabricTopology} (rate stage and every detector) as {@code demo} publishes
 * them (key = node, timestamp = sample time). Each port fault must raise exactly one FIRING alert
 * of its kind on its node and device; the counter clear, the reboot and the healthy background must
 * raise nothing.
 */
class SimulatedFabricLinkDetectionTest {

  private static final Instant START = Instant.parse("2025-03-01T03:00:00Z");
  private static final Duration WINDOW = Duration.ofMinutes(14);
  private static final Set<AlertKind> LINK_KINDS = LinkHealthDetector.MODULE.kinds();

  @TempDir Path stateDir;

  @Test
  void everyInjectedPortFaultIsExactlyOneAlertAndClearsAndRebootsStaySilent() throws Exception {
    FabricSimulator sim =
        new FabricSimulator(new SimulatorConfig("c1", 8, 8, 42, START, LinkLayer.INFINIBAND));
    List<InjectedFault> faults = DemoFaults.schedulePortFaults(sim, START.plusSeconds(5), WINDOW);

    Properties props = DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.toString());
    String registry = "mock://link-sim";
    FabricTopics topics = FabricTopics.defaults();
    Topology topology =
        FabricTopology.build(
            topics, registry, RuleSet.load(RepoPaths.alertRules()), RateConfig.defaults(), props);

    Serde<PortCounters> portSerde = AvroSerde.forValues(PortCounters.class, registry);
    Serde<Alert> alertSerde = AvroSerde.forValues(Alert.class, registry);
    Serde<DeadLetter> dlqSerde = AvroSerde.forValues(DeadLetter.class, registry);
    Map<String, SysfsPortCounterReader> readers = new LinkedHashMap<>();
    Map<String, AtomicLong> seqs = new LinkedHashMap<>();
    for (String node : sim.nodes()) {
      readers.put(node, new SysfsPortCounterReader(sim.nodeTree(node)));
      seqs.put(node, new AtomicLong());
    }
    List<Alert> alerts;
    long dead;
    long malformed = 0;
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, START)) {
      TestInputTopic<String, PortCounters> raw =
          driver.createInputTopic(
              topics.portCounters().name(), new StringSerializer(), portSerde.serializer());
      // the window plus two minutes, as demo keeps sampling after the last fault starts
      for (long s = 0; s <= WINDOW.toSeconds() + 120; s++) {
        Instant now = START.plusSeconds(s);
        sim.advanceTo(now);
        for (Map.Entry<String, SysfsPortCounterReader> e : readers.entrySet()) {
          NodeIdentity identity = sim.identity(e.getKey());
          ParseResult<PortCounters> result =
              e.getValue().read(new SampleContext(identity, now, seqs.get(e.getKey())));
          malformed += result.malformed().size();
          for (PortCounters p : result.records()) {
            raw.pipeInput(identity.key(), p, p.getTime().toEpochMilli());
          }
        }
      }
      alerts =
          driver
              .createOutputTopic(
                  topics.alerts().name(), new StringDeserializer(), alertSerde.deserializer())
              .readValuesToList();
      dead =
          driver
              .createOutputTopic(
                  topics.deadLetters().name(), new StringDeserializer(), dlqSerde.deserializer())
              .getQueueSize();
    }
    assertEquals(0, malformed);
    assertEquals(0, dead);

    List<Alert> firing = alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
    String all =
        firing.stream()
            .map(a -> a.getKind() + " " + a.getNode() + "/" + a.getDevice() + ": " + a.getSummary())
            .collect(Collectors.joining("\n"));
    // nothing fires on the healthy ports, the cleared port or the rebooted node
    assertEquals(4, firing.size(), all);
    for (InjectedFault fault : faults) {
      List<Alert> about =
          firing.stream()
              .filter(a -> a.getNode().equals(fault.node()))
              .filter(a -> fault.device() == null || fault.device().equals(a.getDevice()))
              .toList();
      if (fault.kind() == FaultKind.COUNTER_CLEAR || fault.kind() == FaultKind.NODE_REBOOT) {
        assertTrue(about.isEmpty(), fault + " must stay silent:\n" + all);
        continue;
      }
      AlertKind expected = fault.expectedAlert().orElseThrow();
      assertTrue(LINK_KINDS.contains(expected), fault.toString());
      assertEquals(1, about.size(), fault + " ->\n" + all);
      Alert a = about.get(0);
      assertEquals(expected, a.getKind(), fault + " -> " + a);
      assertEquals(fault.device(), a.getDevice());
      assertEquals(fault.port(), a.getPort());
      // a flap fires at its third drop; the others at their first faulty sample
      Instant startedAt =
          fault.kind() == FaultKind.LINK_FLAP
              ? fault
                  .start()
                  .plus(FabricSimulator.FLAP_DOWN.plus(FabricSimulator.FLAP_UP))
                  .plus(FabricSimulator.FLAP_DOWN.plus(FabricSimulator.FLAP_UP))
              : fault.start();
      assertEquals(startedAt, a.getStartedAt(), fault + " -> " + a);
      if (fault.kind() != FaultKind.LINK_DOWN) {
        // the raw sample behind it, through the rate stage's lineage headers
        assertEquals(topics.portCounters().name(), a.getSourceTopic(), a.toString());
      }
    }
  }
}
