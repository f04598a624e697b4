package io.fabricpulse.app.bench;

import io.fabricpulse.app.demo.SimulatedFleet;
import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.sinks.influx.InfluxSink;
import io.fabricpulse.streams.FabricTopology;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * {@code fabricpulse bench}: the end-to-end benchmark on the real in-process broker, one phase
 * after the other in one process, on the same preloaded data:
 *
 * <ol>
 *   <li><b>preload</b>: the simulated fleet's raw records (every source, in the proportions the
 *       node agents produce them) published as fast as the agents can;
 *   <li><b>baseline</b>: a plain consumer -> producer pass-through of those records ({@link
 *       PassThroughBaseline}): what this machine can move through Kafka;
 *   <li><b>streams</b>: the full streams application (rates, every detector, alert lifecycle,
 *       exactly-once v2 as in production) started on the preloaded topics, timed until its group
 *       has committed everything on the raw and internal topics;
 *   <li><b>sink</b>: the time-series sink started on everything streams derived, into the embedded
 *       QuestDB, timed until it has written every point;
 *   <li><b>latency</b>: a second simulated cluster with the demo's port faults, paced at 80 % of
 *       the streams rate, with {@link AlertLatencyProbe} timing each alert;
 *   <li><b>detect</b>: {@code fabricpulse detect} over a JSON-lines file of the same fleet ({@link
 *       OfflineDetectRate}).
 * </ol>
 *
 * Rates are port samples per second (one IB/RoCE port's counters read once) for baseline and
 * streams, points per second for the sink, records per second for detect. The last line sums it up
 * for scripts: {@code bench: streams=<n>/s baseline=<n>/s ratio=<r> alert_p99=<ms> sink=<n>/s
 * detect=<n>/s}.
 */
public final class EndToEndBench {

  /** Cluster name of the preloaded fleet and of the paced fleet with faults. */
  static final String CLUSTER = "bench";

  static final String LATENCY_CLUSTER = "bench-latency";

  /** No progress for this long ends a phase as failed. */
  private static final Duration STALL = Duration.ofMinutes(2);

  /**
   * @param nodes simulated nodes of the preloaded fleet (8 HCAs each) and of the paced fleet
   * @param simulated simulated time the preload covers
   * @param latency simulated time of the paced fleet with faults (at least the demo's minimum fault
   *     window)
   */
  public record Settings(
      int nodes, Duration simulated, Duration latency, long seed, Path dataDir) {}

  /** What one run measured; null latencies when no alert could be timed. */
  public record Result(
      long rawRecords,
      long portSamples,
      double baselinePerSecond,
      double streamsPerSecond,
      double sinkPointsPerSecond,
      Double alertP50Ms,
      Double alertP99Ms,
      int alertsTimed,
      double detectPerSecond) {

    double ratio() {
      return streamsPerSecond / baselinePerSecond;
    }

    /** The summary line, the command's last. */
    public String summaryLine() {
      return String.format(
          Locale.ROOT,
          "bench: streams=%.0f/s baseline=%.0f/s ratio=%.2f alert_p99=%s sink=%.0f/s detect=%.0f/s",
          streamsPerSecond,
          baselinePerSecond,
          ratio(),
          alertP99Ms == null ? "none" : String.format(Locale.ROOT, "%.0fms", alertP99Ms),
          sinkPointsPerSecond,
          detectPerSecond);
    }
  }

  private final Settings settings;
  private final PrintStream out;

  public EndToEndBench(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs every phase; exit code 0 when each completed, 1 when one stalled (named). */
  public int run() throws IOException, InterruptedException {
    Path dataDir =
        settings.dataDir() != null
            ? settings.dataDir()
            : Files.createTempDirectory("fabricpulse-bench-");
    try (EmbeddedPipeline pipeline =
            EmbeddedPipeline.startBroker(
                new EmbeddedPipeline.Options(dataDir, "mock://fabricpulse-bench", 3, null, null),
                line -> out.println("  " + line));
        Admin admin = Admin.create(pipeline.adminConfig())) {
      Result result = phases(pipeline, admin, dataDir);
      out.println();
      report(result);
      out.println(result.summaryLine());
      return 0;
    } catch (PhaseFailed e) {
      out.println("bench: " + e.getMessage());
      return 1;
    }
  }

  private Result phases(EmbeddedPipeline pipeline, Admin admin, Path dataDir)
      throws IOException, InterruptedException {
    List<String> raw = pipeline.topics().raw().stream().map(TopicSpec::name).toList();
    // Every topic the fleet's agents write: the raw topics and, from the fabric collector
    // (fabric01), the topology and its change log.
    List<String> written = new ArrayList<>(raw);
    written.add(pipeline.topics().topology().name());
    written.add(pipeline.topics().topologyChanges().name());
    Instant simStart =
        Instant.now()
            .minus(settings.simulated())
            .minus(settings.latency())
            .minusSeconds(120)
            .truncatedTo(ChronoUnit.SECONDS);

    // 1. preload
    FabricSimulator fleet =
        new FabricSimulator(
            SimulatorConfig.infiniband(CLUSTER, settings.nodes(), settings.seed(), simStart));
    long seconds = settings.simulated().toSeconds();
    long published;
    long portSamples;
    long t0 = System.nanoTime();
    try (SimulatedFleet agents =
        new SimulatedFleet(fleet, pipeline.producerConfig(), pipeline.topics())) {
      for (long s = 0; s < seconds; s++) {
        agents.collect(simStart.plusSeconds(s));
        if ((s + 1) % Math.max(1, seconds / 10) == 0) {
          out.printf(
              Locale.ROOT,
              "  preload   %3d%%  %,d raw records%n",
              (s + 1) * 100 / seconds,
              agents.published());
        }
      }
      agents.flush();
      published = agents.published();
      portSamples = agents.portSamples();
    }
    out.printf(
        Locale.ROOT,
        "  preload   %,d raw records (%,d port samples) of %d nodes x %d s in %.1f s%n",
        published,
        portSamples,
        settings.nodes(),
        seconds,
        secondsSince(t0));

    // 2. baseline
    createTopic(admin, PassThroughBaseline.OUTPUT_TOPIC, pipeline.topics().rates().partitions());
    double baselineSeconds =
        PassThroughBaseline.run(pipeline.bootstrapServers(), written, published, STALL);
    double baseline = portSamples / baselineSeconds;
    out.printf(
        Locale.ROOT,
        "  baseline  pass-through of %,d records in %.1f s = %,.0f port samples/s%n",
        published,
        baselineSeconds,
        baseline);

    // 3. streams
    GroupLag lag = new GroupLag(admin);
    pipeline.startStreams(line -> out.println("  " + line));
    long t3 = System.nanoTime();
    List<String> streamsTopics = new ArrayList<>(raw);
    streamsTopics.add(pipeline.topics().topology().name());
    streamsTopics.add(pipeline.topics().rates().name());
    awaitGroup(lag, FabricTopology.APPLICATION_ID, streamsTopics, "streams");
    double streamsSeconds = secondsSince(t3);
    double streams = portSamples / streamsSeconds;
    out.printf(
        Locale.ROOT,
        "  streams   every raw record rated and detected %.1f s after RUNNING = %,.0f"
            + " port samples/s%n",
        streamsSeconds,
        streams);

    // 4. sink
    long t4 = System.nanoTime();
    pipeline.startSink(line -> out.println("  " + line));
    InfluxSink sink = pipeline.sink();
    long derived = CommittedRecords.count(pipeline.bootstrapServers(), sink.topics());
    awaitSink(sink, derived);
    double sinkSeconds = secondsSince(t4);
    long points = sink.metrics().pointsWritten();
    double sinkRate = points / sinkSeconds;
    out.printf(
        Locale.ROOT,
        "  sink      %,d points from %,d records in %.1f s = %,.0f points/s%n",
        points,
        derived,
        sinkSeconds,
        sinkRate);

    // 5. alert latency at 80 % of the streams rate; an alert's first record may be the fabric
    // collector's (LINK_BELOW_CAPABILITY fires on the fabric.topology sweep), so the probe reads
    // every topic the agents write
    List<Double> latencies =
        alertLatency(pipeline, written, simStart.plus(settings.simulated()), streams);
    Double p50 = percentile(latencies, 0.50);
    Double p99 = percentile(latencies, 0.99);

    // 6. offline detect
    Path file = dataDir.resolve("bench-detect.jsonl");
    OfflineDetectRate.write(
        new FabricSimulator(
            SimulatorConfig.infiniband(CLUSTER, settings.nodes(), settings.seed(), simStart)),
        simStart,
        seconds,
        file);
    OfflineDetectRate.Result detect = OfflineDetectRate.run(file);
    if (detect.exitCode() > 1) {
      throw new PhaseFailed("detect exited " + detect.exitCode() + " on " + file);
    }
    out.printf(
        Locale.ROOT,
        "  detect    %,d records offline in %.1f s = %,.0f records/s%n",
        detect.records(),
        detect.seconds(),
        detect.perSecond());

    return new Result(
        published,
        portSamples,
        baseline,
        streams,
        sinkRate,
        p50,
        p99,
        latencies.size(),
        detect.perSecond());
  }

  private List<Double> alertLatency(
      EmbeddedPipeline pipeline, List<String> written, Instant from, double streamsRate)
      throws InterruptedException {
    FabricSimulator faulty =
        new FabricSimulator(
            SimulatorConfig.infiniband(
                LATENCY_CLUSTER, settings.nodes(), settings.seed() + 1, from));
    List<InjectedFault> faults =
        DemoFaults.schedulePortFaults(
            faulty, from.plusSeconds(5), settings.latency().minusSeconds(10));
    long samplesPerSimSecond = (long) settings.nodes() * faulty.devices().size();
    double simSecondsPerSecond = 0.8 * streamsRate / samplesPerSimSecond;
    out.printf(
        Locale.ROOT,
        "  latency   %d faults on %d nodes, paced at 80%% of the streams rate (%.2f simulated s/s)%n",
        faults.size(),
        settings.nodes(),
        simSecondsPerSecond);
    Map<String, Object> serde = Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, pipeline.registryUrl());
    AlertLatencyProbe probe =
        new AlertLatencyProbe(
            pipeline.bootstrapServers(),
            written,
            pipeline.topics().rates().name(),
            pipeline.topics().alerts().name(),
            LATENCY_CLUSTER,
            AvroSerde.forValues(Alert.class, serde).deserializer());
    probe.awaitAssignment(Duration.ofSeconds(30));
    Thread probeThread = new Thread(probe, "bench-latency-probe");
    probeThread.start();
    try (SimulatedFleet agents =
        new SimulatedFleet(faulty, pipeline.producerConfig(), pipeline.topics())) {
      long seconds = settings.latency().toSeconds();
      long t0 = System.nanoTime();
      for (long s = 0; s < seconds; s++) {
        long due = t0 + (long) (s / simSecondsPerSecond * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        agents.collect(from.plusSeconds(s));
        agents.flush();
      }
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int expected = (int) faults.stream().filter(f -> f.expectedAlert().isPresent()).count();
    while (probe.latenciesMs().size() < expected && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(200);
    }
    probe.close();
    probeThread.join(10_000);
    probe.release();
    List<Double> latencies = probe.latenciesMs();
    out.printf(
        Locale.ROOT,
        "  latency   %d alerts timed (%d without their raw sample): p50 %s, p99 %s%n",
        latencies.size(),
        probe.unmatched(),
        ms(percentile(latencies, 0.50)),
        ms(percentile(latencies, 0.99)));
    return latencies;
  }

  private void awaitGroup(GroupLag lag, String group, List<String> topics, String phase)
      throws InterruptedException {
    boolean caughtUp =
        lag.awaitCaughtUp(
            group,
            topics,
            STALL,
            behind -> out.printf(Locale.ROOT, "  %-9s %,d offsets behind%n", phase, behind));
    if (!caughtUp) {
      throw new PhaseFailed(phase + " made no progress for " + STALL.toSeconds() + " s");
    }
  }

  /** The sink is done when it has consumed every derived record and has no point pending. */
  private void awaitSink(InfluxSink sink, long derived) throws InterruptedException {
    long last = -1;
    long lastChange = System.nanoTime();
    long reportAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (sink.metrics().recordsConsumed() < derived || sink.pendingPoints() > 0) {
      long consumed = sink.metrics().recordsConsumed();
      long now = System.nanoTime();
      if (consumed != last) {
        last = consumed;
        lastChange = now;
      } else if (now - lastChange > STALL.toNanos()) {
        throw new PhaseFailed(
            "sink made no progress for "
                + STALL.toSeconds()
                + " s ("
                + consumed
                + " of "
                + derived
                + " records)");
      }
      if (now >= reportAt) {
        out.printf(Locale.ROOT, "  sink      %,d of %,d records%n", consumed, derived);
        reportAt = now + TimeUnit.SECONDS.toNanos(5);
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }

  private void report(Result r) {
    out.printf(
        Locale.ROOT,
        "nodes %d, simulated %d s: %,d raw records, %,d port samples%n",
        settings.nodes(),
        settings.simulated().toSeconds(),
        r.rawRecords(),
        r.portSamples());
    out.printf(Locale.ROOT, "baseline  %,12.0f port samples/s%n", r.baselinePerSecond());
    out.printf(
        Locale.ROOT,
        "streams   %,12.0f port samples/s  (%.2f of baseline)%n",
        r.streamsPerSecond(),
        r.ratio());
    out.printf(Locale.ROOT, "sink      %,12.0f points/s%n", r.sinkPointsPerSecond());
    out.printf(
        Locale.ROOT,
        "latency   p50 %s, p99 %s over %d alerts at 80%% load%n",
        ms(r.alertP50Ms()),
        ms(r.alertP99Ms()),
        r.alertsTimed());
    out.printf(Locale.ROOT, "detect    %,12.0f records/s offline%n", r.detectPerSecond());
  }

  private static void createTopic(Admin admin, String name, int partitions)
      throws InterruptedException {
    try {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new PhaseFailed("cannot create " + name + ": " + e.getCause());
      }
    }
    try {
      io.fabricpulse.schemas.topics.TopicLeaders.await(
          admin, List.of(name), java.time.Duration.ofSeconds(30));
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new PhaseFailed("cannot write to " + name + ": " + e);
    }
  }

  /** Nearest-rank percentile; null for no values. */
  static Double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return null;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  private static String ms(Double value) {
    return value == null ? "none" : String.format(Locale.ROOT, "%.0f ms", value);
  }

  private static double secondsSince(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** A phase that could not complete; its message is the command's one line. */
  static final class PhaseFailed extends RuntimeException {
    PhaseFailed(String message) {
      super(message);
    }
  }
}
