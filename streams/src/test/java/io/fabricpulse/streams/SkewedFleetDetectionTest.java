package io.fabricpulse.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.FaultAlerts;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
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
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 4, "the same input history always produces the same alerts", under uneven upstream
 * progress. The simulated fleet of {@code demo} (16 nodes, every source through the agent's own
 * tasks, {@link DemoFaults#scheduleAll} over 14 minutes) feeds the whole {@link FabricTopology},
 * but the odd nodes' records are piped up to 60 s behind the even nodes' and then catch up in a
 * burst, again and again, as records of nodes on partitions served by a lagging, restarting or
 * replaying task arrive. Each node's own records stay in order, as they do in its partition.
 *
 * <p>TopologyTestDriver has one partition per topic, so this skew is what a detector partition saw
 * in the live demo when fabric.rates was keyed by subject and several detectors repartitioned it.
 * The link, ECN/lossless/MTU and collector-silence families must still raise exactly one FIRING
 * alert per fault (and per end of a faulty cable: the host's and its leaf's, or both switches' of
 * an ISL, one incident) and nothing else, and the same alerts as with the input in time order. The
 * SM detectors, which merge gpu001's sminfo polls (lagging) with sm01's and sm02's OpenSM logs (not
 * lagging) per cluster, must raise exactly one SM_FAILOVER, no SM_ABSENT, and the same SM alerts.
 */
class SkewedFleetDetectionTest {

  private static final Instant START = Instant.parse("2025-03-01T03:00:00Z");
  private static final Duration WINDOW = Duration.ofMinutes(14);
  private static final int NODES = 16;
  private static final int MAX_LAG_S = 60;
  private static final int LAG_PERIOD_S = 300;

  /** The simulator's seed: {@code -Dfabricpulse.exactness.seed=N} runs the check on another. */
  private static final long SEED = Long.getLong("fabricpulse.exactness.seed", 42);

  /** The alert kinds of the families keyed per node on fabric.rates (link, ECN, silence). */
  private static final Set<AlertKind> PER_NODE_KINDS =
      EnumSet.of(
          AlertKind.LINK_FLAP,
          AlertKind.LINK_DOWN,
          AlertKind.LINK_DEGRADED,
          AlertKind.PHY_ERRORS,
          AlertKind.ECN_MISCONFIG,
          AlertKind.ECN_NOT_EFFECTIVE,
          AlertKind.LOSSLESS_DROP,
          AlertKind.MTU_MISMATCH,
          AlertKind.COLLECTOR_SILENT);

  @TempDir Path stateDir;

  @Test
  void skewedNodesRaiseExactlyOneAlertPerFaultAndNoSilence() throws Exception {
    Run skewed = run(MAX_LAG_S, "skewed");
    System.out.println("skewed input, FIRING by kind: " + skewed.countByKind());

    List<Alert> silent = skewed.firing(AlertKind.COLLECTOR_SILENT);
    assertEquals(0, silent.size(), "no node stopped reporting:\n" + Run.lines(silent));
    List<Alert> mine =
        skewed.firing.stream().filter(a -> PER_NODE_KINDS.contains(a.getKind())).toList();
    // each fault answered by its alerts (and the other end of its cable: one incident), FaultAlerts
    List<Alert> left = new ArrayList<>(mine);
    for (InjectedFault fault : skewed.faults) {
      if (fault.kind() == FaultKind.COUNTER_CLEAR || fault.kind() == FaultKind.NODE_REBOOT) {
        List<Alert> onNode = mine.stream().filter(a -> a.getNode().equals(fault.node())).toList();
        assertTrue(onNode.isEmpty(), fault + " must stay silent:\n" + Run.lines(onNode));
        continue;
      }
      for (AlertKind kind : FaultAlerts.expectedKinds(fault)) {
        if (!PER_NODE_KINDS.contains(kind)) {
          continue;
        }
        Alert a = FaultAlerts.take(left, kind, fault);
        assertTrue(a != null, fault + " -> no " + kind + ":\n" + Run.lines(mine));
        assertTrue(
            fault.device().equals(a.getDevice()) || fault.device().equals(a.getNetdev()),
            fault + " -> " + a);
        FaultAlerts.takeOtherEnds(left, a);
      }
    }
    assertEquals(
        List.of(), left, "one alert per fault and cable end, nothing else:\n" + Run.lines(left));

    Alert down = onHosts(skewed.firing(AlertKind.LINK_DOWN)).get(0);
    assertEquals("gpu004/mlx5_3", down.getNode() + "/" + down.getDevice());
    Alert flap = onHosts(skewed.firing(AlertKind.LINK_FLAP)).get(0);
    assertEquals("gpu001/mlx5_0", flap.getNode() + "/" + flap.getDevice());
    // a RESOLVED alert never ends before it started
    for (Alert a : skewed.all) {
      if (a.getState() == AlertState.RESOLVED) {
        assertTrue(!a.getResolvedAt().isBefore(a.getStartedAt()), a.toString());
      }
    }

    // the interleaving of nodes must not matter: the same alerts as with the input in time order
    Run ordered = run(0, "ordered");
    assertEquals(ordered.identities(PER_NODE_KINDS), skewed.identities(PER_NODE_KINDS));

    // the SM detectors see gpu001's sminfo polls up to 60 s behind sm01's and sm02's OpenSM logs:
    // one failover is still one SM_FAILOVER, the handoff (40 s) is no SM_ABSENT, in both runs
    for (Run run : List.of(skewed, ordered)) {
      List<Alert> sm = run.firing.stream().filter(a -> SM_KINDS.contains(a.getKind())).toList();
      assertEquals(1, run.firing(AlertKind.SM_FAILOVER).size(), Run.lines(sm));
      assertEquals(0, run.firing(AlertKind.SM_ABSENT).size(), Run.lines(sm));
      assertEquals(1, sm.size(), Run.lines(sm));
    }
    Alert failover = skewed.firing(AlertKind.SM_FAILOVER).get(0);
    assertEquals("sm01", failover.getEvidence().get("old_master_host"), failover.toString());
    assertEquals("sm02", failover.getEvidence().get("new_master_host"), failover.toString());
    assertEquals(ordered.smAlerts(), skewed.smAlerts());
  }

  /** The alerts on GPU hosts, not on the switches at the other end of their cables. */
  private static List<Alert> onHosts(List<Alert> alerts) {
    return alerts.stream().filter(a -> a.getNode().startsWith("gpu")).toList();
  }

  private static final Set<AlertKind> SM_KINDS =
      EnumSet.of(
          AlertKind.SM_FAILOVER, AlertKind.SM_ABSENT, AlertKind.SM_HUNG, AlertKind.SM_UNSTABLE);

  /** The alerts of one run of the whole fleet through the whole topology. */
  private record Run(List<InjectedFault> faults, List<Alert> all, List<Alert> firing) {

    List<Alert> firing(AlertKind kind) {
      return firing.stream().filter(a -> a.getKind() == kind).toList();
    }

    Map<AlertKind, Long> countByKind() {
      return firing.stream()
          .collect(Collectors.groupingBy(Alert::getKind, TreeMap::new, Collectors.counting()));
    }

    /** FIRING alerts of {@code kinds} as sorted "kind node device started_at" lines. */
    List<String> identities(Set<AlertKind> kinds) {
      return firing.stream()
          .filter(a -> kinds.contains(a.getKind()))
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
                      + a.getStartedAt())
          .sorted()
          .toList();
    }

    /** Every SM alert (FIRING and RESOLVED) without its lineage, which depends on arrival. */
    List<String> smAlerts() {
      return all.stream()
          .filter(a -> SM_KINDS.contains(a.getKind()))
          .map(
              a ->
                  Alert.newBuilder(a)
                      .setSourceTopic(null)
                      .setSourcePartition(null)
                      .setSourceOffset(null)
                      .build()
                      .toString())
          .toList();
    }

    static String lines(List<Alert> alerts) {
      return alerts.stream()
          .map(
              a ->
                  a.getState()
                      + " "
                      + a.getKind()
                      + " "
                      + a.getNode()
                      + "/"
                      + (a.getDevice() != null ? a.getDevice() : a.getNetdev())
                      + " "
                      + a.getStartedAt()
                      + ": "
                      + a.getSummary())
          .collect(Collectors.joining("\n"));
    }
  }

  /**
   * How far behind the even nodes an odd node's sample of second {@code s} is piped: rising to
   * {@code maxLag} (the node falls behind), holding, then falling back to 0 one second per second
   * (the catch-up burst: its backlog is piped at one instant). Pipe position s + lag never
   * decreases, so each node's own records stay in order.
   */
  private static long lag(long s, int maxLag) {
    if (maxLag == 0) {
      return 0;
    }
    long phase = s % LAG_PERIOD_S;
    if (phase < maxLag) {
      return phase;
    }
    return phase < LAG_PERIOD_S - maxLag ? maxLag : LAG_PERIOD_S - phase;
  }

  private Run run(int maxLag, String name) throws Exception {
    FabricSimulator sim =
        new FabricSimulator(SimulatorConfig.infiniband("demo", NODES, SEED, START));
    List<InjectedFault> faults = DemoFaults.scheduleAll(sim, START.plusSeconds(5), WINDOW);
    SimulatedAgents agents = new SimulatedAgents(sim);
    List<String> odd = new ArrayList<>();
    for (int i = 0; i < sim.nodes().size(); i++) {
      if (i % 2 == 0) { // gpu001, gpu003, ...: the first node is number 1
        odd.add(sim.nodes().get(i));
      }
    }

    Properties props =
        DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.resolve(name).toString());
    String registry = "mock://skewed-fleet-" + name;
    FabricTopics topics = FabricTopics.defaults();
    var topology =
        FabricTopology.build(
            topics, registry, RuleSet.load(RepoPaths.alertRules()), RateConfig.defaults(), props);

    List<Alert> alerts;
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, START)) {
      Map<String, TestInputTopic<String, SpecificRecord>> inputs = new HashMap<>();
      List<TopicSpec> read = new ArrayList<>(topics.raw());
      read.add(topics.topology());
      for (TopicSpec spec : read) {
        inputs.put(spec.name(), inputTopic(driver, spec, registry));
      }
      // pipe position (second) -> the records due then, in the order they were collected
      TreeMap<Long, List<Keyed>> pending = new TreeMap<>();
      // the window plus two minutes, as demo keeps sampling after the last fault starts
      long lastSecond = WINDOW.toSeconds() + 120;
      for (long s = 0; s <= lastSecond; s++) {
        for (SimulatedAgents.HostRecords host : agents.collect(START.plusSeconds(s))) {
          long pipeAt = s + (odd.contains(host.identity().node()) ? lag(s, maxLag) : 0);
          List<Keyed> due = pending.computeIfAbsent(pipeAt, k -> new ArrayList<>());
          host.records().stream()
              .filter(r -> !(r instanceof FabricLinkChange)) // no pipeline input: for people
              .forEach(r -> due.add(new Keyed(RecordKeys.keyOf(r), r)));
        }
        while (!pending.isEmpty() && pending.firstKey() <= s) {
          pipe(topics, inputs, pending.pollFirstEntry().getValue());
        }
      }
      while (!pending.isEmpty()) {
        pipe(topics, inputs, pending.pollFirstEntry().getValue());
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
    assertEquals(0, agents.failures());
    List<Alert> firing = alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
    return new Run(faults, alerts, firing);
  }

  private record Keyed(String key, SpecificRecord record) {}

  /** Pipes each record to the topic its collector publishes it on (counters by their source). */
  private static void pipe(
      FabricTopics topics,
      Map<String, TestInputTopic<String, SpecificRecord>> inputs,
      List<Keyed> records) {
    for (Keyed k : records) {
      SpecificRecord r = k.record();
      Object time = r.get(r.getSchema().getField("time").pos());
      long ms = time instanceof Instant i ? i.toEpochMilli() : (Long) time;
      inputs.get(topics.topicOf(r).name()).pipeInput(k.key(), r, ms);
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static TestInputTopic<String, SpecificRecord> inputTopic(
      TopologyTestDriver driver, TopicSpec spec, String registry) {
    Serializer<SpecificRecord> values =
        (Serializer) AvroSerde.forValues(spec.valueType(), registry).serializer();
    return driver.createInputTopic(spec.name(), new StringSerializer(), values);
  }
}
