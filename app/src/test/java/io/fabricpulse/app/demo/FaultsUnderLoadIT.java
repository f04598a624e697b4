package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.run.BrokerWatch;
import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.app.run.StreamsRunner;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.health.OutageLog;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.sinks.influx.InfluxSchema;
import io.fabricpulse.sinks.influx.Resolution;
import io.fabricpulse.sinks.influx.SinkPoint;
import io.fabricpulse.sinks.influx.SinkResolution;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import io.fabricpulse.streams.FabricTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.CloseOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults 1, 2 and 3 of issue 12 in one run of the demo's fault scenario on the real parts (KRaft
 * broker, streams application with exactly-once v2, sink, QuestDB), with the bad records of fault 5
 * interleaved, so the expensive part, 15 simulated minutes of a 16-node fleet, is paid once:
 *
 * <ul>
 *   <li>a second instance of the streams application joins and takes a share of the tasks, and is
 *       closed mid-stream without leaving the group, as a killed process would leave it (its
 *       partitions move only when its session times out);
 *   <li>the broker stops for 15 s while the agents keep producing (10 simulated seconds a second):
 *       they buffer and deliver after the restart;
 *   <li>the time-series store stops for 30 s: the sink pauses, retries, and commits only what it
 *       wrote;
 *   <li>13 bad records a simulated second (over 10,000 in the run), of four kinds, cycled over
 *       every input topic.
 * </ul>
 *
 * <p>The verdict is read from the topics and the store after the pipeline drained, never from a
 * consumer group that a rebalance could make read twice: every record published is on its raw topic
 * exactly once, every counter sample has exactly one NodeRates, every bad record has its dead
 * letter, every injected fault raised exactly one alert and nothing else fired, no alert record (id
 * and state) was written twice, and the store holds exactly one point per record of the topics it
 * is written from. Figures go to the test's output for RELIABILITY.md.
 */
@Tag("chaos")
class FaultsUnderLoadIT {
  private static final Duration FAULT_WINDOW = Duration.ofMinutes(12);
  private static final Duration RUN = FAULT_WINDOW.plusMinutes(3);
  private static final long SECOND_INSTANCE_FROM = 90;
  private static final long BROKER_DOWN_AT = 240;
  private static final Duration BROKER_DOWN_FOR = Duration.ofSeconds(15);
  private static final long SECOND_INSTANCE_LOST_AT = 420;
  private static final long STORE_DOWN_AT = 540;
  private static final Duration STORE_DOWN_FOR = Duration.ofSeconds(30);

  /** Wall time per simulated second while a part is down: the agents keep producing. */
  private static final long PACE_MS_PER_SIMULATED_SECOND = 100;

  private static final long BAD_FROM = 60;
  private static final int BAD_PER_SECOND = 13;
  private static final Duration RECOVERY_DEADLINE = Duration.ofMinutes(3);

  @Test
  void brokerRestartInstanceLossStoreOutageAndBadRecordsLoseNothingAndPageEachFaultOnce(
      @TempDir Path dir) throws Exception {
    long testStart = System.nanoTime();
    Instant start = Instant.now().minus(RUN).minusSeconds(60).truncatedTo(ChronoUnit.SECONDS);
    String registry = "mock://faults-under-load-it";
    try (EmbeddedPipeline pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(dir, registry, 3, null, null), line -> {})) {
      String bootstrap = pipeline.bootstrapServers();
      FabricTopics topics = pipeline.topics();
      FabricSimulator sim =
          new FabricSimulator(SimulatorConfig.infiniband("demo", DemoFaults.MIN_NODES, 42, start));
      List<InjectedFault> faults = DemoFaults.scheduleAll(sim, start.plusSeconds(5), FAULT_WINDOW);
      DemoWatcher watcher =
          new DemoWatcher(
              pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP),
              topics.rates().name(),
              topics.alerts().name(),
              alert -> {});
      Thread watcherThread = new Thread(watcher, "faults-watcher");
      watcherThread.start();

      List<String> inputs = new ArrayList<>(topics.raw().stream().map(TopicSpec::name).toList());
      inputs.add(topics.rates().name());
      List<OutageLog.Line> brokerLines = new CopyOnWriteArrayList<>();
      Properties client = new Properties();
      client.put("bootstrap.servers", bootstrap);
      EmbeddedQuestDb store = pipeline.questDb();
      Figures f = new Figures();
      // The fleet is one thread for 16 agents: a send must not wait for metadata (1 s by default,
      // fine for an agent's one-thread-per-source schedule) or the outage would stall the fleet.
      Properties fleetProducer = pipeline.producerConfig();
      fleetProducer.put("max.block.ms", "10");
      try (BrokerWatch brokerWatch = BrokerWatch.start(client, brokerLines::add);
          CorruptRecords bad = new CorruptRecords(bootstrap, inputs);
          SimulatedFleet fleet = new SimulatedFleet(sim, fleetProducer, topics)) {
        StreamsRunner second = null;
        int allTasks = 0;
        long brokerDownSince = -1;
        long storeDownSince = -1;
        long secondLostAt = -1;
        for (long s = 0; s <= RUN.toSeconds(); s++) {
          Instant now = start.plusSeconds(s);
          if (s == BAD_FROM) {
            fleet.flush();
            bad.takeGoodRecords();
          }
          if (s == SECOND_INSTANCE_FROM) {
            allTasks = activeTasks(pipeline.streams());
            second = pipeline.newStreamsInstance(dir.resolve("streams-second"));
            second.start(Duration.ofSeconds(120));
          }
          if (s == SECOND_INSTANCE_LOST_AT) {
            f.secondTasks = activeTasks(second);
            second
                .streams()
                .close(
                    CloseOptions.groupMembershipOperation(
                            CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                        .withTimeout(Duration.ZERO));
            secondLostAt = System.nanoTime();
          }
          if (secondLostAt >= 0 && activeTasks(pipeline.streams()) == allTasks) {
            f.takeoverSeconds = seconds(secondLostAt);
            secondLostAt = -1;
          }
          if (s == BROKER_DOWN_AT) {
            bad.flush();
            pipeline.broker().stop();
            brokerDownSince = System.nanoTime();
          }
          if (brokerDownSince >= 0 && elapsed(brokerDownSince, BROKER_DOWN_FOR)) {
            f.brokerDownSeconds = seconds(brokerDownSince);
            // what the status page and /api/health show during the outage
            var kafka = brokerWatch.health().probe().get();
            assertTrue(
                !kafka.ok() && kafka.detail().contains("unreachable for"),
                "the health check says Kafka is down: " + kafka);
            long t0 = System.nanoTime();
            pipeline.broker().restart(Duration.ofSeconds(120));
            f.brokerRestartSeconds = seconds(t0);
            long restartedAt = System.nanoTime();
            long ratesBefore = watcher.rates();
            awaitTrue(() -> watcher.rates() > ratesBefore, "rates flowing after the restart");
            f.ratesAgainSeconds = seconds(restartedAt);
            awaitTrue(() -> brokerWatch.health().probe().get().ok(), "the health check passing");
            brokerDownSince = -1;
          }
          if (s == STORE_DOWN_AT) {
            store.stop();
            storeDownSince = System.nanoTime();
          }
          if (storeDownSince >= 0 && elapsed(storeDownSince, STORE_DOWN_FOR)) {
            assertTrue(
                pipeline.sink().metrics().writeFailures() > 0, "the sink saw the store down");
            f.storeDownSeconds = seconds(storeDownSince);
            long t0 = System.nanoTime();
            store.start();
            awaitTrue(() -> !pipeline.sink().isBackingOff(), "the sink writing again");
            f.sinkAgainSeconds = seconds(t0);
            storeDownSince = -1;
          }
          fleet.collect(now);
          if (s >= BAD_FROM && brokerDownSince < 0) {
            bad.write(BAD_PER_SECOND, "demo/corrupt-" + (s % 16), now.toEpochMilli());
          }
          if (brokerDownSince >= 0 || storeDownSince >= 0) {
            TimeUnit.MILLISECONDS.sleep(PACE_MS_PER_SIMULATED_SECOND);
          }
        }
        assertTrue(brokerDownSince < 0 && storeDownSince < 0, "both outages ended within the run");
        assertTrue(f.secondTasks > 0, "the second instance had tasks when it was lost");
        if (secondLostAt >= 0) {
          int tasks = allTasks;
          awaitTrue(
              () -> activeTasks(pipeline.streams()) == tasks, "the lost instance's tasks moved");
          f.takeoverSeconds = seconds(secondLostAt);
        }
        second.close();
        fleet.flush();
        bad.flush();
        f.published = fleet.published();
        f.refused = fleet.refusedSends();
        assertEquals(0, fleet.malformed() + fleet.failures() + fleet.lost(), "agents lost nothing");
        assertEquals(List.of(), bad.failures(), "every bad record reached the broker");
        assertTrue(
            brokerLines.stream().anyMatch(OutageLog.Line::warning),
            "the broker outage was reported: " + brokerLines);
        assertTrue(
            brokerLines.stream().anyMatch(l -> !l.warning() && l.text().contains("answers again")),
            "and its end: " + brokerLines);

        long drainStart = System.nanoTime();
        assertEquals(List.of(), PipelineDrain.await(pipeline, watcher, Duration.ofMinutes(5)));
        f.drainSeconds = seconds(drainStart);
        watcher.close();
        watcherThread.join(10_000);

        Map<CorruptRecords.Landed, CorruptRecords.Kind> landed = bad.landed();
        Predicate<ConsumerRecord<String, byte[]>> isBad =
            r ->
                landed.containsKey(new CorruptRecords.Landed(r.topic(), r.partition(), r.offset()));

        // every bad record in fabric.dlq with its coordinates, and nothing else there
        assertEquals(bad.sent(), landed.size());
        CorruptRecords.DeadLetterCheck dlq = bad.check(topics.deadLetters().name(), registry);
        assertEquals(Set.of(), dlq.missing(), "bad records without a dead letter");
        assertEquals(
            landed.size(), dlq.ofBadRecords(), "one dead letter per bad record: " + dlq.twice());
        assertEquals(landed.size(), dlq.deadLetters(), "and no other dead letter");
        f.bad = bad.sent();
        f.deadLetters = dlq.deadLetters();

        // fault 1: every record published is on its topic exactly once
        List<TopicSpec> published = new ArrayList<>(topics.raw());
        published.add(topics.topology());
        published.add(topics.topologyChanges());
        Map<String, List<ConsumerRecord<String, byte[]>>> good = new LinkedHashMap<>();
        for (TopicSpec topic : published) {
          good.put(
              topic.name(),
              Sequences.readAll(bootstrap, topic.name()).stream().filter(isBad.negate()).toList());
        }
        f.delivered = good.values().stream().mapToLong(List::size).sum();
        f.repeated = good.values().stream().mapToLong(FaultsUnderLoadIT::repeated).sum();
        assertEquals(0, f.repeated, "raw records written twice: " + repeatedByTopic(good));
        assertEquals(f.published, f.delivered, "records published and on the raw topics");
        List<String> counterTopics =
            List.of(
                topics.portCounters().name(),
                topics.pfc().name(),
                topics.ecn().name(),
                topics.switchCounters().name());
        Sequences raw = Sequences.ofRaw(bootstrap, registry, counterTopics, isBad);
        Sequences rates = Sequences.ofRates(bootstrap, registry, topics.rates().name(), isBad);
        assertEquals(0, raw.gaps(), "raw sequence gaps");
        assertEquals(0, raw.duplicated(), "raw duplicates");
        assertEquals(0, rates.duplicated(), "rates computed twice");
        assertEquals(0, rates.missingFrom(raw), "raw samples without their rates");
        assertEquals(raw.count(), rates.count(), "one NodeRates per raw NodeCounters");

        // every injected fault exactly once, nothing else, no alert record twice
        List<Alert> alerts = AlertRecords.decodeAll(bootstrap, registry, topics.alerts().name());
        List<String> twice = AlertRecords.writtenTwice(alerts);
        DetectionReport report =
            DetectionReport.compare(
                faults,
                alerts,
                FabricTopology.detectedKinds(),
                DetectionReport.propagationMinNodes(pipeline.rules()));
        String story =
            report.story() + "\nGPU alerts with the records they came from:\n" + gpuLineage(alerts);
        assertEquals(List.of(), twice, "alert records written twice\n" + story);
        assertEquals(List.of(), report.missed(), story);
        assertEquals(List.of(), report.unexpected(), story);

        // fault 3: one point in the store per record it is written from
        Map<String, Long> expected =
            expectedPoints(registry, topics, good, alerts, bootstrap, isBad);
        for (Map.Entry<String, Long> e : expected.entrySet()) {
          long stored = awaitCount(store, e.getKey(), e.getValue());
          assertEquals(e.getValue(), stored, "points in " + e.getKey());
          f.stored += stored;
        }
        assertEquals(0, pipeline.sink().metrics().pointsRejected());
        f.alerts = alerts.size();
        f.detected = report.detected().size();
        f.rawCounters = raw.count();
        f.series = raw.series();
        f.rates = rates.count();
        f.writeFailures = pipeline.sink().metrics().writeFailures();
        f.wallSeconds = seconds(testStart);
        System.out.println(f.line(expected));
      }
    }
  }

  /** What the run measured, for the test's output and RELIABILITY.md. */
  private static final class Figures {
    long published;
    long refused;
    long delivered;
    long repeated;
    long bad;
    long deadLetters;
    long rawCounters;
    int series;
    long rates;
    long alerts;
    int detected;
    long stored;
    long writeFailures;
    int secondTasks;
    double takeoverSeconds;
    double brokerDownSeconds;
    double brokerRestartSeconds;
    double ratesAgainSeconds;
    double storeDownSeconds;
    double sinkAgainSeconds;
    double drainSeconds;
    double wallSeconds;

    String line(Map<String, Long> points) {
      return String.format(
          "FaultsUnderLoadIT: records published %d (sends refused and retried %d), on the raw"
              + " topics %d (lost %d, written twice %d); counter records %d in %d series, NodeRates %d (computed twice 0); bad"
              + " records %d, dead letters %d; alert records %d, faults detected %d (missed 0,"
              + " unexpected 0); store points %d %s, sink write failures %d; second instance"
              + " lost with %d active tasks, all tasks on the first again after %.1f s; broker"
              + " down %.1f s, restart %.1f s, rates again %.1f s after it; store down %.1f s,"
              + " sink writing %.1f s after its start; drain %.1f s; wall %.0f s",
          published,
          refused,
          delivered,
          published - delivered,
          repeated,
          rawCounters,
          series,
          rates,
          bad,
          deadLetters,
          alerts,
          detected,
          stored,
          points,
          writeFailures,
          secondTasks,
          takeoverSeconds,
          brokerDownSeconds,
          brokerRestartSeconds,
          ratesAgainSeconds,
          storeDownSeconds,
          sinkAgainSeconds,
          drainSeconds,
          wallSeconds);
    }
  }

  /** Records whose key and value bytes repeat an earlier record's of the same topic. */
  private static long repeated(List<ConsumerRecord<String, byte[]>> records) {
    Set<String> seen = new HashSet<>();
    long repeated = 0;
    for (ConsumerRecord<String, byte[]> r : records) {
      if (!seen.add(r.key() + "|" + Base64.getEncoder().encodeToString(r.value()))) {
        repeated++;
      }
    }
    return repeated;
  }

  private static Map<String, Long> repeatedByTopic(
      Map<String, List<ConsumerRecord<String, byte[]>>> good) {
    Map<String, Long> out = new LinkedHashMap<>();
    good.forEach((topic, records) -> out.put(topic, repeated(records)));
    return out;
  }

  private static String gpuLineage(List<Alert> alerts) {
    StringBuilder out = new StringBuilder();
    for (Alert a : alerts) {
      if (a.getKind().name().startsWith("GPU_")) {
        out.append(
            String.format(
                "%s %s %s/%s gpu %s started %s resolved %s from %s-%s@%s%n",
                a.getState(),
                a.getKind(),
                a.getCluster(),
                a.getNode(),
                a.getGpu(),
                a.getStartedAt(),
                a.getResolvedAt(),
                a.getSourceTopic(),
                a.getSourcePartition(),
                a.getSourceOffset()));
      }
    }
    return out.toString();
  }

  /**
   * The full-resolution points the sink writes for the good records of the topics (the 10 s
   * aggregates, rewritten as late samples arrive, are not counted): measurement -> points.
   */
  private static Map<String, Long> expectedPoints(
      String registry,
      FabricTopics topics,
      Map<String, List<ConsumerRecord<String, byte[]>>> good,
      List<Alert> alerts,
      String bootstrap,
      Predicate<ConsumerRecord<String, byte[]>> isBad) {
    Map<String, Long> points = new LinkedHashMap<>();
    points.put(InfluxSchema.ALERTS, (long) alerts.size());
    points.put(InfluxSchema.GPU, (long) good.get(topics.gpu().name()).size());
    points.put(InfluxSchema.GPU_XID, (long) good.get(topics.xid().name()).size());
    AvroOneOfDeserializer decoder =
        new AvroOneOfDeserializer(List.of(NodeRates.class, CounterRates.class));
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
    SinkResolution resolution = SinkResolution.defaults();
    String ratesTopic = topics.rates().name();
    for (ConsumerRecord<String, byte[]> r : Sequences.readAll(bootstrap, ratesTopic)) {
      if (isBad.test(r)) {
        continue;
      }
      for (CounterRates port : NodeRecords.portRates(decoder.deserialize(ratesTopic, r.value()))) {
        Optional<SinkPoint> point = InfluxSchema.ratesPoint(port);
        if (point.isPresent()
            && point.get().fields().keySet().stream()
                .anyMatch(
                    field ->
                        resolution.resolve(point.get().measurement(), field) == Resolution.FULL)) {
          points.merge(point.get().measurement(), 1L, Long::sum);
        }
      }
    }
    points.values().removeIf(n -> n == 0); // a measurement never written has no table
    return points;
  }

  /** The rows of {@code measurement} once at least {@code expected} are there (QuestDB's WAL). */
  private static long awaitCount(EmbeddedQuestDb store, String measurement, long expected) {
    EmbeddedQuestDb.QueryResult result =
        store.await(
            "select count() c from " + measurement,
            q -> !q.rows().isEmpty() && Long.parseLong(q.rows().get(0).get("c")) >= expected,
            RECOVERY_DEADLINE);
    return Long.parseLong(result.rows().get(0).get("c"));
  }

  private static void awaitTrue(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + RECOVERY_DEADLINE.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": not within " + RECOVERY_DEADLINE);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private static int activeTasks(StreamsRunner runner) {
    return runner.streams().metadataForLocalThreads().stream()
        .mapToInt(t -> t.activeTasks().size())
        .sum();
  }

  private static boolean elapsed(long sinceNanos, Duration duration) {
    return System.nanoTime() - sinceNanos >= duration.toNanos();
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
