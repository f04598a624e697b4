package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.streams.FabricTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The whole product on real parts, as {@code ./fabricpulse demo} runs it: the node agents of a
 * simulated 16-node cluster with one fault of every kind publish to a real KRaft broker, the
 * streams application runs the rate stage and every detector, and the sink writes to QuestDB. Every
 * fault must raise exactly one alert of its kind on its subject, clears and reboots none, and
 * nothing else may fire.
 */
class DetectionExactnessIT {
  private static final Duration FAULT_WINDOW = Duration.ofMinutes(12);
  private static final Duration RUN = FAULT_WINDOW.plusMinutes(3);

  /**
   * The simulator's seeds, one run each: {@code -Dfabricpulse.exactness.seeds=42,7,7,1234} runs the
   * check on those, one after the other in one JVM (a seed may repeat); 42 when unset.
   */
  static Stream<Long> seeds() {
    return Arrays.stream(System.getProperty("fabricpulse.exactness.seeds", "42").split(","))
        .map(String::trim)
        .filter(s -> !s.isEmpty())
        .map(Long::valueOf);
  }

  @ParameterizedTest(name = "run {index}: seed {0}")
  @MethodSource("seeds")
  void everyInjectedFaultRaisesExactlyOneAlertAndNothingElseFires(long seed, @TempDir Path dir)
      throws Exception {
    Instant start =
        Instant.now()
            .minus(RUN)
            .minusSeconds(60)
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    try (EmbeddedPipeline pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(dir, "mock://detection-exactness-it", 3, null, null),
            line -> {})) {
      FabricSimulator sim =
          new FabricSimulator(
              SimulatorConfig.infiniband("demo", DemoFaults.MIN_NODES, seed, start));
      List<InjectedFault> faults = DemoFaults.scheduleAll(sim, start.plusSeconds(5), FAULT_WINDOW);
      assertEquals(
          Arrays.stream(FaultKind.values()).collect(Collectors.toSet()),
          faults.stream().map(InjectedFault::kind).collect(Collectors.toSet()),
          "one fault of every kind");
      DemoWatcher watcher =
          new DemoWatcher(
              pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP),
              pipeline.topics().rates().name(),
              pipeline.topics().alerts().name(),
              alert -> {});
      Thread watcherThread = new Thread(watcher, "exactness-watcher");
      watcherThread.start();
      try (SimulatedFleet fleet =
          new SimulatedFleet(sim, pipeline.producerConfig(), pipeline.topics())) {
        for (long s = 0; s <= RUN.toSeconds(); s++) {
          fleet.collect(start.plusSeconds(s));
        }
        fleet.flush();
        assertEquals(0, fleet.malformed() + fleet.failures() + fleet.lost());
      }
      assertEquals(List.of(), PipelineDrain.await(pipeline, watcher, Duration.ofMinutes(5)));
      watcher.close();
      watcherThread.join(10_000);

      List<Alert> alerts = watcher.alerts();
      // Every alert as JSON lines beside the surefire reports, for reading a failure.
      java.nio.file.Files.write(
          Path.of("target", "detection-exactness-alerts-seed-" + seed + ".jsonl"),
          alerts.stream().map(io.fabricpulse.schemas.json.JsonRecords::toJson).toList());
      Set<io.fabricpulse.avro.AlertKind> detectable = FabricTopology.detectedKinds();
      DetectionReport report =
          DetectionReport.compare(
              faults, alerts, detectable, DetectionReport.propagationMinNodes(pipeline.rules()));
      String story = report.story();
      System.out.printf(
          "detection exactness seed %d: %d faults, %d alert records, exact %s%n",
          seed, faults.size(), alerts.size(), report.exact());
      assertEquals(List.of(), report.notCovered(), "every fault kind has a detector");
      assertEquals(List.of(), report.missed(), story);
      assertEquals(List.of(), report.unexpected(), story);
      assertTrue(report.exact(), story);
      // nothing lost on the way to the store; a write that timed out on a loaded machine and
      // succeeded on retry is the sink doing its job, not a failure of this run
      assertEquals(0, pipeline.sink().metrics().pointsRejected());
      assertTheStormIsTracedThroughTheSwitches(sim, faults, alerts);
    }
  }

  /**
   * The fleet's RoCE netdevs hang off the simulator's leaf/spine Ethernet fabric, whose hosts and
   * switches announce their cables over LLDP: the origin's storm alert names the leaf port its
   * cable ends on, and the propagation alert the switches from the origin's leaf over the spines to
   * the victims' other leaves.
   */
  private static void assertTheStormIsTracedThroughTheSwitches(
      FabricSimulator sim, List<InjectedFault> faults, List<Alert> alerts) {
    InjectedFault storm =
        faults.stream()
            .filter(f -> f.kind() == FaultKind.PFC_PAUSE_STORM)
            .findFirst()
            .orElseThrow();
    String netdev = storm.device();
    String originPort = sim.ethernet().switchPortOf(storm.node(), netdev);
    Alert originStorm =
        firing(alerts, AlertKind.PAUSE_STORM)
            .filter(a -> storm.node().equals(a.getNode()))
            .findFirst()
            .orElseThrow();
    assertEquals(originPort, originStorm.getLabels().get("peer"), "the origin's leaf port");

    String originLeaf = originPort.split(" ")[0];
    List<String> otherLeaves =
        storm.affected().stream()
            .map(victim -> sim.ethernet().switchPortOf(victim.split("/")[0], netdev).split(" ")[0])
            .filter(leaf -> !leaf.equals(originLeaf))
            .distinct()
            .sorted()
            .toList();
    String spines =
        sim.ethernet().switches().stream()
            .filter(s -> s.startsWith("roce-spine"))
            .collect(Collectors.joining(", "));
    Alert propagation = firing(alerts, AlertKind.PAUSE_PROPAGATION).findFirst().orElseThrow();
    assertEquals(
        originLeaf + " -> " + spines + " -> " + String.join(", ", otherLeaves),
        propagation.getEvidence().get("path"),
        propagation.getSummary());
  }

  private static Stream<Alert> firing(List<Alert> alerts, AlertKind kind) {
    return alerts.stream().filter(a -> a.getKind() == kind && a.getState() == AlertState.FIRING);
  }
}
