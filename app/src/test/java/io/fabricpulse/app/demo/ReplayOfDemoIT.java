package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.app.testing.FaultScenario;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A recorded incident replayed: the demo's wiring (real KRaft broker, the streams application, the
 * sink) runs a 16-node simulated cluster with one fault of every kind; then {@code export}, {@code
 * replay} (from the topics, from the exported file, and from the data directory after the broker
 * stopped) and {@code replay --compare-live} must give exactly the alerts the live application
 * raised, twice the same bytes, and leave the live topics and groups as they were. One broker for
 * the class.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplayOfDemoIT {
  private static final String REGISTRY = "mock://replay-of-demo-it";
  private static final Duration FAULT_WINDOW = Duration.ofSeconds(60);
  private static final Duration RUN = FAULT_WINDOW.plusSeconds(40);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Path dataDir;
  private static EmbeddedPipeline pipeline;
  private static Instant start;
  private static Instant end;
  private static List<InjectedFault> faults;
  private static List<Alert> liveFiring;

  @BeforeAll
  static void recordAnIncident() throws Exception {
    dataDir = Files.createTempDirectory("replay-of-demo-it");
    start = Instant.now().minus(Duration.ofMinutes(10)).truncatedTo(ChronoUnit.SECONDS);
    end = start.plus(RUN);
    pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(dataDir, REGISTRY, 3, null, null), line -> {});
    FabricSimulator sim =
        new FabricSimulator(SimulatorConfig.infiniband("demo", DemoFaults.MIN_NODES, 42, start));
    faults = DemoFaults.scheduleAll(sim, start.plusSeconds(5), FAULT_WINDOW);
    DemoWatcher watcher =
        new DemoWatcher(
            pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP),
            pipeline.topics().rates().name(),
            pipeline.topics().alerts().name(),
            alert -> {});
    Thread watcherThread = new Thread(watcher, "replay-it-watcher");
    watcherThread.start();
    try (SimulatedFleet fleet =
        new SimulatedFleet(sim, pipeline.producerConfig(), pipeline.topics())) {
      for (long s = 0; s <= RUN.toSeconds(); s++) {
        fleet.collect(start.plusSeconds(s));
      }
      fleet.flush();
      assertEquals(0, fleet.malformed() + fleet.failures() + fleet.lost());
    }
    assertEquals(List.of(), PipelineDrain.await(pipeline, watcher, Duration.ofMinutes(3)));
    watcher.close();
    watcherThread.join(10_000);
    liveFiring = watcher.alerts().stream().filter(a -> a.getState() == AlertState.FIRING).toList();
    assertFalse(liveFiring.isEmpty(), "the incident raised alerts");
  }

  @AfterAll
  static void stop() throws IOException {
    if (pipeline != null) {
      pipeline.close();
    }
    if (dataDir != null) {
      try (Stream<Path> paths = Files.walk(dataDir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  @Order(1)
  void replayFromTheTopicsRaisesExactlyTheLiveAlertsTwiceTheSameBytes() throws Exception {
    Map<String, Long> offsetsBefore = endOffsets();
    Set<String> groupsBefore = groups();

    Run first = replay("--format", "json");
    Run second = replay("--format", "json");
    assertEquals(0, first.exit, first.stderr);
    assertEquals(first.stdout, second.stdout, "two replays print the same bytes");
    assertEquals(identities(liveFiring), identities(firing(first.stdout)), first.stderr);
    assertTrue(
        firing(first.stdout).stream().allMatch(a -> a.getLabels().containsKey("rules_hash")),
        "every replayed alert names the rules it ran with");

    Run compared = replay("--compare-live");
    assertEquals(0, compared.exit, compared.stderr);
    assertTrue(
        compared.stdout.contains(
            "compared with fabric.alerts: "
                + liveFiring.size()
                + " same, 0 new, 0 missed, 0 shifted"),
        compared.stdout);

    assertEquals(offsetsBefore, endOffsets(), "no topic was written");
    assertEquals(groupsBefore, groups(), "no consumer group was made");
  }

  @Test
  @Order(2)
  void theExportedFileReplaysToTheSameTimelineAndDetectReadsIt() throws Exception {
    Path file = dataDir.resolve("incident.jsonl");
    Run export =
        cli(
            "export",
            "--bootstrap-servers",
            pipeline.bootstrapServers(),
            "--schema-registry-url",
            REGISTRY,
            "--from",
            start.minus(Duration.ofHours(1)).toString(),
            "--to",
            end.plusSeconds(30).toString());
    assertEquals(0, export.exit, export.stderr);
    Files.writeString(file, export.stdout, StandardCharsets.UTF_8);

    Run fromTopics = replay("--format", "markdown");
    Run fromFile =
        cli(
            "replay",
            "--input",
            file.toString(),
            "--from",
            start.toString(),
            "--to",
            end.plusSeconds(30).toString(),
            "--format",
            "markdown");
    assertEquals(0, fromFile.exit, fromFile.stderr);
    assertEquals(fromTopics.stdout, fromFile.stdout);

    Run detect = cli("detect", "--no-flush", file.toString());
    List<Alert> detected =
        detect
            .stdout
            .lines()
            .map(JsonRecords::fromJson)
            .filter(Alert.class::isInstance)
            .map(Alert.class::cast)
            .filter(a -> a.getState() == AlertState.FIRING)
            .toList();
    assertEquals(identities(liveFiring), identities(detected), detect.stderr);
  }

  @Test
  @Order(3)
  void aStricterRuleRaisesTheExpectedExtraAlertAndCompareLiveShowsIt() throws Exception {
    Set<String> faulty = faults.stream().map(InjectedFault::node).collect(Collectors.toSet());
    String quiet =
        Stream.iterate(1, i -> i + 1)
            .map(i -> String.format("gpu%03d", i))
            .filter(n -> !faulty.contains(n))
            .findFirst()
            .orElseThrow();
    Path rules = Files.createDirectories(dataDir.resolve("stricter-rules"));
    try (Stream<Path> files = Files.list(FaultScenario.repoRoot().resolve("alert-rules"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
        Files.copy(f, rules.resolve(f.getFileName()));
      }
    }
    Files.writeString(
        rules.resolve("gpu.yaml"),
        Files.readString(rules.resolve("gpu.yaml"))
            + "\n  - id: gpu-hot-strict\n"
            + "    detector: gpu_hot\n"
            + "    severity: WARNING\n"
            + "    description: what-if, "
            + quiet
            + " pages from 30 C.\n"
            + "    selectors: {node: \""
            + quiet
            + "\"}\n"
            + "    thresholds: {temperature_c: 30, duration: 60s}\n"
            + "    hysteresis: 60s\n");
    Run strict = replay("--rules", rules.toString(), "--compare-live", "--format", "json");
    assertEquals(0, strict.exit, strict.stderr);
    JsonNode diff = JSON.readTree(strict.stdout.lines().reduce((a, b) -> b).orElseThrow());
    assertEquals("LiveComparison", diff.get("type").asText());
    assertEquals(liveFiring.size(), diff.get("same").asInt(), strict.stdout);
    assertEquals(0, diff.get("missed").size(), strict.stdout);
    assertEquals(0, diff.get("shifted").size(), strict.stdout);
    assertEquals(8, diff.get("new").size(), "one per GPU of " + quiet + ": " + strict.stdout);
    for (JsonNode added : diff.get("new")) {
      assertEquals("GPU_HOT", added.get("kind").asText());
      assertEquals("gpu-hot-strict", added.get("rule").asText());
      assertTrue(added.get("subject").asText().startsWith(quiet + " gpu "), added.toString());
    }
  }

  @Test
  @Order(4)
  void afterTheDemoStopsReplayOnItsDataDirectoryReproducesItsAlerts() throws Exception {
    Run live = replay("--format", "json");
    pipeline.close();
    pipeline = null;
    Run fromDataDir =
        cli(
            "replay",
            "--data-dir",
            dataDir.toString(),
            "--from",
            start.toString(),
            "--to",
            end.plusSeconds(30).toString(),
            "--format",
            "json");
    assertEquals(0, fromDataDir.exit, fromDataDir.stderr);
    assertEquals(live.stdout, fromDataDir.stdout);
    assertEquals(identities(liveFiring), identities(firing(fromDataDir.stdout)));
  }

  private record Run(int exit, String stdout, String stderr) {}

  private static Run replay(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "replay",
                "--bootstrap-servers",
                pipeline.bootstrapServers(),
                "--schema-registry-url",
                REGISTRY,
                "--from",
                start.toString(),
                "--to",
                end.plusSeconds(30).toString()));
    args.addAll(List.of(extra));
    return cli(args.toArray(String[]::new));
  }

  private static Run cli(String... args) {
    var cli = FabricPulse.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static List<Alert> firing(String jsonLines) throws IOException {
    List<Alert> alerts = new ArrayList<>();
    for (String line : jsonLines.lines().toList()) {
      JsonNode node = JSON.readTree(line);
      if (node.get("type").asText().equals("ReplayedAlert")) {
        Alert a = JsonRecords.fromJson(node.get("alert").toString(), Alert.class);
        if (a.getState() == AlertState.FIRING) {
          alerts.add(a);
        }
      }
    }
    return alerts;
  }

  /** What makes an alert the same incident: its id (rule, subject, start), kind, start, summary. */
  private static Set<String> identities(Collection<Alert> alerts) {
    Set<String> ids = new TreeSet<>();
    for (Alert a : alerts) {
      ids.add(a.getAlertId() + " " + a.getKind() + " " + a.getStartedAt() + " " + a.getSummary());
    }
    return ids;
  }

  private static Map<String, Long> endOffsets() throws Exception {
    try (Admin admin = Admin.create(pipeline.adminConfig())) {
      Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> query =
          new TreeMap<>(java.util.Comparator.comparing(TopicPartition::toString));
      for (TopicDescription d :
          admin.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
        d.partitions()
            .forEach(
                p -> query.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
      }
      Map<String, Long> offsets = new TreeMap<>();
      admin
          .listOffsets(query)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, o) -> offsets.put(tp.toString(), o.offset()));
      return offsets;
    }
  }

  private static Set<String> groups() throws Exception {
    try (Admin admin = Admin.create(pipeline.adminConfig())) {
      return admin.listConsumerGroups().all().get(30, TimeUnit.SECONDS).stream()
          .map(ConsumerGroupListing::groupId)
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
