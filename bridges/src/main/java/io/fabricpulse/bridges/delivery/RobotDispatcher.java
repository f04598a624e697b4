package io.fabricpulse.bridges.delivery;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.bridges.budget.SendBudget;
import io.fabricpulse.bridges.config.Person;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.render.Message;
import io.fabricpulse.bridges.render.MessagePacker;
import io.fabricpulse.bridges.render.MessagePacker.Packed;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one robot's alert changes within its budget, never dropping one:
 *
 * <ul>
 *   <li>While the budget is loose (every pending change could go out alone and leave {@link
 *       #reserve()} requests in the minute), each change goes out at once as its own detailed
 *       message.
 *   <li>Otherwise everything pending goes out as one digest; when few requests are left in the
 *       current minute ({@link #reserve()} or fewer), sends are paced one per {@code 60 s /
 *       budget}, so what arrives meanwhile is digested too (split at alert lines when over the size
 *       limit; what does not fit in this request waits for the next one and is digested again with
 *       what arrived meanwhile).
 *   <li>A throttle reply locks the robot for its lockout (WeCom 1 min, DingTalk 10 min): no request
 *       goes to it until the lockout ends; then the pending changes go out as a digest.
 *   <li>A size refusal lowers the size ceiling to 3/4 of the refused body and packs again.
 *   <li>Anything else (network, 5xx, a wrong key) backs off exponentially up to a minute; when the
 *       robot keeps failing for the give-up time, the changes waiting for it are handed back as
 *       undelivered with the reason.
 *   <li>In quiet hours only CRITICAL changes go out; the others wait for the end.
 * </ul>
 *
 * <p>Single-threaded; time comes from the injected clock only.
 */
public final class RobotDispatcher {
  private static final Logger log = LoggerFactory.getLogger(RobotDispatcher.class);
  static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

  private final RobotConfig config;
  private final Robot robot;
  private final MessagePacker packer;
  private final Clock clock;
  private final Duration giveUpAfter;
  private final java.time.ZoneId zone;
  private final SendBudget budget;
  private final BridgeMetrics metrics = new BridgeMetrics();
  private final List<Pending> pending = new ArrayList<>();

  private int failedAttempts;
  private Instant nextAttemptAt = Instant.MIN;
  private String lastFailure;
  private int sizeCeiling = Integer.MAX_VALUE;

  private static final class Pending {
    final AlertChange change;
    final Set<Person> mentions;
    Instant failingSince;

    Pending(AlertChange change, Set<Person> mentions) {
      this.change = change;
      this.mentions = mentions;
    }
  }

  /** What one step did: the changes the robot accepted and the ones given up. */
  public record StepResult(List<AlertChange> delivered, List<Undelivered> gaveUp) {
    public boolean isEmpty() {
      return delivered.isEmpty() && gaveUp.isEmpty();
    }
  }

  /** A change given up on, with why. */
  public record Undelivered(AlertChange change, String reason) {}

  public RobotDispatcher(
      RobotConfig config,
      Robot robot,
      MessagePacker packer,
      Clock clock,
      Duration giveUpAfter,
      java.time.ZoneId zone) {
    this.config = config;
    this.robot = robot;
    this.packer = packer;
    this.clock = clock;
    this.giveUpAfter = giveUpAfter;
    this.zone = zone;
    this.budget = new SendBudget(config.messagesPerMinute());
  }

  public String name() {
    return config.name();
  }

  public RobotConfig config() {
    return config;
  }

  public BridgeMetrics metrics() {
    return metrics;
  }

  public SendBudget budget() {
    return budget;
  }

  /** Whether the robot gets this alert at all (some route matches). */
  public boolean routes(Alert alert) {
    return !config.matching(alert).isEmpty();
  }

  /** Queues a change this robot routes; {@link #step()} sends it. */
  public void offer(AlertChange change) {
    pending.add(new Pending(change, config.mentionsFor(change.alert())));
    updateGauges();
  }

  /** The gauges JMX reads from another thread. */
  private void updateGauges() {
    metrics.pending.set(pending.size());
    Instant locked = budget.lockedUntil();
    metrics.lockedUntilMs.set(locked.equals(Instant.MIN) ? 0 : locked.toEpochMilli());
  }

  public int pendingCount() {
    return pending.size();
  }

  /** Drops the pending changes that came from these partitions (they were revoked). */
  public void forget(Predicate<AlertChange> revoked) {
    pending.removeIf(p -> revoked.test(p.change));
    updateGauges();
  }

  /** Requests left in a minute below which sends are paced and changes digested. */
  int reserve() {
    return Math.max(1, budget.perMinute() / 4);
  }

  /** The earliest time {@link #step()} could send something, or null with nothing pending. */
  public Instant nextWakeAt() {
    if (pending.isEmpty()) {
      return null;
    }
    Instant now = clock.instant();
    Instant at = budget.nextSendAt(now);
    if (nextAttemptAt.isAfter(at)) {
      at = nextAttemptAt;
    }
    Instant paced = pacedUntil(now);
    if (paced.isAfter(at)) {
      at = paced;
    }
    if (eligible(now).isEmpty()) {
      Instant quietEnd = quietEnd(now);
      if (quietEnd.isAfter(at)) {
        at = quietEnd;
      }
    }
    return at;
  }

  /** Sends what the budget allows now. */
  public StepResult step() {
    Instant now = clock.instant();
    List<AlertChange> delivered = new ArrayList<>();
    List<Undelivered> gaveUp = giveUp(now);
    while (!pending.isEmpty()) {
      now = clock.instant();
      if (now.isBefore(nextAttemptAt) || budget.available(now) == 0) {
        break;
      }
      if (now.isBefore(pacedUntil(now))) {
        break;
      }
      List<Pending> eligible = eligible(now);
      if (eligible.isEmpty()) {
        break;
      }
      Outgoing next = plan(eligible, budget.available(now));
      SendResult result;
      try {
        result = robot.send(next.message, idempotencyKey(next.items));
      } finally {
        // Counted when the answer is back, not when the request left: the robot received it in
        // between, so the budget's 60 s window never opens before the robot's. Counted at its
        // start, a request could be the robot's 21st in 60 s when an earlier one arrived late,
        // and DingTalk answers that with a 10-minute lockout (130101).
        budget.recordSend(clock.instant());
      }
      if (!handle(result, next, now, delivered)) {
        break;
      }
    }
    updateGauges();
    return new StepResult(delivered, gaveUp);
  }

  private record Outgoing(Message message, List<Pending> items) {}

  /**
   * One alone when every eligible change could go out alone and still leave the reserve, else a
   * digest of everything eligible that fits in one message.
   */
  private Outgoing plan(List<Pending> eligible, int available) {
    Predicate<Message> fits = m -> robot.fits(m) && bodyBytes(m) <= sizeCeiling;
    if (eligible.size() == 1 || eligible.size() <= available - reserve()) {
      Pending first = eligible.get(0);
      return new Outgoing(
          packer.single(first.change.alert(), first.mentions, fits), List.of(first));
    }
    List<Alert> alerts = eligible.stream().map(p -> p.change.alert()).toList();
    IdentityHashMap<Alert, Set<Person>> mentions = new IdentityHashMap<>();
    eligible.forEach(p -> mentions.put(p.change.alert(), p.mentions));
    List<Packed> parts = packer.digest(alerts, mentions::get, fits);
    Packed part = parts.get(0);
    Set<Alert> carried = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    carried.addAll(part.alerts());
    List<Pending> items = new ArrayList<>();
    for (Pending p : eligible) {
      if (carried.contains(p.change.alert())) {
        items.add(p);
      }
    }
    return new Outgoing(part.message(), items);
  }

  private int bodyBytes(Message m) {
    return robot.body(m, "0123456789abcdef0123456789abcdef").length;
  }

  /**
   * @return whether to go on sending in this step
   */
  private boolean handle(
      SendResult result, Outgoing sent, Instant now, List<AlertChange> delivered) {
    if (result instanceof SendResult.Accepted) {
      pending.removeAll(sent.items);
      sent.items.forEach(p -> delivered.add(p.change));
      metrics.messagesSent.incrementAndGet();
      metrics.alertsDelivered.addAndGet(sent.items.size());
      if (sent.items.size() > 1) {
        metrics.alertsDigested.addAndGet(sent.items.size());
      }
      failedAttempts = 0;
      nextAttemptAt = Instant.MIN;
      pending.forEach(p -> p.failingSince = null); // the robot works again
      return true;
    }
    if (result instanceof SendResult.Throttled t) {
      metrics.throttled.incrementAndGet();
      budget.lockUntil(now.plus(t.lockout()));
      log.warn(
          "robot {}: throttled (errcode {}: {}); no request until {}",
          name(),
          t.errcode(),
          t.errmsg(),
          budget.lockedUntil());
      return false;
    }
    if (result instanceof SendResult.TooLarge big) {
      metrics.tooLarge.incrementAndGet();
      int refused = bodyBytes(sent.message);
      sizeCeiling = Math.min(sizeCeiling, refused * 3 / 4);
      log.warn(
          "robot {}: message of {} bytes refused as too large (errcode {}: {}); packing to {} bytes",
          name(),
          refused,
          big.errcode(),
          big.errmsg(),
          sizeCeiling);
      return true;
    }
    SendResult.Failed f = (SendResult.Failed) result;
    metrics.failures.incrementAndGet();
    failedAttempts++;
    long backoffMs = Math.min(MAX_BACKOFF.toMillis(), 1000L << Math.min(failedAttempts - 1, 16));
    nextAttemptAt = now.plusMillis(backoffMs);
    lastFailure = f.reason();
    // every change waiting for this robot waits on the failure, not only the one just tried
    pending.forEach(p -> p.failingSince = p.failingSince == null ? now : p.failingSince);
    log.warn(
        "robot {}: send failed ({}), attempt {}; retrying at {}",
        name(),
        f.reason(),
        failedAttempts,
        nextAttemptAt);
    return false;
  }

  private List<Undelivered> giveUp(Instant now) {
    List<Undelivered> out = new ArrayList<>();
    pending.removeIf(
        p -> {
          if (p.failingSince != null && !now.isBefore(p.failingSince.plus(giveUpAfter))) {
            out.add(
                new Undelivered(
                    p.change, "failing for " + giveUpAfter + " (last: " + lastFailure + ")"));
            return true;
          }
          return false;
        });
    metrics.undelivered.addAndGet(out.size());
    return out;
  }

  /** In a tight budget, one send per 60 s / budget. */
  private Instant pacedUntil(Instant now) {
    Instant last = budget.lastSend();
    if (last == null || budget.available(now) > reserve()) {
      return Instant.MIN;
    }
    return last.plus(SendBudget.WINDOW.dividedBy(budget.perMinute()));
  }

  private List<Pending> eligible(Instant now) {
    if (config.quiet().isEmpty() || !config.quiet().get().isQuiet(now.atZone(zone))) {
      return pending;
    }
    return pending.stream()
        .filter(p -> p.change.alert().getSeverity() == Severity.CRITICAL)
        .toList();
  }

  private Instant quietEnd(Instant now) {
    var quiet = config.quiet().orElseThrow();
    var local = now.atZone(zone);
    var end = local.with(quiet.to());
    if (!end.isAfter(local)) {
      end = end.plusDays(1);
    }
    return end.toInstant();
  }

  private String idempotencyKey(List<Pending> items) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Pending p : items) {
        sha.update(p.change.ledgerKey(name()).getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
