package io.fabricpulse.app.demo;

import io.fabricpulse.app.cli.ExitCodes;
import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.app.status.HealthCheck;
import io.fabricpulse.app.status.LiveStatus;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.FaultAlerts;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatedFatTree;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.sinks.influx.InfluxSchema;
import io.fabricpulse.sinks.influx.InfluxSink;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import io.fabricpulse.streams.FabricTopology;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The embedded default: starts the pipeline, runs the simulated fleet against it in (accelerated)
 * simulated time, prints what flows, and checks at the end that every stage carried data and that
 * detection was exact.
 */
public final class Demo {

  /** What {@code fabricpulse demo} was asked for. */
  public record Settings(
      String cluster,
      int nodes,
      long seed,
      double speed,
      Duration duration,
      Path dataDir,
      String influxUrl,
      String influxOrg,
      String influxBucket,
      String influxToken,
      DemoBridges.Targets bridges,
      int statusPort) {}

  private static final Duration REPORT_EVERY = Duration.ofSeconds(2);

  /** How long the robots' bridges may take after the drain to deliver the last digests. */
  private static final Duration BRIDGE_SETTLE = Duration.ofSeconds(90);

  /**
   * Faults are scheduled into the first part of the run so their alerts can fire before the end.
   */
  private static final double FAULT_SHARE = 0.7;

  private static final Duration DEFAULT_FAULT_WINDOW = Duration.ofMinutes(10);

  /** Simulated time after the last fault ends for its alert to fire. */
  private static final Duration SETTLE = Duration.ofSeconds(90);

  /** Simulated seconds before bad records start: the topics then hold good ones to cut. */
  private static final long CORRUPT_FROM_TICK = 30;

  private final Settings settings;
  private final PrintStream out;
  private final CountDownLatch stop = new CountDownLatch(1);
  private double corruptRate;

  public Demo(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /**
   * Also writes bad records (random bytes, unknown schema id, truncated Avro, another record type)
   * to every input topic of the streams application, {@code rate} of the records published (e.g.
   * 0.01: one per hundred); the summary counts them and their dead letters.
   */
  private io.fabricpulse.schemas.http.BearerToken statusToken;

  public Demo withCorruptRate(double rate) {
    this.corruptRate = rate;
    return this;
  }

  /** The token every request to the status page must carry (null: none, as by default). */
  public Demo withStatusToken(io.fabricpulse.schemas.http.BearerToken token) {
    this.statusToken = token;
    return this;
  }

  public int run() throws IOException, InterruptedException {
    long startedAt = System.nanoTime();
    boolean temporary = settings.dataDir() == null;
    Path dataDir = temporary ? Files.createTempDirectory("fabricpulse-demo-") : settings.dataDir();
    Thread hook = new Thread(stop::countDown, "demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    out.printf(
        "fabricpulse demo: cluster %s, %d nodes (8 IB HCAs, a RoCE NIC, 8 GPUs each), seed %d, %sx simulated"
            + " time, state in %s%n",
        settings.cluster(), settings.nodes(), settings.seed(), trim(settings.speed()), dataDir);
    EmbeddedPipeline.InfluxTarget influx =
        settings.influxUrl() == null
            ? null
            : new EmbeddedPipeline.InfluxTarget(
                settings.influxUrl(),
                settings.influxOrg(),
                settings.influxBucket(),
                settings.influxToken() == null
                    ? new char[0]
                    : settings.influxToken().toCharArray());
    String registry = "mock://fabricpulse-demo";
    int exit;
    try (EmbeddedPipeline pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(dataDir, registry, 3, influx, null),
            line -> out.println("  " + line))) {
      try (DemoBridges bridges =
          settings.bridges() != null && settings.bridges().any()
              ? DemoBridges.start(pipeline, settings.bridges(), out)
              : null) {
        exit = runFleet(pipeline, startedAt, bridges);
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is running
      }
      if (temporary) {
        deleteRecursively(dataDir);
      }
    }
    return exit;
  }

  private int runFleet(EmbeddedPipeline pipeline, long startedAt, DemoBridges bridges)
      throws InterruptedException {
    Duration simulatedSpan =
        settings.duration() == null
            ? null
            : Duration.ofMillis((long) (settings.duration().toMillis() * settings.speed()));
    // Simulated time runs faster than the wall clock; it starts in the past so that the records'
    // event times stay behind "now" (brokers and stores distrust future timestamps).
    Instant simStart =
        Instant.now()
            .minus(simulatedSpan == null ? Duration.ofHours(24) : simulatedSpan.plusMinutes(5))
            .truncatedTo(ChronoUnit.SECONDS);
    FabricSimulator simulator =
        new FabricSimulator(
            SimulatorConfig.infiniband(
                settings.cluster(), settings.nodes(), settings.seed(), simStart));
    Duration faultWindow =
        simulatedSpan == null
            ? DEFAULT_FAULT_WINDOW
            : Duration.ofMillis((long) (simulatedSpan.toMillis() * FAULT_SHARE));
    List<InjectedFault> faults =
        settings.nodes() >= DemoFaults.MIN_NODES
            ? DemoFaults.scheduleAll(simulator, simStart.plusSeconds(5), faultWindow)
            : DemoFaults.schedulePortFaults(simulator, simStart.plusSeconds(5), faultWindow);
    if (settings.nodes() < DemoFaults.MIN_NODES) {
      out.printf(
          "  (with fewer than %d nodes only port faults are injected)%n", DemoFaults.MIN_NODES);
    }
    simulator
        .fatTree()
        .ifPresent(
            tree ->
                out.printf(
                    "  fabric    %d leaves, %d spines, %d cables; %s's fabric role sweeps them"
                        + " (iblinkinfo -l, perfquery -x) every %d s%n",
                    SimulatedFatTree.LEAVES,
                    SimulatedFatTree.SPINES,
                    tree.cables(),
                    SimulatedFatTree.FABRIC_HOST,
                    SimulatedFatTree.SWEEP.toSeconds()));
    out.printf(
        "  faults    %d scheduled in the first %s of simulated time:%n",
        faults.size(), human(faultWindow));
    faults.stream()
        .sorted(Comparator.comparing(InjectedFault::start))
        .forEach(
            f ->
                out.printf(
                    "              +%-6s %-18s %-16s -> %s%n",
                    human(Duration.between(simStart, f.start())),
                    f.kind(),
                    f.kind().source() == FaultKind.Source.FABRIC
                        ? f.detail()
                        : f.node() + (f.device() == null ? "" : "/" + f.device()),
                    expectedAlerts(f)));
    out.printf("  ready in %.1f s; Ctrl-C stops%n%n", (System.nanoTime() - startedAt) / 1e9);

    DemoWatcher watcher =
        new DemoWatcher(
            pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP),
            pipeline.topics().rates().name(),
            pipeline.topics().alerts().name(),
            alert -> out.println(AlertLine.format(alert)));
    Thread watcherThread = new Thread(watcher, "demo-watcher");
    watcherThread.setDaemon(true);
    watcherThread.start();
    LiveStatus status = startStatusPage(pipeline);

    long tickNanos = (long) (1e9 / settings.speed());
    long wallStart = System.nanoTime();
    long nextReport = wallStart + REPORT_EVERY.toNanos();
    long end =
        settings.duration() == null ? Long.MAX_VALUE : wallStart + settings.duration().toNanos();
    Instant simNow = simStart;
    long lastPublished = 0;
    long lastRates = 0;
    long lastReportAt = wallStart;
    try (SimulatedFleet fleet =
            new SimulatedFleet(simulator, pipeline.producerConfig(), pipeline.topics());
        CorruptRecords corrupt = corruptRate > 0 ? corruptRecords(pipeline) : null) {
      long tick = 0;
      // A bounded run plays every fault out (plus time for its alert to fire) even when this
      // machine is slower than the requested speed: past the wall-clock end it runs unpaced.
      Instant mustReach = settings.duration() == null ? null : lastFaultEnd(faults).plus(SETTLE);
      boolean catchingUp = false;
      while (stop.getCount() > 0
          && pipeline.streams().failure() == null
          && (System.nanoTime() < end || (mustReach != null && simNow.isBefore(mustReach)))) {
        if (!catchingUp && System.nanoTime() >= end) {
          catchingUp = true;
          out.printf(
              "  (this machine ran slower than %sx: playing the rest of the faults unpaced up to sim +%s)%n",
              trim(settings.speed()), human(Duration.between(simStart, mustReach)));
        }
        fleet.collect(simNow);
        if (corrupt != null && tick >= CORRUPT_FROM_TICK) {
          if (tick == CORRUPT_FROM_TICK) {
            fleet.flush();
            corrupt.takeGoodRecords();
          }
          long due = (long) (corruptRate * fleet.published()) - corrupt.sent();
          if (due > 0) {
            corrupt.write((int) due, settings.cluster() + "/corrupt", simNow.toEpochMilli());
          }
        }
        tick++;
        simNow = simStart.plusSeconds(tick);
        long now = System.nanoTime();
        if (now >= nextReport) {
          double secs = (now - lastReportAt) / 1e9;
          long rates = watcher.rates();
          out.println(
              status(
                  now - wallStart,
                  simNow,
                  simStart,
                  (fleet.published() - lastPublished) / secs,
                  (rates - lastRates) / secs,
                  pipeline.sink().metrics().pointsWritten(),
                  watcher.alerts().size()));
          for (DemoWatcher.PortLoad p : watcher.busiest(3)) {
            out.printf(
                "            %-22s tx %7.1f GB/s  rx %7.1f GB/s%n",
                p.port(), p.txBytesPerSecond() / 1e9, p.rxBytesPerSecond() / 1e9);
          }
          lastPublished = fleet.published();
          lastRates = rates;
          lastReportAt = now;
          nextReport = now + REPORT_EVERY.toNanos();
        }
        long wait = wallStart + tick * tickNanos - System.nanoTime();
        if (!catchingUp && wait > 0 && stop.await(wait, TimeUnit.NANOSECONDS)) {
          break;
        }
      }
      fleet.flush();
      if (corrupt != null) {
        corrupt.flush();
      }
      out.printf(
          "%nstopping after %s of simulated time; waiting for the pipeline to drain...%n",
          human(Duration.between(simStart, simNow)));
      List<String> behind =
          PipelineDrain.await(pipeline, watcher, Duration.ofSeconds(60), out::println);
      behind.forEach(b -> out.println("  still behind: " + b));
      if (!behind.isEmpty()) {
        out.println("FAILED: the pipeline did not catch up, so detection cannot be judged");
        return ExitCodes.PARTIAL;
      }
      int exit = summarize(pipeline, fleet, watcher, faults);
      if (corrupt != null && !corruptRecordsDeadLettered(pipeline, corrupt)) {
        exit = ExitCodes.PARTIAL;
      }
      if (bridges != null) {
        out.println();
        if (!bridges.awaitDelivered(watcher.alerts(), BRIDGE_SETTLE, out)) {
          out.println("FAILED: not every alert reached the robots");
          return ExitCodes.PARTIAL;
        }
        out.println("OK: every alert reached the robots, within their limits");
      } else {
        DemoBridges.preview(watcher.alerts(), out);
      }
      return exit;
    } finally {
      if (status != null) {
        status.close();
      }
      watcher.close();
      watcherThread.join(5_000);
    }
  }

  private static CorruptRecords corruptRecords(EmbeddedPipeline pipeline) {
    List<String> inputs =
        new java.util.ArrayList<>(
            pipeline.topics().raw().stream()
                .map(io.fabricpulse.schemas.topics.TopicSpec::name)
                .toList());
    inputs.add(pipeline.topics().rates().name());
    return new CorruptRecords(pipeline.bootstrapServers(), inputs);
  }

  /** The summary's lines about the bad records; false when one has no dead letter. */
  private boolean corruptRecordsDeadLettered(EmbeddedPipeline pipeline, CorruptRecords corrupt) {
    CorruptRecords.DeadLetterCheck check =
        corrupt.check(pipeline.topics().deadLetters().name(), pipeline.registryUrl());
    out.printf(
        "  corrupt records written %,d to %d topics (--corrupt-rate %s); dead letters %,d, of"
            + " them %,d for these (topic, partition, offset and reason)%n",
        corrupt.sent(),
        corrupt.topicCount(),
        trim(corruptRate),
        check.deadLetters(),
        check.ofBadRecords());
    if (!check.missing().isEmpty() || corrupt.sent() != corrupt.landed().size()) {
      out.printf(
          "FAILED: %d corrupt records without a dead letter%n",
          corrupt.sent() - check.ofBadRecords());
      return false;
    }
    return true;
  }

  private int summarize(
      EmbeddedPipeline pipeline,
      SimulatedFleet fleet,
      DemoWatcher watcher,
      List<InjectedFault> faults) {
    long stored = storedRows(pipeline.questDb(), watcher.portRates());
    List<Alert> alerts = watcher.alerts();
    Set<AlertKind> detectable = FabricTopology.detectedKinds();
    DetectionReport report =
        DetectionReport.compare(
            faults, alerts, detectable, DetectionReport.propagationMinNodes(pipeline.rules()));
    out.println();
    out.println("summary");
    out.printf(
        "  raw records published   %,d (malformed %d, failed reads %d, dropped %d)%n",
        fleet.published(), fleet.malformed(), fleet.failures(), fleet.lost());
    out.printf("  rates records derived   %,d%n", watcher.rates());
    out.printf(
        "  points written to store %,d (write failures %d)%n",
        pipeline.sink().metrics().pointsWritten(), pipeline.sink().metrics().writeFailures());
    if (stored >= 0) {
      out.printf("  rows read back          %,d from %s%n", stored, InfluxSchema.PORT_RATES);
    }
    out.printf("  alerts                  %d records%n", alerts.size());
    report.detected().forEach(l -> out.println("  detected   " + l));
    report.missed().forEach(l -> out.println("  MISSED     " + l));
    report.unexpected().forEach(l -> out.println("  UNEXPECTED " + l));
    report.notCovered().forEach(l -> out.println("  no detector yet: " + l));
    boolean flowed =
        fleet.published() > 0
            && watcher.rates() > 0
            && pipeline.sink().metrics().pointsWritten() > 0
            && (stored != 0);
    if (!flowed) {
      out.println("FAILED: data did not flow through every stage");
      return ExitCodes.PARTIAL;
    }
    if (!report.exact()) {
      out.println("FAILED: detection was not exact");
      return ExitCodes.PARTIAL;
    }
    out.println(
        report.notCovered().isEmpty()
            ? "OK: data flowed collector -> Kafka -> rates -> store, and detection was exact"
            : "OK: data flowed collector -> Kafka -> rates -> store; detection was exact for the"
                + " running detectors ("
                + report.notCovered().size()
                + " injected fault(s) have no detector yet)");
    return ExitCodes.OK;
  }

  /** Rows of the port-rates table, or -1 when writing to an external InfluxDB. */
  /**
   * Rows of the port-rates table once WAL apply has caught up with what the sink wrote (one row per
   * port rates record), or -1 when writing to an external InfluxDB.
   */
  private static long storedRows(EmbeddedQuestDb questDb, long expected) {
    if (questDb == null) {
      return -1;
    }
    EmbeddedQuestDb.QueryResult result;
    try {
      result =
          questDb.await(
              "select count() c from " + InfluxSchema.PORT_RATES,
              r -> !r.rows().isEmpty() && Long.parseLong(r.rows().get(0).get("c")) >= expected,
              Duration.ofSeconds(30));
    } catch (RuntimeException timedOut) {
      result = questDb.query("select count() c from " + InfluxSchema.PORT_RATES);
    }
    return result.rows().isEmpty() ? 0 : Long.parseLong(result.rows().get(0).get("c"));
  }

  private static String status(
      long wallNanos,
      Instant simNow,
      Instant simStart,
      double recordsPerSecond,
      double ratesPerSecond,
      long points,
      int alerts) {
    return String.format(
        Locale.ROOT,
        "[%s sim +%s] raw %,8.0f rec/s   rates %,8.0f rec/s   points stored %,10d   alerts %d",
        clock(Duration.ofNanos(wallNanos)),
        human(Duration.between(simStart, simNow)),
        recordsPerSecond,
        ratesPerSecond,
        points,
        alerts);
  }

  private static Instant lastFaultEnd(List<InjectedFault> faults) {
    return faults.stream()
        .map(f -> f.end() != null ? f.end() : f.start())
        .max(Comparator.naturalOrder())
        .orElse(Instant.EPOCH);
  }

  static String clock(Duration d) {
    return String.format("%02d:%02d", d.toMinutes(), d.toSecondsPart());
  }

  /** What the fault must raise, as the schedule prints it. */
  private static String expectedAlerts(InjectedFault f) {
    if (f.expectedAlert().isEmpty()) {
      return "no alert (must stay silent)";
    }
    return FaultAlerts.expectedKinds(f).stream()
        .map(Enum::name)
        .collect(java.util.stream.Collectors.joining(" + "));
  }

  static String human(Duration d) {
    long s = d.getSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + (s % 60 == 0 ? "" : String.format("%02ds", s % 60));
    }
    return (s / 3600) + "h" + String.format("%02dm", (s % 3600) / 60);
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp dir
    }
  }

  /** What the demo's status page vouches for besides its feed: streams and the sink. */
  private static List<HealthCheck> healthChecks(EmbeddedPipeline pipeline) {
    List<HealthCheck> checks = new ArrayList<>();
    // the pipeline's current instance (a restart replaces it)
    checks.add(new HealthCheck("streams", () -> pipeline.streams().health().probe().get()));
    if (pipeline.sink() != null) {
      InfluxSink sink = pipeline.sink();
      checks.add(
          new HealthCheck(
              "sink",
              () ->
                  sink.isBackingOff()
                      ? HealthCheck.Result.failing(
                          "the time-series store refuses writes or does not answer: retrying,"
                              + " consumption paused, "
                              + sink.metrics().writeFailures()
                              + " failed attempts")
                      : HealthCheck.Result.ok(sink.metrics().pointsWritten() + " points written")));
    }
    return checks;
  }

  /** The live status page on 127.0.0.1 (null when off, or when its port is taken: said once). */
  private LiveStatus startStatusPage(EmbeddedPipeline pipeline) {
    if (settings.statusPort() == 0) {
      return null;
    }
    try {
      LiveStatus status =
          LiveStatus.start(
              pipeline.topics(),
              pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP + "-status"),
              java.net.InetAddress.getLoopbackAddress(),
              settings.statusPort(),
              statusToken,
              healthChecks(pipeline));
      out.printf("  status page: %s%n%n", status.url());
      return status;
    } catch (IOException e) {
      out.printf(
          "  status page not served: 127.0.0.1:%d: %s (choose another --status-port)%n%n",
          settings.statusPort(), e.getMessage());
      return null;
    }
  }
}
