package io.fabricpulse.bridges.delivery;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.BridgeCounters;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.bridges.delivery.RobotDispatcher.StepResult;
import io.fabricpulse.bridges.delivery.RobotDispatcher.Undelivered;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes fabric.alerts and delivers each alert state change to every robot that routes it,
 * exactly once as the group sees it:
 *
 * <ul>
 *   <li>a record's offset is committed only after every robot it goes to accepted it (or it was
 *       given up on and written to {@value BridgeTopics#UNDELIVERED}); until then the partition's
 *       committed offset stays before it;
 *   <li>what was delivered goes to the ledger {@value BridgeTopics#DELIVERED} in the same Kafka
 *       transaction as those offsets, and the ledger is read at start and on every rebalance, so
 *       after a restart the records after the last commit are read again but nothing delivered is
 *       sent again;
 *   <li>the same alert change read twice (a replayed producer) is sent once;
 *   <li>a record that cannot be decoded goes to fabric.dlq with the reason.
 * </ul>
 *
 * <p>Every robot's counters ({@link BridgeMetrics}) are registered with JMX ({@link BridgeJmx}) and
 * published as {@code BridgeCounters} to {@value FabricTopics#BRIDGE_COUNTERS} every {@link
 * #COUNTERS_EVERY} of the clock and when the bridge stops, in the same transactions; the sink
 * writes them to the store for the self-health dashboard.
 *
 * <p>What remains is the window between the robot's accepting a message and the transaction's
 * commit: a crash there resends that one message (DingTalk's msgUuid lets its server drop it).
 *
 * <p>Single-threaded: {@link #run()} or the caller's loop of {@link #pollOnce(Duration)}; {@link
 * #close()} from any thread stops {@link #run()}.
 */
public final class AlertBridge implements Runnable, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AlertBridge.class);
  static final Duration LEDGER_TIMEOUT = Duration.ofMinutes(1);
  static final Duration MAX_POLL = Duration.ofMillis(500);

  /** How often each robot's counters are logged (when they changed). */
  static final Duration METRICS_EVERY = Duration.ofMinutes(1);

  /** How often each robot's counters go to {@value FabricTopics#BRIDGE_COUNTERS}. */
  public static final Duration COUNTERS_EVERY = Duration.ofSeconds(10);

  private final String alertsTopic;
  private final String deadLetterTopic;
  private final String bridge;
  private final String instance;
  private final String processor;
  private final List<RobotDispatcher> dispatchers;
  private final Consumer<String, byte[]> consumer;
  private final Producer<String, byte[]> producer;
  private final DeliveryLedger ledger;
  private final AvroDeserializer<Alert> decoder = new AvroDeserializer<>(Alert.class);
  private final AvroSerializer<DeadLetter> deadLetters = new AvroSerializer<>();
  private final AvroSerializer<BridgeCounters> counters = new AvroSerializer<>();
  private final AtomicLong transactionsCommitted = new AtomicLong();
  private final Clock clock;

  /** Per partition: offsets still waiting for some robot, and which robots. */
  private final Map<TopicPartition, TreeMap<Long, Set<String>>> outstanding = new HashMap<>();

  private final Map<TopicPartition, Long> consumedUpTo = new HashMap<>();
  private final Map<TopicPartition, Long> committed = new HashMap<>();

  /** Ledger keys offered to a robot and not yet settled, with the partition they came from. */
  private final Map<String, TopicPartition> inFlight = new HashMap<>();

  private final List<ProducerRecord<String, byte[]>> toWrite = new ArrayList<>();
  private final Map<String, Map<String, Long>> lastLogged = new HashMap<>();
  private Instant nextMetricsLog = Instant.MIN;
  private Instant nextCounters = Instant.MIN;
  private BridgeJmx jmx;
  private final AtomicBoolean stop = new AtomicBoolean();
  private volatile Thread runThread;
  private boolean closed;

  /**
   * @param consumer auto-commit off, read_committed, String keys and byte[] values
   * @param producer transactional ({@code initTransactions} is called here)
   * @param serdeConfig Confluent-style serde settings, at least {@code schema.registry.url}
   * @param bridge the robot type ({@code wecom}); dead letters name processor {@code bridge-wecom}
   * @param instance which running bridge, in its published counters (client.id or host name)
   */
  public AlertBridge(
      String alertsTopic,
      String deadLetterTopic,
      String bridge,
      String instance,
      List<RobotDispatcher> dispatchers,
      Consumer<String, byte[]> consumer,
      Producer<String, byte[]> producer,
      DeliveryLedger ledger,
      Map<String, ?> serdeConfig,
      Clock clock) {
    this.alertsTopic = alertsTopic;
    this.deadLetterTopic = deadLetterTopic;
    this.bridge = bridge;
    this.instance = instance;
    this.processor = "bridge-" + bridge;
    this.dispatchers = List.copyOf(dispatchers);
    this.consumer = consumer;
    this.producer = producer;
    this.ledger = ledger;
    this.clock = clock;
    decoder.configure(serdeConfig, false);
    deadLetters.configure(serdeConfig, false);
    counters.configure(serdeConfig, false);
  }

  /** Reads the ledger, starts the transactional producer and subscribes. */
  public void start() {
    ledger.catchUp(LEDGER_TIMEOUT);
    producer.initTransactions();
    consumer.subscribe(List.of(alertsTopic), new Rebalance());
    jmx = BridgeJmx.register(bridge, dispatchers);
    log.info(
        "bridge {}: {} robots, {} deliveries in the ledger",
        processor,
        dispatchers.size(),
        ledger.size());
  }

  public List<RobotDispatcher> dispatchers() {
    return dispatchers;
  }

  @Override
  public void run() {
    runThread = Thread.currentThread();
    try {
      while (!stop.get()) {
        pollOnce(MAX_POLL);
      }
    } catch (WakeupException e) {
      if (!stop.get()) {
        throw e;
      }
    } finally {
      closeClients();
    }
  }

  /** One round: read, let every robot send what its budget allows, commit what is settled. */
  public void pollOnce(Duration maxWait) {
    for (ConsumerRecord<String, byte[]> record : consumer.poll(untilNextWake(maxWait))) {
      accept(record);
    }
    List<ProducerRecord<String, byte[]>> writes = new ArrayList<>(toWrite);
    toWrite.clear();
    for (RobotDispatcher d : dispatchers) {
      StepResult step = d.step();
      for (AlertChange c : step.delivered()) {
        String key = c.ledgerKey(d.name());
        writes.add(ledgerEntry(key, "delivered " + clock.instant()));
        settle(c, d.name(), key);
      }
      for (Undelivered u : step.gaveUp()) {
        String key = u.change().ledgerKey(d.name());
        log.error(
            "robot {}: giving up on {} {}: {}",
            d.name(),
            u.change().alert().getAlertId(),
            u.change().alert().getState(),
            u.reason());
        writes.add(undelivered(u, d.name()));
        writes.add(ledgerEntry(key, "undelivered " + clock.instant() + " " + u.reason()));
        settle(u.change(), d.name(), key);
      }
    }
    logMetricsWhenDue();
    if (!clock.instant().isBefore(nextCounters)) {
      nextCounters = clock.instant().plus(COUNTERS_EVERY);
      writes.addAll(counterRecords());
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = committable();
    if (writes.isEmpty() && offsets.isEmpty()) {
      return;
    }
    producer.beginTransaction();
    for (ProducerRecord<String, byte[]> write : writes) {
      // a failed send fails commitTransaction, which is where it surfaces
      var unused = producer.send(write);
    }
    if (!offsets.isEmpty()) {
      producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
    }
    producer.commitTransaction();
    transactionsCommitted.incrementAndGet();
    offsets.forEach((tp, o) -> committed.put(tp, o.offset()));
  }

  /**
   * Transactions the bridge's loop has committed to Kafka: deliveries, give-ups and at least the
   * robots' counters every {@link #COUNTERS_EVERY}, so a healthy bridge commits one that often
   * (what {@code bridge --alive-file} records).
   */
  public long transactionsCommitted() {
    return transactionsCommitted.get();
  }

  /** One line per robot whose counters changed, at most every {@link #METRICS_EVERY}. */
  private void logMetricsWhenDue() {
    Instant now = clock.instant();
    if (now.isBefore(nextMetricsLog)) {
      return;
    }
    nextMetricsLog = now.plus(METRICS_EVERY);
    for (RobotDispatcher d : dispatchers) {
      Map<String, Long> snapshot = d.metrics().snapshot();
      if (!snapshot.equals(lastLogged.put(d.name(), snapshot))) {
        log.info("robot {}: {} pending, {}", d.name(), d.pendingCount(), snapshot);
      }
    }
  }

  /** One {@code BridgeCounters} per robot, now. */
  private List<ProducerRecord<String, byte[]>> counterRecords() {
    Instant now = clock.instant();
    List<ProducerRecord<String, byte[]>> out = new ArrayList<>();
    for (RobotDispatcher d : dispatchers) {
      BridgeMetrics m = d.metrics();
      BridgeCounters c =
          BridgeCounters.newBuilder()
              .setTime(now)
              .setBridge(bridge)
              .setInstance(instance)
              .setRobot(d.name())
              .setMessagesSent(m.messagesSent.get())
              .setAlertsDelivered(m.alertsDelivered.get())
              .setAlertsDigested(m.alertsDigested.get())
              .setThrottled(m.throttled.get())
              .setTooLarge(m.tooLarge.get())
              .setFailures(m.failures.get())
              .setUndelivered(m.undelivered.get())
              .setPending(d.pendingCount())
              .setLocked(d.budget().isLocked(now))
              .build();
      out.add(
          new ProducerRecord<>(
              FabricTopics.BRIDGE_COUNTERS,
              null,
              now.toEpochMilli(),
              bridge + "/" + instance + "/" + d.name(),
              counters.serialize(FabricTopics.BRIDGE_COUNTERS, c)));
    }
    return out;
  }

  /** The final counters, in a transaction of their own; a failure only costs this last point. */
  private void publishFinalCounters() {
    try {
      producer.beginTransaction();
      for (ProducerRecord<String, byte[]> r : counterRecords()) {
        var unused = producer.send(r);
      }
      producer.commitTransaction();
    } catch (RuntimeException e) {
      log.warn("bridge {}: final counters not published: {}", processor, e.toString());
    }
  }

  private Duration untilNextWake(Duration maxWait) {
    Instant now = clock.instant();
    Duration wait = maxWait;
    for (RobotDispatcher d : dispatchers) {
      Instant wake = d.nextWakeAt();
      if (wake != null) {
        Duration until = Duration.between(now, wake);
        if (until.compareTo(wait) < 0) {
          wait = until.isNegative() ? Duration.ZERO : until;
        }
      }
    }
    return wait;
  }

  private void accept(ConsumerRecord<String, byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    consumedUpTo.put(tp, record.offset() + 1);
    Alert alert;
    try {
      alert = decoder.deserialize(record.topic(), record.value());
    } catch (SerializationException e) {
      log.warn(
          "{}-{}@{}: not an Alert, sent to {}: {}",
          record.topic(),
          record.partition(),
          record.offset(),
          deadLetterTopic,
          e.getMessage());
      toWrite.add(deadLetter(record, e));
      return;
    }
    if (alert == null) {
      return; // a tombstone carries no state change
    }
    AlertChange.Source source =
        new AlertChange.Source(
            record.topic(),
            record.partition(),
            record.offset(),
            record.timestamp(),
            bytes(record.key()),
            record.value());
    AlertChange change = new AlertChange(alert, source, clock.instant());
    Set<String> waitingFor = new HashSet<>();
    for (RobotDispatcher d : dispatchers) {
      String key = change.ledgerKey(d.name());
      if (!d.routes(alert) || ledger.contains(key) || inFlight.containsKey(key)) {
        continue;
      }
      inFlight.put(key, tp);
      d.offer(change);
      waitingFor.add(d.name());
    }
    if (!waitingFor.isEmpty()) {
      outstanding.computeIfAbsent(tp, p -> new TreeMap<>()).put(record.offset(), waitingFor);
    }
  }

  private void settle(AlertChange change, String robot, String key) {
    ledger.add(key);
    inFlight.remove(key);
    AlertChange.Source s = change.source();
    TopicPartition tp = new TopicPartition(s.topic(), s.partition());
    TreeMap<Long, Set<String>> waiting = outstanding.get(tp);
    if (waiting == null) {
      return;
    }
    Set<String> robots = waiting.get(s.offset());
    if (robots != null) {
      robots.remove(robot);
      if (robots.isEmpty()) {
        waiting.remove(s.offset());
      }
    }
  }

  /** Per partition, the first offset some robot still waits for (or all consumed). */
  private Map<TopicPartition, OffsetAndMetadata> committable() {
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    consumedUpTo.forEach(
        (tp, next) -> {
          TreeMap<Long, Set<String>> waiting = outstanding.get(tp);
          long upTo = waiting == null || waiting.isEmpty() ? next : waiting.firstKey();
          Long done = committed.get(tp);
          if (done == null || upTo > done) {
            offsets.put(tp, new OffsetAndMetadata(upTo));
          }
        });
    return offsets;
  }

  private ProducerRecord<String, byte[]> ledgerEntry(String key, String value) {
    return new ProducerRecord<>(
        BridgeTopics.DELIVERED, key, value.getBytes(StandardCharsets.UTF_8));
  }

  private ProducerRecord<String, byte[]> undelivered(Undelivered u, String robot) {
    AlertChange.Source s = u.change().source();
    DeadLetter letter =
        DeadLetter.newBuilder()
            .setTime(Instant.ofEpochMilli(s.timestamp()))
            .setTopic(s.topic())
            .setPartition(s.partition())
            .setOffset(s.offset())
            .setProcessor(processor + ":" + robot)
            .setReason(u.reason())
            .setKey(s.key() == null ? null : ByteBuffer.wrap(s.key()))
            .setValue(ByteBuffer.wrap(s.value()))
            .build();
    return new ProducerRecord<>(
        BridgeTopics.UNDELIVERED,
        u.change().alert().getAlertId(),
        deadLetters.serialize(BridgeTopics.UNDELIVERED, letter));
  }

  private ProducerRecord<String, byte[]> deadLetter(
      ConsumerRecord<String, byte[]> record, SerializationException e) {
    DeadLetter letter =
        DeadLetter.newBuilder()
            .setTime(Instant.ofEpochMilli(record.timestamp()))
            .setTopic(record.topic())
            .setPartition(record.partition())
            .setOffset(record.offset())
            .setProcessor(processor)
            .setReason("cannot decode an Alert")
            .setException(e.getClass().getName() + ": " + e.getMessage())
            .setKey(record.key() == null ? null : ByteBuffer.wrap(bytes(record.key())))
            .setValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
            .build();
    return new ProducerRecord<>(
        deadLetterTopic, record.key(), deadLetters.serialize(deadLetterTopic, letter));
  }

  private static byte[] bytes(String key) {
    return key == null ? null : key.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Stops {@link #run()} (from any thread), or, for a caller's own loop of {@link
   * #pollOnce(Duration)}, closes the clients on the calling thread. Pending changes not yet
   * accepted by a robot are left uncommitted: the next bridge of the group reads them again.
   */
  @Override
  public void close() {
    stop.set(true);
    if (runThread != null) {
      consumer.wakeup();
    } else {
      closeClients();
    }
  }

  private synchronized void closeClients() {
    if (closed) {
      return;
    }
    closed = true;
    if (jmx != null) {
      publishFinalCounters();
      jmx.close();
    }
    consumer.close();
    producer.close();
    ledger.close();
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      Set<TopicPartition> revoked = new HashSet<>(partitions);
      for (RobotDispatcher d : dispatchers) {
        d.forget(
            c ->
                c.source() != null
                    && revoked.contains(
                        new TopicPartition(c.source().topic(), c.source().partition())));
      }
      inFlight.values().removeIf(revoked::contains);
      revoked.forEach(
          tp -> {
            outstanding.remove(tp);
            consumedUpTo.remove(tp);
            committed.remove(tp);
          });
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      // another bridge may have delivered on these partitions until now
      ledger.catchUp(LEDGER_TIMEOUT);
    }
  }
}
