package io.fabricpulse.app.demo;

import io.fabricpulse.app.run.EmbeddedPipeline;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.Bridges;
import io.fabricpulse.bridges.DryRun;
import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.Route;
import io.fabricpulse.bridges.delivery.AlertBridge;
import io.fabricpulse.bridges.delivery.AlertChange;
import io.fabricpulse.bridges.delivery.BridgeMetrics;
import io.fabricpulse.bridges.delivery.BridgeTopics;
import io.fabricpulse.bridges.delivery.RobotDispatcher;
import io.fabricpulse.bridges.delivery.WebhookClient;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;

/**
 * The demo's alert bridges: with {@code --wecom-webhook} / {@code --dingtalk-webhook}, one robot
 * each that gets every alert, run by the production bridge on the embedded broker; without them,
 * the messages the bridges would send, printed by a dry run after the summary.
 */
public final class DemoBridges implements AutoCloseable {
  public static final String WECOM_KEY_ENV = "FABRICPULSE_WECOM_KEY";
  public static final String DINGTALK_TOKEN_ENV = "FABRICPULSE_DINGTALK_TOKEN";
  public static final String DINGTALK_SECRET_ENV = "FABRICPULSE_DINGTALK_SECRET";
  public static final String DINGTALK_KEYWORD_ENV = "FABRICPULSE_DINGTALK_KEYWORD";

  /**
   * Every {@code FABRICPULSE_*} variable the demo reads; the node agent, which refuses unknown
   * {@code FABRICPULSE_*} variables, knows these ({@code
   * CollectorConfig.OTHER_COMMANDS_VARIABLES}).
   */
  public static final java.util.List<String> ENVIRONMENT =
      java.util.List.of(
          WECOM_KEY_ENV, DINGTALK_TOKEN_ENV, DINGTALK_SECRET_ENV, DINGTALK_KEYWORD_ENV);

  /** Where the demo's robots post, and their secrets (from the environment). */
  public record Targets(
      String wecomUrl,
      String wecomKey,
      String dingtalkUrl,
      String dingtalkToken,
      String dingtalkSecret,
      String dingtalkKeyword) {
    public boolean any() {
      return wecomUrl != null || dingtalkUrl != null;
    }

    @Override
    public String toString() {
      return "Targets[wecom " + wecomUrl + ", dingtalk " + dingtalkUrl + "]";
    }
  }

  private final List<AlertBridge> bridges = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();

  private DemoBridges() {}

  static BridgeConfig config(Targets t) {
    Route everything = new Route(Set.of(), Set.of(), Set.of(), List.of(), Map.of(), List.of());
    List<RobotConfig> robots = new ArrayList<>();
    robots.add(
        new RobotConfig(
            "demo-wecom",
            RobotType.WECOM,
            t == null || t.wecomUrl() == null ? RobotType.WECOM.defaultUrl() : t.wecomUrl(),
            null,
            null,
            null,
            false,
            20,
            List.of(everything),
            null,
            "demo"));
    robots.add(
        new RobotConfig(
            "demo-dingtalk",
            RobotType.DINGTALK,
            t == null || t.dingtalkUrl() == null
                ? RobotType.DINGTALK.defaultUrl()
                : t.dingtalkUrl(),
            null,
            null,
            t == null ? null : t.dingtalkKeyword(),
            false,
            20,
            List.of(everything),
            null,
            "demo"));
    return new BridgeConfig(
        Language.EN, BridgeConfig.DEFAULT_ZONE, null, Duration.ofMinutes(10), Map.of(), robots);
  }

  /** Starts a bridge for each webhook given. */
  static DemoBridges start(EmbeddedPipeline pipeline, Targets targets, PrintStream out)
      throws IOException {
    DemoBridges demo = new DemoBridges();
    try (Admin admin = Admin.create(pipeline.adminConfig())) {
      BridgeTopics.ensure(admin);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("cannot create the bridge topics: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    BridgeConfig config = config(targets);
    Clock clock = Clock.systemUTC();
    Map<String, Object> client = new HashMap<>();
    pipeline.consumerConfig("unused").forEach((k, v) -> client.put(k.toString(), v));
    client.remove("group.id");
    for (RobotConfig r : config.robots()) {
      boolean wecom = r.type() == RobotType.WECOM;
      if (wecom ? targets.wecomUrl() == null : targets.dingtalkUrl() == null) {
        continue;
      }
      Bridges.Secrets secrets =
          wecom
              ? new Bridges.Secrets(targets.wecomKey(), null)
              : new Bridges.Secrets(targets.dingtalkToken(), targets.dingtalkSecret());
      RobotDispatcher d =
          Bridges.dispatcher(
              config, r, Bridges.robot(r, secrets, clock, new WebhookClient()), clock);
      AlertBridge bridge =
          Bridges.kafka(
              r.type(),
              List.of(d),
              client,
              "fabricpulse-demo-bridge-" + r.type().configName(),
              pipeline.topics().alerts().name(),
              pipeline.topics().deadLetters().name(),
              clock);
      bridge.start();
      Thread thread = new Thread(bridge, "demo-bridge-" + r.type().configName());
      thread.setDaemon(true);
      thread.start();
      demo.bridges.add(bridge);
      demo.threads.add(thread);
      out.printf(
          "  bridge    %s -> %s%n",
          r.name(), Bridges.robot(r, secrets, clock, new WebhookClient()).maskedEndpoint());
    }
    return demo;
  }

  /**
   * Waits until every bridge has settled every alert state change of {@code alerts} (delivered or
   * given up), up to {@code timeout}; prints each robot's counts.
   *
   * @return whether every change was delivered
   */
  boolean awaitDelivered(List<Alert> alerts, Duration timeout, PrintStream out)
      throws InterruptedException {
    Set<String> changes = new LinkedHashSet<>();
    alerts.forEach(a -> changes.add(AlertChange.ledgerKey("", a)));
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = true;
    for (AlertBridge bridge : bridges) {
      for (RobotDispatcher d : bridge.dispatchers()) {
        BridgeMetrics m = d.metrics();
        while (m.alertsDelivered.get() + m.undelivered.get() < changes.size()
            && System.nanoTime() < deadline) {
          Thread.sleep(100); // waiting on the bridge thread's state, bounded by the deadline
        }
        out.printf(
            "  bridge %-14s %d of %d alert changes delivered in %d messages (%d in digests, throttled %d, failures %d, undelivered %d)%n",
            d.name(),
            m.alertsDelivered.get(),
            changes.size(),
            m.messagesSent.get(),
            m.alertsDigested.get(),
            m.throttled.get(),
            m.failures.get(),
            m.undelivered.get());
        all &= m.alertsDelivered.get() >= changes.size();
      }
    }
    return all;
  }

  /**
   * The messages the demo's robots would get for {@code alerts}, as a bridge dry run prints them.
   */
  static void preview(List<Alert> alerts, PrintStream out) {
    BridgeConfig config = config(null);
    PrintWriter writer =
        new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true);
    for (RobotType type : RobotType.values()) {
      out.printf(
          "%nbridge %s --dry-run (--%s-webhook URL delivers them):%n",
          type.configName(), type.configName());
      DryRun.run(config, type, alerts, Instant.now(), writer);
    }
    writer.flush();
  }

  @Override
  public void close() {
    bridges.forEach(AlertBridge::close);
    for (Thread t : threads) {
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
