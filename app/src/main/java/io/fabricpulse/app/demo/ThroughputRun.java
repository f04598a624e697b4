package io.fabricpulse.app.demo;

import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * The end-to-end benchmark: the same embedded pipeline as the demo (real KRaft broker, streams
 * application with every detector, sink into QuestDB), fed by the simulated fleet as fast as it can
 * publish, healthy (no faults). Reports how long each stage took to carry the whole load.
 */
public final class ThroughputRun {

  /** What to run: {@code nodes} simulated nodes for {@code simulated} seconds of their time. */
  public record Settings(int nodes, Duration simulated, long seed, Path dataDir) {}

  private final Settings settings;
  private final PrintStream out;

  public ThroughputRun(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  public int run() throws IOException, InterruptedException {
    Path dataDir =
        settings.dataDir() != null
            ? settings.dataDir()
            : Files.createTempDirectory("fabricpulse-bench-");
    try (EmbeddedPipeline pipeline =
        EmbeddedPipeline.start(
            new EmbeddedPipeline.Options(dataDir, "mock://fabricpulse-bench", 3, null, null),
            line -> out.println("  " + line))) {
      Instant simStart =
          Instant.now()
              .minus(settings.simulated())
              .minusSeconds(60)
              .truncatedTo(ChronoUnit.SECONDS);
      FabricSimulator simulator =
          new FabricSimulator(
              SimulatorConfig.infiniband("bench", settings.nodes(), settings.seed(), simStart));
      DemoWatcher watcher =
          new DemoWatcher(
              pipeline.consumerConfig(PipelineDrain.CONSOLE_GROUP),
              pipeline.topics().rates().name(),
              pipeline.topics().alerts().name(),
              alert -> {});
      Thread watcherThread = new Thread(watcher, "bench-watcher");
      watcherThread.setDaemon(true);
      watcherThread.start();
      long t0 = System.nanoTime();
      long published;
      long portSamples;
      long seconds = settings.simulated().toSeconds();
      try (SimulatedFleet fleet =
          new SimulatedFleet(simulator, pipeline.producerConfig(), pipeline.topics())) {
        long step = Math.max(1, seconds / 20);
        for (long s = 0; s < seconds; s++) {
          fleet.collect(simStart.plusSeconds(s));
          if ((s + 1) % step == 0 || s + 1 == seconds) {
            out.printf(
                Locale.ROOT,
                "  published %3d%%  %,10d records  %,8.0f rec/s   rates derived %,10d%n",
                (s + 1) * 100 / seconds,
                fleet.published(),
                fleet.published() / secondsSince(t0),
                watcher.rates());
          }
        }
        fleet.flush();
        published = fleet.published();
        portSamples = fleet.portSamples();
      }
      double publishSeconds = secondsSince(t0);
      List<String> behind =
          PipelineDrain.await(pipeline, watcher, Duration.ofMinutes(2), out::println);
      double drainedSeconds = secondsSince(t0);
      watcher.close();
      watcherThread.join(5_000);
      out.println();
      out.printf(Locale.ROOT, "nodes %d, simulated %ds, all sources%n", settings.nodes(), seconds);
      out.printf(
          Locale.ROOT,
          "collect+publish  %,d raw records in %.1f s = %,.0f records/s%n",
          published,
          publishSeconds,
          published / publishSeconds);
      out.printf(
          Locale.ROOT,
          "end to end       %,d rates records derived and %,d points written; everything drained"
              + " %.1f s after the first record = %,.0f raw records/s, %,.0f port samples/s"
              + " through the pipeline%n",
          watcher.rates(),
          pipeline.sink().metrics().pointsWritten(),
          drainedSeconds,
          published / drainedSeconds,
          portSamples / drainedSeconds);
      out.printf("alerts           %d (healthy fleet: expected 0)%n", watcher.alerts().size());
      behind.forEach(b -> out.println("still behind: " + b));
      return behind.isEmpty() ? 0 : 1;
    }
  }

  private static double secondsSince(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
