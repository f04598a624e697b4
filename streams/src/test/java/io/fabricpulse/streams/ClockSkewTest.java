package io.fabricpulse.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatedAgents;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.RecordKeys;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fault 7 of RELIABILITY.md, clock skew: in a 6-node fleet of the simulator with the demo's port
 * faults over 5 minutes (a flap on gpu001, a degraded link on gpu002, symbol errors on gpu003, a
 * counter clear and a reboot that must stay silent; the whole {@link FabricTopology}; fabric01
 * sweeping the fat tree with its own clock, so the leaf end of a skewed node's cable is judged in
 * fabric01's time) gpu002's clock runs 30 s ahead and gpu003's 30 s behind, so every record they
 * publish is stamped that far off (the record's time and its Kafka timestamp; records still arrive
 * when they are taken). The documented behaviour: each node is judged in its own time, so the
 * skewed nodes' alerts are those of the run without skew with their start times 30 s later or
 * earlier, nothing else fires (no COLLECTOR_SILENT for the node behind, whose samples keep
 * arriving), and every raw record still gets its rates.
 */
@Tag("chaos")
class ClockSkewTest {
  private static final Instant START = Instant.parse("2025-03-01T03:00:00Z");
  private static final Duration WINDOW = Duration.ofMinutes(5);
  private static final int NODES = 6;
  private static final Map<String, Duration> SKEW =
      Map.of("gpu002", Duration.ofSeconds(30), "gpu003", Duration.ofSeconds(-30));

  @TempDir Path stateDir;

  @Test
  void nodesThirtySecondsAheadAndBehindRaiseTheSameAlertsInTheirOwnTimeAndLoseNoSample()
      throws Exception {
    Run skewed = run(SKEW, "skewed");
    Run straight = run(Map.of(), "straight");

    for (String node : SKEW.keySet()) {
      assertTrue(
          straight.firing().stream().anyMatch(a -> a.getNode().equals(node)),
          node + " has a fault of its own: " + straight.lines());
    }
    assertEquals(
        0,
        skewed.firing().stream().filter(a -> a.getKind() == AlertKind.COLLECTOR_SILENT).count(),
        "the node behind keeps reporting: no silence\n" + skewed.lines());
    assertEquals(
        straight.identities(Map.of()),
        skewed.identities(SKEW),
        "the same alerts, each skewed node's in its own time");
    assertEquals(skewed.raw, skewed.rates, "every raw record rated once, per node and source");
    assertEquals(straight.raw, skewed.raw, "the skew loses no sample");
    System.out.println(
        "ClockSkewTest: raw NodeCounters "
            + skewed.raw.values().stream().mapToLong(Long::longValue).sum()
            + ", NodeRates "
            + skewed.rates.values().stream().mapToLong(Long::longValue).sum()
            + ", FIRING "
            + skewed.firing().size()
            + " (same as unskewed: "
            + straight.firing().size()
            + ")");
  }

  /** One run: the alerts, and the NodeCounters piped and NodeRates out per node/source. */
  private record Run(List<Alert> alerts, Map<String, Long> raw, Map<String, Long> rates) {
    List<Alert> firing() {
      return alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
    }

    /**
     * FIRING alerts as sorted lines, the start time taken back by the skew of the node whose clock
     * stamped the evidence: the alert's own node, or the host that swept the link ({@code
     * observed_by}: a LINK_BELOW_CAPABILITY about gpu002 is in fabric01's time).
     */
    List<String> identities(Map<String, Duration> skew) {
      return firing().stream()
          .map(
              a ->
                  a.getKind()
                      + " "
                      + a.getNode()
                      + " "
                      + a.getDevice()
                      + " "
                      + a.getNetdev()
                      + " "
                      + a.getStartedAt().minus(skew.getOrDefault(observer(a), Duration.ZERO)))
          .sorted()
          .toList();
    }

    private static String observer(Alert a) {
      return a.getEvidence().getOrDefault("observed_by", a.getNode());
    }

    String lines() {
      return firing().stream()
          .map(a -> a.getKind() + " " + a.getNode() + " " + a.getStartedAt())
          .collect(Collectors.joining("\n"));
    }
  }

  private Run run(Map<String, Duration> skew, String name) throws Exception {
    FabricSimulator sim = new FabricSimulator(SimulatorConfig.infiniband("demo", NODES, 42, START));
    DemoFaults.schedulePortFaults(sim, START.plusSeconds(5), WINDOW);
    SimulatedAgents agents = new SimulatedAgents(sim);
    Properties props =
        DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.resolve(name).toString());
    String registry = "mock://clock-skew-" + name;
    FabricTopics topics = FabricTopics.defaults();
    var topology =
        FabricTopology.build(
            topics, registry, RuleSet.load(RepoPaths.alertRules()), RateConfig.defaults(), props);
    Map<String, Long> raw = new TreeMap<>();
    Map<String, Long> rates = new TreeMap<>();
    List<Alert> alerts;
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, START)) {
      Map<String, TestInputTopic<String, SpecificRecord>> inputs = new HashMap<>();
      List<TopicSpec> read = new java.util.ArrayList<>(topics.raw());
      read.add(topics.topology());
      for (TopicSpec spec : read) {
        inputs.put(spec.name(), inputTopic(driver, spec, registry));
      }
      var ratesOut =
          driver.createOutputTopic(
              topics.rates().name(),
              new StringDeserializer(),
              AvroSerde.forValues(NodeRates.class, registry).deserializer());
      // the window plus two minutes, as demo keeps sampling after the last fault starts
      for (long s = 0; s <= WINDOW.toSeconds() + 120; s++) {
        for (SimulatedAgents.HostRecords host : agents.collect(START.plusSeconds(s))) {
          Duration off = skew.getOrDefault(host.identity().node(), Duration.ZERO);
          for (SpecificRecord record : host.records()) {
            if (record instanceof FabricLinkChange) {
              continue; // fabric.topology.changes is for people; the pipeline reads the links
            }
            SpecificRecord stamped = shifted(record, off);
            Instant time = (Instant) stamped.get(stamped.getSchema().getField("time").pos());
            // the topic and key the collector publishes it with (a switch's counters, a link)
            inputs
                .get(topics.topicOf(stamped).name())
                .pipeInput(RecordKeys.keyOf(stamped), stamped, time.toEpochMilli());
            if (stamped instanceof NodeCounters n) {
              raw.merge(n.getNode() + "/" + n.getSource(), 1L, Long::sum);
            }
          }
        }
        for (NodeRates r : ratesOut.readValuesToList()) {
          rates.merge(r.getNode() + "/" + r.getSource(), 1L, Long::sum);
        }
      }
      alerts =
          driver
              .createOutputTopic(
                  topics.alerts().name(),
                  new StringDeserializer(),
                  AvroSerde.forValues(Alert.class, registry).deserializer())
              .readValuesToList();
    }
    assertEquals(0, agents.malformed());
    assertTrue(!raw.isEmpty());
    return new Run(alerts, raw, rates);
  }

  /** The record as a node whose clock is {@code off} would stamp it. */
  private static SpecificRecord shifted(SpecificRecord record, Duration off) {
    if (off.isZero()) {
      return record;
    }
    SpecificRecord copy = SpecificData.get().deepCopy(record.getSchema(), record);
    int time = record.getSchema().getField("time").pos();
    copy.put(time, ((Instant) copy.get(time)).plus(off));
    return copy;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static TestInputTopic<String, SpecificRecord> inputTopic(
      TopologyTestDriver driver, TopicSpec spec, String registry) {
    Serializer<SpecificRecord> values =
        (Serializer) AvroSerde.forValues(spec.valueType(), registry).serializer();
    return driver.createInputTopic(spec.name(), new StringSerializer(), values);
  }
}
