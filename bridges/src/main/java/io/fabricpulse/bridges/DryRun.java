package io.fabricpulse.bridges;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.delivery.AlertChange;
import io.fabricpulse.bridges.delivery.Robot;
import io.fabricpulse.bridges.delivery.RobotDispatcher;
import io.fabricpulse.bridges.delivery.SendResult;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.render.Message;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * What a bridge would send for a list of alerts, without sending anything: the real routing,
 * budget, digests and size limits run against robots that print the request (endpoint masked, the
 * exact JSON body) and accept it, on a simulated clock that starts at {@code start} and jumps to
 * each next send, so a burst shows the digests the budget would make.
 */
public final class DryRun {
  /** How far the simulated clock may run before the dry run stops (a quiet night is 24 h). */
  static final Duration HORIZON = Duration.ofDays(2);

  private DryRun() {}

  /** Prints what would be sent and returns the number of messages. */
  public static int run(
      BridgeConfig config, RobotType type, List<Alert> alerts, Instant start, PrintWriter out) {
    SimulatedClock clock = new SimulatedClock(start);
    List<RobotDispatcher> dispatchers = new ArrayList<>();
    int[] messages = {0};
    for (RobotConfig r : config.robotsOf(type)) {
      // placeholders: a body never holds a secret, and nothing is sent
      Bridges.Secrets placeholder =
          new Bridges.Secrets("dry-run", r.signSecret() == null ? null : "dry-run");
      Robot real = Bridges.robot(r, placeholder, clock, new WebhookClient());
      Robot printing = new PrintingRobot(real, r, clock, start, out, messages);
      dispatchers.add(Bridges.dispatcher(config, r, printing, clock));
    }
    for (Alert a : alerts) {
      for (RobotDispatcher d : dispatchers) {
        if (d.routes(a)) {
          d.offer(new AlertChange(a, null, clock.instant()));
        }
      }
    }
    Instant end = start.plus(HORIZON);
    while (clock.instant().isBefore(end)) {
      Instant next = null;
      for (RobotDispatcher d : dispatchers) {
        d.step();
        Instant wake = d.nextWakeAt();
        if (wake != null && (next == null || wake.isBefore(next))) {
          next = wake;
        }
      }
      if (next == null) {
        break;
      }
      clock.set(next.isAfter(clock.instant()) ? next : clock.instant().plusMillis(1));
    }
    for (RobotDispatcher d : dispatchers) {
      out.println(
          "robot "
              + d.name()
              + ": "
              + d.metrics().messagesSent.get()
              + " messages, "
              + d.metrics().alertsDelivered.get()
              + " alert changes ("
              + d.metrics().alertsDigested.get()
              + " in digests)"
              + (d.pendingCount() > 0 ? ", " + d.pendingCount() + " still held" : ""));
    }
    out.flush();
    return messages[0];
  }

  private static final class PrintingRobot implements Robot {
    private final Robot real;
    private final RobotConfig config;
    private final Clock clock;
    private final Instant start;
    private final PrintWriter out;
    private final int[] messages;

    PrintingRobot(
        Robot real,
        RobotConfig config,
        Clock clock,
        Instant start,
        PrintWriter out,
        int[] messages) {
      this.real = real;
      this.config = config;
      this.clock = clock;
      this.start = start;
      this.out = out;
      this.messages = messages;
    }

    @Override
    public String name() {
      return real.name();
    }

    @Override
    public boolean fits(Message message) {
      return real.fits(message);
    }

    @Override
    public byte[] body(Message message, String idempotencyKey) {
      return real.body(message, idempotencyKey);
    }

    @Override
    public SendResult send(Message message, String idempotencyKey) {
      messages[0]++;
      long seconds = Duration.between(start, clock.instant()).toSeconds();
      out.println(
          "+"
              + seconds
              + "s "
              + config.name()
              + " POST "
              + real.maskedEndpoint()
              + " ("
              + message.alertCount()
              + (message.alertCount() == 1 ? " alert)" : " alerts)"));
      out.println(new String(real.body(message, idempotencyKey), StandardCharsets.UTF_8));
      return new SendResult.Accepted();
    }

    @Override
    public String maskedEndpoint() {
      return real.maskedEndpoint();
    }
  }

  /** A clock the dry run moves itself. */
  static final class SimulatedClock extends Clock {
    private Instant now;

    SimulatedClock(Instant start) {
      this.now = start;
    }

    void set(Instant t) {
      now = t;
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
