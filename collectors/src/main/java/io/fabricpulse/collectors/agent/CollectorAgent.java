package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent: runs every source at its own fixed rate on one scheduler and hands each cycle's
 * records to the output.
 *
 * <p>The scheduler has one thread per source, so a slow source (nvidia-smi on a sick GPU, ethtool
 * on a hung driver; both killed after their timeout) delays only its own next cycle, never the
 * others. A fixed-rate source whose cycle overruns its interval starts the next cycle late rather
 * than twice at once. Malformed input is counted per source and logged at most once a minute
 * ({@link MalformedReporter}); a source that throws is logged the same way and tried again next
 * cycle: nothing a node prints can stop the agent. {@link #close()} stops the schedule, lets
 * running cycles finish, closes the sources and flushes the output. The schedule is a {@link
 * Scheduler}: a thread pool in the daemon, driven cycle by cycle in tests.
 */
public final class CollectorAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CollectorAgent.class);

  /** At most one malformed-input log line per source per this period. */
  static final Duration REPORT_PERIOD = Duration.ofMinutes(1);

  /** How long close() waits for running cycles (a hung tool is killed by its own timeout). */
  static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(15);

  private final NodeIdentity identity;
  private final List<SourceTask> tasks;
  private final RecordOutput output;
  private final Clock clock;
  private final Map<SourceKind, MalformedReporter> malformed = new EnumMap<>(SourceKind.class);
  private final Map<SourceKind, AtomicLong> cycles = new EnumMap<>(SourceKind.class);
  private final Map<SourceKind, AtomicLong> failures = new EnumMap<>(SourceKind.class);
  private final Scheduler scheduler;
  private boolean started;
  private boolean closed;

  /** Runs each source's cycle on its interval. */
  interface Scheduler {
    /** Runs {@code cycle} now and then every {@code interval}, never twice at once. */
    void every(Duration interval, Runnable cycle);

    /**
     * Starts no more cycles; waits up to {@code wait} for running ones, false if some still run.
     */
    boolean stop(Duration wait) throws InterruptedException;

    /** Interrupts the cycles still running. */
    void stopNow();
  }

  public CollectorAgent(
      NodeIdentity identity, List<SourceTask> tasks, RecordOutput output, Clock clock) {
    this(identity, tasks, output, clock, new ThreadPoolScheduler(tasks.size()));
  }

  CollectorAgent(
      NodeIdentity identity,
      List<SourceTask> tasks,
      RecordOutput output,
      Clock clock,
      Scheduler scheduler) {
    this.identity = identity;
    this.tasks = List.copyOf(tasks);
    this.output = output;
    this.clock = clock;
    this.scheduler = scheduler;
    for (SourceTask task : this.tasks) {
      malformed.put(task.kind(), new MalformedReporter(task.kind(), REPORT_PERIOD));
      cycles.put(task.kind(), new AtomicLong());
      failures.put(task.kind(), new AtomicLong());
    }
  }

  public NodeIdentity identity() {
    return identity;
  }

  public List<SourceTask> tasks() {
    return tasks;
  }

  /**
   * Runs every source once, in order, on the calling thread, and returns all records of that cycle
   * without publishing them ({@code collect --once}). Malformed input is counted as in the daemon.
   */
  public List<SpecificRecord> collectOnce() {
    List<SpecificRecord> records = new ArrayList<>();
    for (SourceTask task : tasks) {
      records.addAll(runCycle(task));
    }
    return records;
  }

  /** Starts every source on its interval; the first cycles run at once. */
  public synchronized void start() {
    if (started || closed) {
      throw new IllegalStateException("agent already started or closed");
    }
    started = true;
    for (SourceTask task : tasks) {
      scheduler.every(task.interval(), () -> cycleAndPublish(task));
      LOG.info("source {} every {}", task.kind().section(), task.interval());
    }
  }

  private void cycleAndPublish(SourceTask task) {
    List<SpecificRecord> records = runCycle(task);
    try {
      output.publish(identity, records);
    } catch (RuntimeException e) {
      // The publisher buffers while Kafka is away; anything else is a bug to log, not to die of.
      failures.get(task.kind()).incrementAndGet();
      LOG.error("source {}: publishing failed: {}", task.kind().section(), e.toString());
    }
  }

  /**
   * One cycle of one source: never throws, so the scheduler never cancels a source (a periodic task
   * that throws is silently never run again).
   */
  private List<SpecificRecord> runCycle(SourceTask task) {
    Instant now = clock.instant();
    SourceKind kind = task.kind();
    cycles.get(kind).incrementAndGet();
    try {
      ParseResult<SpecificRecord> result = task.collect(now);
      malformed.get(kind).count(result.malformed(), now);
      return result.records();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    } catch (Exception | LinkageError e) {
      failures.get(kind).incrementAndGet();
      malformed
          .get(kind)
          .count(List.of(new Malformed(kind.section(), 0, "read failed: " + e)), now);
      return List.of();
    }
  }

  /** Cycles run so far by a source. */
  public long cycles(SourceKind kind) {
    AtomicLong count = cycles.get(kind);
    return count == null ? 0 : count.get();
  }

  /** Cycles of a source that failed as a whole (the source could not be read). */
  public long failures(SourceKind kind) {
    AtomicLong count = failures.get(kind);
    return count == null ? 0 : count.get();
  }

  /** Malformed inputs skipped by a source, including failed cycles. */
  public long malformed(SourceKind kind) {
    MalformedReporter reporter = malformed.get(kind);
    return reporter == null ? 0 : reporter.total();
  }

  /** Stops the schedule, waits for running cycles, closes the sources, flushes the output. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (!scheduler.stop(SHUTDOWN_WAIT)) {
        LOG.warn("sources still running after {}; interrupting them", SHUTDOWN_WAIT);
        scheduler.stopNow();
      }
    } catch (InterruptedException e) {
      scheduler.stopNow();
      Thread.currentThread().interrupt();
    }
    for (SourceTask task : tasks) {
      try {
        task.close();
      } catch (Exception e) {
        LOG.warn("closing source {}: {}", task.kind().section(), e.toString());
      }
    }
    output.close();
  }

  /**
   * The daemon's schedule: one thread per source, fixed rate, so a slow source delays only its own
   * next cycle. No thread starts before the first cycle is scheduled.
   */
  static final class ThreadPoolScheduler implements Scheduler {
    private final ScheduledThreadPoolExecutor executor;

    ThreadPoolScheduler(int sources) {
      AtomicInteger n = new AtomicInteger();
      ThreadFactory threads =
          runnable -> {
            Thread thread = new Thread(runnable, "fabricpulse-source-" + n.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          };
      executor = new ScheduledThreadPoolExecutor(Math.max(1, sources), threads);
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    @Override
    public void every(Duration interval, Runnable cycle) {
      executor.scheduleAtFixedRate(cycle, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean stop(Duration wait) throws InterruptedException {
      executor.shutdown();
      return executor.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stopNow() {
      executor.shutdownNow();
    }
  }
}
