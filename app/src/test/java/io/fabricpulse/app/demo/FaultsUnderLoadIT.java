package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.run.BrokerWatch;
import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.app.run.StreamsRunner;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.health.OutageLog;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.sinks.influx.InfluxSchema;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import io.fabricpulse.streams.FabricTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.CloseOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults 1, 3 and 5 of RELIABILITY.md in one run of the demo's fault scenario on the real parts
 * (KRaft broker, streams application with exactly-once v2, sink, QuestDB), so the expensive part,
 * the 15 simulated minutes of a 16-node fleet, is paid once:
 *
 * <ul>
 *   <li>the broker stops for 15 s while the agents keep producing (at most 10 simulated seconds a
 *       second); they buffer, and afterwards every collector sequence number is on its raw topic
 *       and in fabric.rates exactly once;
 *   <li>the time-series store stops for 30 s: the sink pauses, retries and afterwards the store
 *       holds every alert point exactly once;
 *   <li>a second instance of the streams application joins and takes a share of the tasks, and is
 *       closed mid-stream without leaving the group, as a killed process would (its partitions move
 *       only when its session times out): no rate computed twice, no alert twice or lost;
 *   <li>10,000 bad records of four kinds are interleaved with the good ones on every input topic of
 *       the streams application: each one is in fabric.dlq with its topic, partition and offset;
 *   <li>through all of it every injected fault raises exactly one alert and nothing else fires.
 * </ul>
 *
 * Figures go to the test's output for RELIABILITY.md.
 */
@Tag("chaos")
class FaultsUnderLoadIT {
  private static final Duration FAULT_WINDOW = Duration.ofMinutes(12);
  private static final Duration RUN = FAULT_WINDOW.plusMinutes(3);
  private static final long BROKER_DOWN_AT = 240;
  private static final Duration BROKER_DOWN_FOR = Duration.ofSeconds(15);
  private static final long SECOND_INSTANCE_FROM = 90;
  private static final long SECOND_INSTANCE_LOST_AT = 420;
  private static final long STORE_DOWN_AT = 540;
  private static final Duration STORE_DOWN_FOR = Duration.ofSeconds(30);

  /** Simulated seconds per wall second while a part is down: the agents keep producing. */
  private static final long PACE_MS_PER_SIMULATED_SECOND = 100;

  private static final long BAD_FROM = 60;
  private static final int BAD_PER_SECOND = 16;
  private static final Duration RECOVERY_DEADLINE = Duration.ofMinutes(2);

  @Test
  void brokerRestartStoreOutageAndCorruptRecordsLoseNothingAndDetectionStaysExact(@TempDir Path dir)
      throws Exception {
    Instant start = Instant.now().minus(RUN).minusSeconds(60).truncatedTo(ChronoUnit.SECONDS);
    String registry = "mock://faults-under-load-it";
    try (EmbeddedPipeline pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(dir, registry, 3, null, null), line -> {})) {
      String bootstrap = pipeline.bootstrapServers();
      FabricSimulator sim =
          new FabricSimulator(SimulatorConfig.infiniband("demo", DemoFaults.MIN_NODES, 42, start));
      List<InjectedFault> faults = DemoFaults.scheduleAll(sim, start.plusSeconds(5), FAULT_WINDOW);
      DemoWatcher watcher =
          new DemoWatcher(
              pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP),
              pipeline.topics().rates().name(),
              pipeline.topics().alerts().name(),
              alert -> {});
      Thread watcherThread = new Thread(watcher, "faults-watcher");
      watcherThread.start();

      List<String> inputs =
          new ArrayList<>(pipeline.topics().raw().stream().map(TopicSpec::name).toList());
      inputs.add(pipeline.topics().rates().name());
      List<OutageLog.Line> brokerLines = new CopyOnWriteArrayList<>();
      Properties client = new Properties();
      client.put("bootstrap.servers", bootstrap);
      EmbeddedQuestDb store = pipeline.questDb();
      double brokerRestartSeconds;
      double brokerRecoverySeconds;
      double storeRecoverySeconds;
      long published;
      // The fleet is one thread for 16 agents: a send must not wait for metadata (1 s by default,
      // fine for an agent's one-thread-per-source schedule) or the outage would stall the fleet.
      Properties fleetProducer = pipeline.producerConfig();
      fleetProducer.put("max.block.ms", "10");
      try (BrokerWatch brokerWatch = BrokerWatch.start(client, brokerLines::add);
          CorruptRecords bad = new CorruptRecords(bootstrap, inputs);
          SimulatedFleet fleet = new SimulatedFleet(sim, fleetProducer, pipeline.topics())) {
        double restart = 0;
        double brokerRecovery = 0;
        double storeRecovery = 0;
        StreamsRunner second = null;
        int secondTasks = 0;
        long brokerDownSince = -1;
        long storeDownSince = -1;
        for (long s = 0; s <= RUN.toSeconds(); s++) {
          Instant now = start.plusSeconds(s);
          if (s == BAD_FROM) {
            fleet.flush();
            bad.takeGoodRecords();
          }
          if (s == SECOND_INSTANCE_FROM) {
            second = pipeline.newStreamsInstance(dir.resolve("streams-second"));
            second.start(Duration.ofSeconds(90));
          }
          if (s == SECOND_INSTANCE_LOST_AT) {
            secondTasks = activeTasks(second);
            second
                .streams()
                .close(
                    CloseOptions.groupMembershipOperation(
                            CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                        .withTimeout(Duration.ZERO));
          }
          if (s == BROKER_DOWN_AT) {
            bad.flush();
            pipeline.broker().stop();
            brokerDownSince = System.nanoTime();
          }
          if (brokerDownSince >= 0 && elapsed(brokerDownSince, BROKER_DOWN_FOR)) {
            long t0 = System.nanoTime();
            pipeline.broker().restart(Duration.ofSeconds(90));
            restart = seconds(t0);
            long restartedAt = System.nanoTime();
            long ratesBefore = watcher.rates();
            awaitTrue(() -> watcher.rates() > ratesBefore, "rates flowing after the restart");
            brokerRecovery = seconds(restartedAt);
            brokerDownSince = -1;
          }
          if (s == STORE_DOWN_AT) {
            store.stop();
            storeDownSince = System.nanoTime();
          }
          if (storeDownSince >= 0 && elapsed(storeDownSince, STORE_DOWN_FOR)) {
            assertTrue(
                pipeline.sink().metrics().writeFailures() > 0, "the sink saw the store down");
            long t0 = System.nanoTime();
            store.start();
            awaitTrue(() -> !pipeline.sink().isBackingOff(), "the sink writing again");
            storeRecovery = seconds(t0);
            storeDownSince = -1;
          }
          fleet.collect(now);
          if (s >= BAD_FROM && brokerDownSince < 0) {
            bad.write(BAD_PER_SECOND, "demo/corrupt-" + (s % 16), now.toEpochMilli());
          }
          if (brokerDownSince >= 0 || storeDownSince >= 0) {
            // while a part is down the agents keep producing, at 10 simulated seconds a second
            TimeUnit.MILLISECONDS.sleep(PACE_MS_PER_SIMULATED_SECOND);
          }
        }
        assertTrue(brokerDownSince < 0 && storeDownSince < 0, "both faults ended within the run");
        assertTrue(secondTasks > 0, "the second instance had tasks when it was lost");
        second.close();
        fleet.flush();
        bad.flush();
        published = fleet.published();
        assertEquals(0, fleet.malformed() + fleet.failures() + fleet.lost(), "agents lost nothing");
        assertEquals(List.of(), bad.failures(), "every bad record reached the broker");
        assertTrue(
            brokerLines.stream().anyMatch(OutageLog.Line::warning),
            "the broker outage was reported: " + brokerLines);
        assertTrue(
            brokerLines.stream().anyMatch(l -> !l.warning() && l.text().contains("answers again")),
            "and its end: " + brokerLines);
        brokerRestartSeconds = restart;
        brokerRecoverySeconds = brokerRecovery;
        storeRecoverySeconds = storeRecovery;

        long drainStart = System.nanoTime();
        assertEquals(List.of(), PipelineDrain.await(pipeline, watcher, Duration.ofMinutes(5)));
        double drainSeconds = seconds(drainStart);
        watcher.close();
        watcherThread.join(10_000);

        // fault 5: every bad record in fabric.dlq with its coordinates, and nothing else there
        Map<CorruptRecords.Landed, CorruptRecords.Kind> landed = bad.landed();
        assertEquals(bad.sent(), landed.size());
        assertTrue(bad.sent() >= 10_000, "at least 10,000 bad records: " + bad.sent());
        CorruptRecords.DeadLetterCheck dlq =
            bad.check(pipeline.topics().deadLetters().name(), registry);
        assertEquals(Set.of(), dlq.missing(), "bad records without a dead letter");
        assertEquals(landed.size(), dlq.ofBadRecords(), "one dead letter per bad record");
        assertEquals(landed.size(), dlq.deadLetters(), "and no other dead letter");
        long deadLetters = dlq.deadLetters();

        // fault 1: every collector sample on its raw topic and in fabric.rates, exactly once
        List<String> counterTopics =
            List.of(
                pipeline.topics().portCounters().name(),
                pipeline.topics().pfc().name(),
                pipeline.topics().ecn().name(),
                pipeline.topics().switchCounters().name());
        Sequences raw =
            Sequences.ofRaw(
                bootstrap,
                registry,
                counterTopics,
                r ->
                    landed.containsKey(
                        new CorruptRecords.Landed(r.topic(), r.partition(), r.offset())));
        Sequences rates =
            Sequences.ofRates(
                bootstrap,
                registry,
                pipeline.topics().rates().name(),
                r ->
                    landed.containsKey(
                        new CorruptRecords.Landed(r.topic(), r.partition(), r.offset())));
        assertEquals(0, raw.gaps(), "raw sequence gaps");
        assertEquals(0, raw.duplicated(), "raw duplicates");
        assertEquals(0, rates.duplicated(), "rates computed twice");
        assertEquals(0, rates.missingFrom(raw), "raw samples without their rates");
        assertEquals(raw.count(), rates.count(), "one NodeRates per raw NodeCounters");
        // the event topics carry no sequence number: a record written twice repeats its bytes
        for (String topic :
            List.of(
                pipeline.topics().gpu().name(),
                pipeline.topics().xid().name(),
                pipeline.topics().sm().name(),
                pipeline.topics().nccl().name())) {
          assertEquals(
              0,
              Sequences.repeatedRecords(
                  bootstrap,
                  topic,
                  r ->
                      landed.containsKey(
                          new CorruptRecords.Landed(r.topic(), r.partition(), r.offset()))),
              "records written twice on " + topic);
        }

        // every injected fault exactly once, nothing else
        List<Alert> alerts = watcher.alerts();
        DetectionReport report =
            DetectionReport.compare(
                faults,
                alerts,
                FabricTopology.detectedKinds(),
                DetectionReport.propagationMinNodes(pipeline.rules()));
        String story =
            String.join("\n", report.detected())
                + "\nMISSED:\n"
                + String.join("\n", report.missed())
                + "\nUNEXPECTED:\n"
                + String.join("\n", report.unexpected());
        assertEquals(List.of(), report.missed(), story);
        assertEquals(List.of(), report.unexpected(), story);

        // fault 3: the store holds every alert exactly once
        long alertRows =
            Long.parseLong(
                store
                    .await(
                        "select count() c from " + InfluxSchema.ALERTS,
                        q ->
                            !q.rows().isEmpty()
                                && Long.parseLong(q.rows().get(0).get("c")) >= alerts.size(),
                        RECOVERY_DEADLINE)
                    .rows()
                    .get(0)
                    .get("c"));
        assertEquals(alerts.size(), alertRows, "alert points in the store");
        assertEquals(0, pipeline.sink().metrics().pointsRejected());

        System.out.printf(
            "FaultsUnderLoadIT: raw records published %d (counter records %d in %d series), bad"
                + " records %d, dead letters %d, rates %d, lost 0, duplicated 0; alerts %d (%d"
                + " faults detected), alert points stored %d; sink write failures %d; broker"
                + " restart %.1f s, rates again %.1f s after it; store back, sink writing %.1f s"
                + " after its start; second streams instance lost with %d active tasks; drain"
                + " after the run %.1f s%n",
            published,
            raw.count(),
            raw.series(),
            bad.sent(),
            deadLetters,
            rates.count(),
            alerts.size(),
            report.detected().size(),
            alertRows,
            pipeline.sink().metrics().writeFailures(),
            brokerRestartSeconds,
            brokerRecoverySeconds,
            storeRecoverySeconds,
            secondTasks,
            drainSeconds);
      }
    }
  }

  private static void awaitTrue(java.util.function.BooleanSupplier done, String what)
      throws InterruptedException {
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
