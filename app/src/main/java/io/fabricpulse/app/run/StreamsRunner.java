package io.fabricpulse.app.run;

import io.fabricpulse.app.status.HealthCheck;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one Kafka Streams application and lets the caller wait on its state, never on a sleep. A
 * stream thread that fails is replaced ({@code REPLACE_THREAD}: the new thread resumes its tasks
 * from the last commit) as long as {@link ThreadReplacementPolicy} allows; past its bound the
 * client shuts down ({@code SHUTDOWN_CLIENT}) and {@link #failure()} says why, so a record that
 * fails every time cannot keep the application looping.
 */
public final class StreamsRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StreamsRunner.class);

  private final KafkaStreams streams;
  private final CountDownLatch running = new CountDownLatch(1);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicInteger replacedThreads = new AtomicInteger();

  public StreamsRunner(Topology topology, Properties settings) {
    this(topology, settings, ThreadReplacementPolicy.defaults());
  }

  public StreamsRunner(Topology topology, Properties settings, ThreadReplacementPolicy policy) {
    this.streams = new KafkaStreams(topology, settings);
    streams.setStateListener(
        (newState, oldState) -> {
          if (newState == KafkaStreams.State.RUNNING) {
            running.countDown();
          }
          if (newState == KafkaStreams.State.ERROR) {
            running.countDown();
          }
        });
    streams.setUncaughtExceptionHandler(
        exception -> {
          if (policy.replaceAnother()) {
            int replaced = replacedThreads.incrementAndGet();
            log.error(
                "stream thread failed; replacing it ({} of at most {} within {}; {} so far)",
                policy.recentReplacements(),
                policy.maxReplacements(),
                policy.window(),
                replaced,
                exception);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
          }
          log.error(
              "stream thread failed again after {} replacements within {}; shutting the"
                  + " application down",
              policy.maxReplacements(),
              policy.window(),
              exception);
          failure.compareAndSet(null, exception);
          return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
  }

  /** Starts and waits until RUNNING; throws if the application failed or the timeout passed. */
  public StreamsRunner start(Duration timeout) throws InterruptedException {
    streams.start();
    if (!running.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("streams application not RUNNING after " + timeout);
    }
    if (streams.state() != KafkaStreams.State.RUNNING
        && streams.state() != KafkaStreams.State.REBALANCING) {
      throw new IllegalStateException("streams application is " + streams.state(), failure.get());
    }
    return this;
  }

  public KafkaStreams streams() {
    return streams;
  }

  /** Stream threads replaced after a failure since the start. */
  public int replacedThreads() {
    return replacedThreads.get();
  }

  /** The exception that stopped the application (past the replacement bound), if any. */
  public Throwable failure() {
    return failure.get();
  }

  /**
   * The status page's check: RUNNING or REBALANCING (work moving between instances) pass; any other
   * state fails, naming it, and the failure that stopped the application.
   */
  public HealthCheck health() {
    return new HealthCheck(
        "streams",
        () -> {
          KafkaStreams.State state = streams.state();
          Throwable stoppedBy = failure.get();
          int threads = streams.metadataForLocalThreads().size();
          String replaced = replacedThreads.get() + " replaced after a failure";
          if (stoppedBy != null) {
            return HealthCheck.Result.failing(
                state
                    + ": stopped by "
                    + stoppedBy.getClass().getSimpleName()
                    + " in a stream thread, "
                    + replaced);
          }
          return switch (state) {
            case RUNNING, REBALANCING ->
                HealthCheck.Result.ok(state + ", " + threads + " stream threads, " + replaced);
            default -> HealthCheck.Result.failing(state + ", " + replaced);
          };
        });
  }

  @Override
  public void close() {
    streams.close(Duration.ofSeconds(30));
  }
}
