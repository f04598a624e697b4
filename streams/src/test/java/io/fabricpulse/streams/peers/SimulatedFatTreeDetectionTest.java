package io.fabricpulse.streams.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.agent.FabricTask;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.SimulatedFatTree;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fat tree end to end without a broker: the simulated fleet's HCAs read by the real sysfs
 * reader every second, and fabric01's real fabric role ({@code iblinkinfo -l} then {@code perfquery
 * -x} over every switch, every 10 s) over {@link SimulatedFatTree}, all fed to the whole {@link
 * FabricTopology} as the collectors publish them. Each ISL fault and one host flap must be detected
 * exactly, on the right switch ports, naming both ends of their cable.
 */
class SimulatedFatTreeDetectionTest {
  private static final Instant START = Instant.parse("2026-12-01T03:00:00Z");
  private static final Duration WINDOW = Duration.ofMinutes(12);

  @TempDir Path stateDir;

  @Test
  void everyIslFaultIsDetectedOnItsSwitchPortsAndAHostFlapNamesItsLeafPort() throws Exception {
    FabricSimulator sim = new FabricSimulator(SimulatorConfig.infiniband("c1", 16, 7, START));
    SimulatedFatTree tree = sim.fatTree().orElseThrow();
    tree.islFlap(
        2, 1, START.plusSeconds(121), 3, FabricSimulator.FLAP_DOWN, FabricSimulator.FLAP_UP);
    tree.islFault(FaultKind.ISL_SYMBOL_ERRORS, 3, 2, START.plusSeconds(181), Duration.ofMinutes(5));
    tree.islFault(FaultKind.ISL_NARROW_WIDTH, 4, 3, START.plusSeconds(241), Duration.ofMinutes(4));
    // gpu005 mlx5_4 is cabled to leaf05 port 5
    sim.linkFlap("gpu005", "mlx5_4", START.plusSeconds(301), 3);

    Properties props = DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.toString());
    String registry = "mock://fat-tree-sim";
    FabricTopics topics = FabricTopics.defaults();
    RuleSet rules = RuleSet.load(RepoPaths.alertRules());
    FabricTask fabric = tree.fabricTask(new NodeIdentity("c1", SimulatedFatTree.FABRIC_HOST, "b1"));
    Map<String, SysfsPortCounterReader> readers = new LinkedHashMap<>();
    Map<String, AtomicLong> seqs = new LinkedHashMap<>();
    for (String node : sim.nodes()) {
      readers.put(node, new SysfsPortCounterReader(sim.nodeTree(node)));
      seqs.put(node, new AtomicLong());
    }
    long malformed = 0;
    List<Alert> alerts;
    List<DeadLetter> dead;
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            FabricTopology.build(topics, registry, rules, RateConfig.defaults(), props),
            props,
            START)) {
      TestInputTopic<String, PortCounters> hosts =
          input(driver, topics.portCounters().name(), registry, PortCounters.class);
      TestInputTopic<String, NodeCounters> switches =
          input(driver, topics.switchCounters().name(), registry, NodeCounters.class);
      TestInputTopic<String, FabricLink> links =
          input(driver, topics.topology().name(), registry, FabricLink.class);
      for (long s = 0; s <= WINDOW.toSeconds(); s++) {
        Instant now = START.plusSeconds(s);
        sim.advanceTo(now);
        for (Map.Entry<String, SysfsPortCounterReader> e : readers.entrySet()) {
          NodeIdentity identity = sim.identity(e.getKey());
          ParseResult<PortCounters> result =
              e.getValue().read(new SampleContext(identity, now, seqs.get(e.getKey())));
          malformed += result.malformed().size();
          result
              .records()
              .forEach(p -> hosts.pipeInput(identity.key(), p, p.getTime().toEpochMilli()));
        }
        if (s % SimulatedFatTree.SWEEP.toSeconds() != 0) {
          continue;
        }
        ParseResult<SpecificRecord> swept = fabric.collect(now);
        malformed += swept.malformed().size();
        for (SpecificRecord r : swept.records()) {
          // keyed as KafkaRecordOutput keys them
          if (r instanceof FabricLink l) {
            links.pipeInput(l.getLinkId(), l, l.getTime().toEpochMilli());
          } else if (r instanceof FabricLinkChange c) {
            // fabric.topology.changes is history for people; the pipeline reads the tombstone
            if (c.getChange() == LinkChangeKind.DISAPPEARED) {
              links.pipeInput(c.getLinkId(), null, c.getTime().toEpochMilli());
            }
          } else if (r instanceof NodeCounters n) {
            switches.pipeInput(n.getCluster() + "/" + n.getNode(), n, n.getTime().toEpochMilli());
          }
        }
      }
      alerts =
          driver
              .createOutputTopic(
                  topics.alerts().name(),
                  new StringDeserializer(),
                  AvroSerde.forValues(Alert.class, registry).deserializer())
              .readValuesToList();
      dead =
          driver
              .createOutputTopic(
                  topics.deadLetters().name(),
                  new StringDeserializer(),
                  AvroSerde.forValues(DeadLetter.class, registry).deserializer())
              .readValuesToList();
    }
    assertEquals(0, malformed);
    assertEquals(List.of(), dead);
    List<Alert> firing = alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
    String all =
        firing.stream()
            .map(
                a ->
                    a.getKind()
                        + " "
                        + a.getNode()
                        + "/"
                        + a.getDevice()
                        + "/"
                        + a.getPort()
                        + " at "
                        + a.getStartedAt()
                        + " "
                        + a.getLabels())
            .collect(Collectors.joining("\n"));
    // kind node port -> the other end of the cable, as the alert names it
    Map<String, String> expected = new java.util.TreeMap<>();
    // a dirty leaf03-spine02 cable: the spine counts the symbol errors
    expected.put("PHY_ERRORS spine02 3", "leaf03 port 18");
    // leaf04-spine03 trained at 2X: below what both ends support (one alert for the cable), and
    // narrower than the port ran before (each end)
    expected.put("LINK_BELOW_CAPABILITY leaf04 19", "spine03 port 4");
    expected.put("LINK_DEGRADED leaf04 19", "spine03 port 4");
    expected.put("LINK_DEGRADED spine03 4", "leaf04 port 19");
    // leaf02-spine01 flapped: both ends count LinkDowned; the sweep lost the cable at each drop
    expected.put("LINK_FLAP leaf02 17", "spine01 port 2");
    expected.put("LINK_FLAP spine01 2", "leaf02 port 17");
    // gpu005 mlx5_4 flapped: its sysfs and its leaf port
    expected.put("LINK_FLAP gpu005 1", "leaf05 port 5");
    expected.put("LINK_FLAP leaf05 5", "gpu005 mlx5_4 port 1");
    Map<String, String> seen = new java.util.TreeMap<>();
    firing.forEach(
        a ->
            seen.put(
                a.getKind() + " " + a.getNode() + " " + a.getPort(),
                String.valueOf(a.getLabels().get(LinkPeers.PEER))));
    assertEquals(expected, seen, all);
    assertEquals(expected.size(), firing.size(), "one alert per port and kind:\n" + all);
    // a fault seen from both ends of its cable is one incident
    Map<String, Long> alertsPerIncident =
        firing.stream()
            .filter(a -> a.getKind() != AlertKind.LINK_BELOW_CAPABILITY)
            .collect(
                Collectors.groupingBy(
                    a -> a.getKind() + " " + a.getLabels().get(LinkPeers.INCIDENT),
                    java.util.TreeMap::new,
                    Collectors.counting()));
    assertEquals(
        List.of(1L, 2L, 2L, 2L),
        alertsPerIncident.values().stream().sorted().toList(),
        alertsPerIncident.toString());
    Instant thirdIslDrop = START.plusSeconds(121 + 2 * 60);
    firing.stream()
        .filter(a -> a.getNode().equals("spine01"))
        .forEach(
            a ->
                assertEquals(
                    thirdIslDrop.plusSeconds(9),
                    a.getStartedAt(),
                    "the first sweep after the third drop"));
  }

  private static <T extends SpecificRecord> TestInputTopic<String, T> input(
      TopologyTestDriver driver, String topic, String registry, Class<T> type) {
    return driver.createInputTopic(
        topic, new StringSerializer(), AvroSerde.forValues(type, registry).serializer());
  }
}
