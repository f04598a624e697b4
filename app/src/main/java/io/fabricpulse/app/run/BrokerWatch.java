package io.fabricpulse.app.run;

import io.fabricpulse.app.status.HealthCheck;
import io.fabricpulse.schemas.health.OutageLog;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks Kafka for its cluster description every {@link #CHECK_EVERY} on a daemon thread of its own
 * and says so when it does not answer: a warning after {@link #WARN_AFTER}, repeated every {@link
 * #REPEAT_EVERY} while the outage lasts, one line when it answers again ({@link OutageLog}). The
 * streams application and the sink run it beside their clients, which retry silently on their own.
 * One small metadata request per interval per process: these are a handful of processes, not the
 * fleet's agents (those watch their own acknowledgements instead).
 */
public final class BrokerWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerWatch.class);

  public static final Duration CHECK_EVERY = Duration.ofSeconds(2);
  public static final Duration WARN_AFTER = Duration.ofSeconds(3);
  public static final Duration REPEAT_EVERY = Duration.ofSeconds(30);

  private final Admin admin;
  private final OutageLog outage;
  private final String what;
  private volatile String lastWarning;
  private final Consumer<OutageLog.Line> listener;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fabricpulse-broker-watch");
            t.setDaemon(true);
            return t;
          });

  private BrokerWatch(Admin admin, String what, Consumer<OutageLog.Line> listener) {
    this.admin = admin;
    this.listener = listener;
    this.what = what;
    this.outage = new OutageLog(what, WARN_AFTER, REPEAT_EVERY);
  }

  /**
   * Starts watching the Kafka that {@code client} (a client configuration: bootstrap servers,
   * security settings) names; serde settings in it are ignored.
   */
  public static BrokerWatch start(Properties client) {
    return start(client, line -> {});
  }

  /** As {@link #start(Properties)}; {@code listener} also gets every line logged (tests). */
  public static BrokerWatch start(Properties client, Consumer<OutageLog.Line> listener) {
    Properties admin = new Properties();
    client.forEach(
        (k, v) -> {
          String key = k.toString();
          if (AdminClientConfig.configNames().contains(key)) {
            admin.put(key, v);
          }
        });
    admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(CHECK_EVERY.toMillis()));
    admin.put(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(CHECK_EVERY.toMillis()));
    BrokerWatch watch =
        new BrokerWatch(
            Admin.create(admin),
            "Kafka at " + admin.getProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG),
            listener);
    watch.timer.scheduleWithFixedDelay(
        watch::checkAndLog, 0, CHECK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    return watch;
  }

  /** True from the first warning of an outage until Kafka answers again. */
  public boolean kafkaDown() {
    return outage.down();
  }

  /**
   * The status page's check: Kafka answers, or the latest warning of the outage ({@code Kafka at
   * HOST:PORT unreachable for 12 s: ...}).
   */
  public HealthCheck health() {
    return new HealthCheck(
        "kafka",
        () -> {
          String warning = lastWarning;
          return outage.down() && warning != null
              ? HealthCheck.Result.failing(warning)
              : HealthCheck.Result.ok(what + " answers");
        });
  }

  private void checkAndLog() {
    check(System.nanoTime())
        .ifPresent(
            l -> {
              if (l.warning()) {
                lastWarning = l.text();
                log.warn(l.text());
              } else {
                log.info(l.text());
              }
              listener.accept(l);
            });
  }

  private Optional<OutageLog.Line> check(long nowNanos) {
    try {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs((int) CHECK_EVERY.toMillis()))
          .nodes()
          .get(CHECK_EVERY.toMillis() + 1000, TimeUnit.MILLISECONDS);
      return outage.answered(nowNanos);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return outage.failed(nowNanos, "no answer to a metadata request: " + cause);
    } catch (TimeoutException e) {
      return outage.failed(nowNanos, "no answer to a metadata request within " + CHECK_EVERY);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    admin.close(Duration.ZERO);
  }
}
