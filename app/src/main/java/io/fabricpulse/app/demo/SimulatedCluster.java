package io.fabricpulse.app.demo;

import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The demo's simulated cluster publishing to a real Kafka cluster, for {@code fabricpulse simulate}
 * (docker compose's {@code collect} service): the node agents' own source tasks and parsers over
 * the simulator's sources, through the agent's Kafka output, with one fault of every kind injected
 * in the first {@code faultWindow}. The simulated clock starts at the wall clock and advances one
 * simulated second per {@code 1/speed} real seconds, so a dashboard shows a live cluster.
 */
public final class SimulatedCluster {

  /** What was published and what the agent's output had to drop (Kafka away too long). */
  public record Result(long published, long lost) {}

  /** How the cluster runs. */
  public record Settings(
      String cluster,
      int nodes,
      long seed,
      double speed,
      Duration faultWindow,
      Duration duration) {}

  private static final Duration REPORT_EVERY = Duration.ofSeconds(30);

  private SimulatedCluster() {}

  /**
   * Publishes until {@code stop} is counted down or {@code duration} of simulated time has passed
   * (null: no end).
   */
  public static Result run(
      Settings settings,
      Properties producerConfig,
      FabricTopics topics,
      CountDownLatch stop,
      PrintWriter out)
      throws InterruptedException {
    return run(settings, producerConfig, topics, stop, out, () -> {});
  }

  /**
   * The same, calling {@code afterEachCycle} after every simulated second was handed to the agents'
   * Kafka output with nothing lost (what {@code --alive-file} records).
   */
  public static Result run(
      Settings settings,
      Properties producerConfig,
      FabricTopics topics,
      CountDownLatch stop,
      PrintWriter out,
      Runnable afterEachCycle)
      throws InterruptedException {
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    FabricSimulator simulator =
        new FabricSimulator(
            SimulatorConfig.infiniband(
                settings.cluster(), settings.nodes(), settings.seed(), start));
    List<InjectedFault> faults =
        settings.nodes() >= DemoFaults.MIN_NODES
            ? DemoFaults.scheduleAll(simulator, start.plusSeconds(5), settings.faultWindow())
            : DemoFaults.schedulePortFaults(
                simulator, start.plusSeconds(5), settings.faultWindow());
    out.printf(
        "simulating %d nodes of cluster %s (seed %d, %sx), %d faults in the first %s%n",
        settings.nodes(),
        settings.cluster(),
        settings.seed(),
        settings.speed(),
        faults.size(),
        settings.faultWindow());
    out.flush();
    long tickNanos = (long) (1e9 / settings.speed());
    long wallStart = System.nanoTime();
    long nextReport = wallStart + REPORT_EVERY.toNanos();
    long ticks = settings.duration() == null ? Long.MAX_VALUE : settings.duration().toSeconds();
    try (SimulatedFleet fleet = new SimulatedFleet(simulator, producerConfig, topics)) {
      for (long tick = 0; tick <= ticks && stop.getCount() > 0; tick++) {
        long lostBefore = fleet.lost();
        fleet.collect(start.plusSeconds(tick));
        if (fleet.lost() == lostBefore) {
          afterEachCycle.run();
        }
        if (System.nanoTime() >= nextReport) {
          out.printf(
              "sim +%ds: %,d records published, %d lost%n", tick, fleet.published(), fleet.lost());
          out.flush();
          nextReport += REPORT_EVERY.toNanos();
        }
        // pacing a live simulation by the wall clock is the point here (no test depends on it)
        long wait = wallStart + (tick + 1) * tickNanos - System.nanoTime();
        if (wait > 0 && stop.await(wait, TimeUnit.NANOSECONDS)) {
          break;
        }
      }
      fleet.flush();
      out.printf(
          "published %,d records (%d malformed, %d source failures, %d lost)%n",
          fleet.published(), fleet.malformed(), fleet.failures(), fleet.lost());
      out.flush();
      return new Result(fleet.published(), fleet.lost());
    }
  }
}
