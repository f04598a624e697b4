package io.fabricpulse.sinks.influx;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.BridgeCounters;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroOneOfDeserializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes fabric.rates and fabric.alerts (and the GPU samples, Xid events and NCCL transport
 * verdicts) and writes them to an InfluxDB-compatible server (InfluxDB 2.x/3.x, QuestDB,
 * VictoriaMetrics) with the names of {@link InfluxSchema}.
 *
 * <p>Delivery is at least once, never lossy: offsets are committed only after the points of the
 * records before them have been acknowledged by the server, and never past a record whose 10 s
 * aggregate is still open. When a write fails the sink pauses every assigned partition (so no more
 * records pile up in memory), retries the same batch with exponential backoff (each attempt bounded
 * by the write timeout, retries unbounded) and resumes consumption once the write succeeds. Records
 * that cannot be decoded are logged with their coordinates, counted and skipped; points the server
 * refuses as invalid (HTTP 400/422) are logged as errors and counted, since retrying them cannot
 * succeed.
 *
 * <p>Threading: the sink is driven by one thread, either {@link #run()} (loops until {@link
 * #close()} is called from any thread) or the caller's own loop of {@link #pollOnce(Duration)}
 * followed by {@link #close()} on the same thread. {@link #metrics()} may be read from anywhere.
 */
public final class InfluxSink implements Runnable, AutoCloseable {

  public static final String DEFAULT_GROUP_ID = "fabricpulse-sink-influx";

  private static final Logger log = LoggerFactory.getLogger(InfluxSink.class);
  private static final Duration RUN_POLL_TIMEOUT = Duration.ofMillis(200);
  private static final int MAX_BACKOFF_SHIFT = 30;

  /**
   * A series silent this many idle-close periods forgets its last closed 10 s bucket (10 min with
   * the default 30 s): long enough for a stalled producer task, bounded for series that are gone.
   */
  static final int CLOSED_RETENTION_FACTOR = 20;

  /** Commit metadata key: where to re-read from to rebuild buckets straddling the commit. */
  static final String REBUILD_FROM = "rebuild-from=";

  private final InfluxSinkConfig config;
  private final Consumer<String, byte[]> consumer;
  private final PointWriter writer;

  /** 0.2 NodeRates, or 0.1 CounterRates from a rate stage not yet upgraded. */
  private final AvroOneOfDeserializer ratesDecoder =
      new AvroOneOfDeserializer(List.of(NodeRates.class, CounterRates.class));

  private final AvroDeserializer<Alert> alertsDecoder = new AvroDeserializer<>(Alert.class);
  private final AvroDeserializer<GpuEcc> gpuDecoder = new AvroDeserializer<>(GpuEcc.class);
  private final AvroDeserializer<GpuXid> xidDecoder = new AvroDeserializer<>(GpuXid.class);
  private final AvroDeserializer<NcclTransport> transportDecoder =
      new AvroDeserializer<>(NcclTransport.class);
  private final AvroDeserializer<FabricLink> topologyDecoder =
      new AvroDeserializer<>(FabricLink.class);
  private final AvroDeserializer<BridgeCounters> bridgeDecoder =
      new AvroDeserializer<>(BridgeCounters.class);
  private final TenSecondAggregator aggregator;
  private final SinkMetrics metrics = new SinkMetrics();

  private final List<SinkPoint> pending = new ArrayList<>();
  private final Map<TopicPartition, Long> consumedUpTo = new HashMap<>();
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  private final Map<TopicPartition, Long> commitCeiling = new HashMap<>();
  private final Map<TopicPartition, Long> committedRebuildFrom = new HashMap<>();
  private final Map<TopicPartition, Long> replayUntil = new HashMap<>();
  private final Set<TopicPartition> restored = new HashSet<>();
  private final LongSupplier ticker;
  private long pausedNanos;
  private long pauseStartNanos;
  private long oldestUnflushedNanos = -1;
  private volatile boolean backingOff; // read by the status page's check
  private int failedAttempts;
  private long nextAttemptNanos;
  private boolean healthWritten;
  private GroupLag groupLag;
  private long nextHealthNanos;

  private final AtomicBoolean stopRequested = new AtomicBoolean();
  private volatile PointWriter.TokenRequiredException tokenRequired;
  private final CountDownLatch runFinished = new CountDownLatch(1);
  private volatile Thread runThread;
  private boolean shutDown;

  /**
   * @param consumer a consumer with auto-commit off, String keys and byte[] values (the sink
   *     decodes them with {@link AvroDeserializer} per topic, so one bad record cannot stall poll)
   * @param serdeConfig Confluent-style serde settings, at least {@code schema.registry.url}
   * @param writer where the points go; the sink closes it
   */
  public InfluxSink(
      InfluxSinkConfig config,
      Consumer<String, byte[]> consumer,
      Map<String, ?> serdeConfig,
      PointWriter writer) {
    this(config, consumer, serdeConfig, writer, System::nanoTime);
  }

  /**
   * @param ticker monotonic nanoseconds for the 10 s aggregates' idle close (tests pass a fake)
   */
  InfluxSink(
      InfluxSinkConfig config,
      Consumer<String, byte[]> consumer,
      Map<String, ?> serdeConfig,
      PointWriter writer,
      LongSupplier ticker) {
    this.config = config;
    this.ticker = ticker;
    this.consumer = consumer;
    this.writer = writer;
    this.ratesDecoder.configure(serdeConfig, false);
    this.alertsDecoder.configure(serdeConfig, false);
    this.gpuDecoder.configure(serdeConfig, false);
    this.xidDecoder.configure(serdeConfig, false);
    this.transportDecoder.configure(serdeConfig, false);
    this.bridgeDecoder.configure(serdeConfig, false);
    this.topologyDecoder.configure(serdeConfig, false);
    // Idle time counts only while the sink consumes: during a write outage every partition is
    // paused, and closing every series' bucket for that would only cause rewrites afterwards.
    this.aggregator =
        new TenSecondAggregator(
            config.aggregateIdleClose(),
            config.aggregateIdleClose().multipliedBy(CLOSED_RETENTION_FACTOR),
            this::consumingNanos);
  }

  /**
   * A sink with a {@link KafkaConsumer} built from {@code consumerConfig} (at least {@code
   * bootstrap.servers} and {@code schema.registry.url}; group id defaults to {@value
   * #DEFAULT_GROUP_ID}, offset reset to earliest, auto-commit is forced off) and an {@link
   * InfluxPointWriter}.
   */
  public static InfluxSink create(InfluxSinkConfig config, Map<String, Object> consumerConfig) {
    Map<String, Object> props = new HashMap<>(consumerConfig);
    props.putIfAbsent(ConsumerConfig.GROUP_ID_CONFIG, DEFAULT_GROUP_ID);
    props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    Map<String, Object> kafkaOnly = new HashMap<>(props);
    kafkaOnly
        .keySet()
        .removeIf(key -> key.startsWith("schema.registry.") || key.contains(".avro."));
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(kafkaOnly);
    return new InfluxSink(config, consumer, props, new InfluxPointWriter(config));
  }

  /**
   * Subscribes to the rates, alerts, GPU, Xid and NCCL transport topics, the topology ({@value
   * FabricTopics#TOPOLOGY}; its tombstones are skipped) and the bridges' counters ({@value
   * FabricTopics#BRIDGE_COUNTERS}) with the sink's rebalance handling.
   */
  public void subscribe() {
    consumer.subscribe(topics(), new Rebalance());
  }

  /** The topics the sink reads. */
  public List<String> topics() {
    return List.of(
        config.ratesTopic(),
        config.alertsTopic(),
        config.gpuTopic(),
        config.xidTopic(),
        config.transportTopic(),
        FabricTopics.TOPOLOGY,
        FabricTopics.BRIDGE_COUNTERS);
  }

  /**
   * One step: poll up to {@code timeout}, convert, and write a batch when it is full or has waited
   * the flush interval; while backing off after a failed write, wait (partitions paused) and retry
   * instead. Returns the number of records consumed by this step.
   */
  public int pollOnce(Duration timeout) {
    if (backingOff) {
      return retryStep(timeout);
    }
    restore(consumer.assignment());
    int consumed = consume(consumer.poll(timeout));
    List<SinkPoint> idle = aggregator.closeIdle();
    if (!idle.isEmpty() && oldestUnflushedNanos < 0) {
      oldestUnflushedNanos = System.nanoTime(); // written within the flush interval like the rest
    }
    pending.addAll(idle);
    metrics.lateSamples.set(aggregator.lateSamples());
    metrics.rewrittenBuckets.set(aggregator.rewrittenBuckets());
    if (flushDue()) {
      flush();
    }
    if (!healthWritten || System.nanoTime() - nextHealthNanos >= 0) {
      writeHealth();
    }
    return consumed;
  }

  /**
   * Writes the pipeline's health points ({@link PipelineHealth}) in a request of their own. They
   * are cumulative counters and gauges, so a failed write is counted and logged, not retried: the
   * next one carries the same information, newer.
   */
  private void writeHealth() {
    healthWritten = true;
    nextHealthNanos = System.nanoTime() + config.healthInterval().toNanos();
    try {
      long now = System.currentTimeMillis();
      List<SinkPoint> points =
          new ArrayList<>(PipelineHealth.points(consumer, config.healthTopics(), metrics, now));
      if (groupLag != null) {
        points.addAll(groupLag.points(now));
      }
      writer.write(points);
      metrics.healthPointsWritten.addAndGet(points.size());
    } catch (PointWriter.TokenRequiredException e) {
      stopFor(e);
    } catch (RuntimeException e) {
      metrics.healthWriteFailures.incrementAndGet();
      log.warn("health points not written to {}: {}", config.url(), e.toString());
    }
  }

  /**
   * Also writes the lag of these consumer groups with every health write; the sink closes it. Call
   * before {@link #run()}.
   */
  public InfluxSink withGroupLag(GroupLag lag) {
    this.groupLag = lag;
    return this;
  }

  /**
   * The store requires a token and none is configured: the sink stops, {@link #run} throws {@code
   * e}.
   */
  private void stopFor(PointWriter.TokenRequiredException e) {
    tokenRequired = e;
    stopRequested.set(true);
  }

  /**
   * Polls until {@link #close()} is called, then writes what is left and closes.
   *
   * @throws PointWriter.TokenRequiredException when the store requires a token and none is set
   */
  @Override
  public void run() {
    runThread = Thread.currentThread();
    try {
      if (consumer.subscription().isEmpty() && consumer.assignment().isEmpty()) {
        subscribe();
      }
      while (!stopRequested.get()) {
        pollOnce(RUN_POLL_TIMEOUT);
      }
      if (tokenRequired != null) {
        throw tokenRequired; // after shutdown (finally): nothing written, nothing committed
      }
    } catch (WakeupException e) {
      if (!stopRequested.get()) {
        throw e;
      }
    } finally {
      try {
        shutdown();
      } finally {
        runFinished.countDown();
      }
    }
  }

  /**
   * Stops the sink: closes every open 10 s bucket, writes everything pending (retrying until the
   * close timeout), commits what was written and closes consumer and writer. The offsets of records
   * in still-open buckets are not committed, so after a restart those buckets are rebuilt from
   * Kafka and their complete aggregate overwrites the partial one written here (same series and
   * time).
   */
  @Override
  public void close() {
    stopRequested.set(true);
    Thread thread = runThread;
    if (thread != null && thread != Thread.currentThread()) {
      consumer.wakeup();
      try {
        long waitMs =
            config.closeTimeout().toMillis() + 2 * config.writeTimeout().toMillis() + 5_000;
        if (!runFinished.await(waitMs, TimeUnit.MILLISECONDS)) {
          log.error("influx sink did not stop within {} ms", waitMs);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      shutdown();
    }
  }

  public SinkMetrics metrics() {
    return metrics;
  }

  /** True while a write is failing and consumption is paused. */
  public boolean isBackingOff() {
    return backingOff;
  }

  /** Points converted but not yet acknowledged by the server. */
  public int pendingPoints() {
    return pending.size();
  }

  /** 10 s buckets still open (their records are not committed yet). */
  public int openBuckets() {
    return aggregator.openBuckets();
  }

  private int consume(ConsumerRecords<String, byte[]> records) {
    for (ConsumerRecord<String, byte[]> record : records) {
      handle(record);
    }
    if (!records.isEmpty() && oldestUnflushedNanos < 0) {
      oldestUnflushedNanos = System.nanoTime();
    }
    return records.count();
  }

  private void handle(ConsumerRecord<String, byte[]> record) {
    metrics.recordsConsumed.incrementAndGet();
    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
    consumedUpTo.put(partition, record.offset() + 1);
    boolean replay = record.offset() < replayUntil.getOrDefault(partition, Long.MIN_VALUE);
    if (record.value() == null) {
      return;
    }
    try {
      if (record.topic().equals(config.ratesTopic())) {
        for (CounterRates port :
            NodeRecords.portRates(ratesDecoder.deserialize(record.topic(), record.value()))) {
          addRates(port, partition, record, replay);
        }
      } else if (replay) {
        return; // already written before the restart
      } else if (record.topic().equals(config.alertsTopic())) {
        pending.add(
            InfluxSchema.alertPoint(alertsDecoder.deserialize(record.topic(), record.value())));
      } else if (record.topic().equals(config.gpuTopic())) {
        pending.add(InfluxSchema.gpuPoint(gpuDecoder.deserialize(record.topic(), record.value())));
      } else if (record.topic().equals(config.xidTopic())) {
        pending.add(InfluxSchema.xidPoint(xidDecoder.deserialize(record.topic(), record.value())));
      } else if (record.topic().equals(config.transportTopic())) {
        pending.add(
            InfluxSchema.transportPoint(
                transportDecoder.deserialize(record.topic(), record.value())));
      } else if (record.topic().equals(FabricTopics.TOPOLOGY)) {
        pending.add(
            InfluxSchema.linkPoint(topologyDecoder.deserialize(record.topic(), record.value())));
      } else if (record.topic().equals(FabricTopics.BRIDGE_COUNTERS)) {
        pending.add(
            InfluxSchema.bridgePoint(bridgeDecoder.deserialize(record.topic(), record.value())));
      } else {
        log.warn(
            "ignoring record from unexpected topic {}-{}@{}",
            record.topic(),
            record.partition(),
            record.offset());
      }
    } catch (RuntimeException e) {
      metrics.malformedRecords.incrementAndGet();
      log.warn(
          "skipping record {}-{}@{} key {}: {}",
          record.topic(),
          record.partition(),
          record.offset(),
          record.key(),
          e.toString());
    }
  }

  private void addRates(
      CounterRates rates, TopicPartition partition, ConsumerRecord<?, ?> record, boolean replay) {
    Optional<SinkPoint> point = InfluxSchema.ratesPoint(rates);
    if (point.isEmpty()) {
      return;
    }
    SinkPoint all = point.get();
    Map<String, Object> full = new LinkedHashMap<>();
    Map<String, Object> aggregated = new LinkedHashMap<>();
    all.fields()
        .forEach(
            (name, value) -> {
              if (config.resolution().resolve(all.measurement(), name) == Resolution.FULL) {
                full.put(name, value);
              } else {
                aggregated.put(name, value);
              }
            });
    if (!full.isEmpty() && !replay) {
      pending.add(new SinkPoint(all.measurement(), all.tags(), full, all.timeMs()));
    }
    if (!aggregated.isEmpty()) {
      pending.addAll(
          aggregator.add(
              all.measurement(),
              all.tags(),
              aggregated,
              all.timeMs(),
              partition,
              record.offset(),
              replay));
    }
  }

  private boolean flushDue() {
    if (pending.size() >= config.batchSize()) {
      return true;
    }
    return oldestUnflushedNanos >= 0
        && System.nanoTime() - oldestUnflushedNanos >= config.flushInterval().toNanos();
  }

  private int retryStep(Duration timeout) {
    long waitNanos = nextAttemptNanos - System.nanoTime();
    int consumed = 0;
    if (waitNanos > 0) {
      // Every assigned partition is paused: this poll fetches nothing and keeps the consumer in
      // its group (max.poll.interval.ms) while we wait. Anything it does return is kept safely,
      // since nothing is committed before it is written.
      Duration wait = Duration.ofNanos(Math.min(waitNanos, timeout.toNanos()));
      consumed = consume(consumer.poll(wait));
    }
    if (System.nanoTime() >= nextAttemptNanos) {
      flush();
    }
    return consumed;
  }

  /** Writes every pending point in batches, then commits; on failure schedules a retry. */
  private boolean flush() {
    try {
      writePending();
    } catch (PointWriter.TokenRequiredException e) {
      stopFor(e);
      return false;
    } catch (RuntimeException e) {
      failedAttempts++;
      metrics.writeFailures.incrementAndGet();
      long backoffNanos =
          Math.min(
              config.retryMaxBackoff().toNanos(),
              config.retryInitialBackoff().toNanos()
                  << Math.min(failedAttempts - 1, MAX_BACKOFF_SHIFT));
      if (backoffNanos < 0) {
        backoffNanos = config.retryMaxBackoff().toNanos();
      }
      nextAttemptNanos = System.nanoTime() + backoffNanos;
      if (!backingOff) {
        backingOff = true;
        pauseStartNanos = ticker.getAsLong();
        consumer.pause(consumer.assignment());
      }
      // The URL and the error only: the token is in a header the client never puts in messages.
      log.warn(
          "write of {} points to {} failed (attempt {}), consumption paused, retry in {} ms: {}",
          pending.size(),
          config.url(),
          failedAttempts,
          TimeUnit.NANOSECONDS.toMillis(backoffNanos),
          e.toString());
      return false;
    }
    if (backingOff) {
      log.info(
          "write to {} succeeded after {} failed attempts, resuming", config.url(), failedAttempts);
      backingOff = false;
      pausedNanos += ticker.getAsLong() - pauseStartNanos;
      consumer.resume(consumer.paused());
    }
    failedAttempts = 0;
    oldestUnflushedNanos = -1;
    commitWritten();
    return true;
  }

  private void writePending() {
    while (!pending.isEmpty()) {
      List<SinkPoint> batch = pending.subList(0, Math.min(config.batchSize(), pending.size()));
      int size = batch.size();
      try {
        writer.write(List.copyOf(batch));
        metrics.pointsWritten.addAndGet(size);
        metrics.writeRequests.incrementAndGet();
      } catch (PointWriter.PointsRejectedException e) {
        metrics.pointsRejected.addAndGet(size);
        log.error("dropping {} points refused by {}: {}", size, config.url(), e.getMessage());
      }
      batch.clear();
    }
  }

  /**
   * Commits, per partition, the lowest offset not yet durable: nothing unwritten is skipped. The
   * commit's metadata says where to re-read from so that 10 s buckets straddling the commit are
   * rebuilt completely after a restart ({@link TenSecondAggregator#rebuildFrom}); when the offset
   * cannot advance but that point moved back (a closed bucket was re-opened), the same offset is
   * committed again with the new metadata.
   */
  private void commitWritten() {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    consumedUpTo.forEach(
        (partition, next) -> {
          long safe = next;
          OptionalLong held = aggregator.minHeldOffset(partition);
          if (held.isPresent()) {
            safe = Math.min(safe, held.getAsLong());
          }
          Long ceiling = commitCeiling.get(partition);
          if (ceiling != null) {
            safe = Math.min(safe, ceiling);
          }
          Long previous = committed.get(partition);
          if (previous == null || previous < safe) {
            offsets.put(partition, commitAt(safe, aggregator.rebuildFrom(partition, safe)));
          } else {
            long before = committedRebuildFrom.getOrDefault(partition, previous);
            long rebuild = Math.min(before, aggregator.rebuildFrom(partition, previous));
            if (rebuild < before) {
              offsets.put(partition, commitAt(previous, rebuild));
            }
          }
        });
    if (offsets.isEmpty()) {
      return;
    }
    try {
      try {
        consumer.commitSync(offsets);
      } catch (WakeupException e) {
        // close() wakes the consumer; when that lands here instead of in poll() the wake-up is
        // now consumed, and the commit of points already written must still happen.
        consumer.commitSync(offsets);
      }
      offsets.forEach(
          (partition, offset) -> {
            committed.put(partition, offset.offset());
            committedRebuildFrom.put(partition, rebuildFrom(offset));
            aggregator.committed(partition, offset.offset());
          });
      metrics.offsetCommits.incrementAndGet();
    } catch (CommitFailedException | RebalanceInProgressException e) {
      // The partitions moved to another member, which re-reads from the last commit: duplicates at
      // worst, never a gap.
      log.warn(
          "offset commit failed, records will be re-read by their new owner: {}", e.toString());
    }
  }

  private static OffsetAndMetadata commitAt(long offset, long rebuildFrom) {
    return new OffsetAndMetadata(offset, rebuildFrom < offset ? REBUILD_FROM + rebuildFrom : "");
  }

  /** The rebuild point of a commit: its metadata, or the offset itself. */
  static long rebuildFrom(OffsetAndMetadata commit) {
    String meta = commit.metadata();
    if (meta != null && meta.startsWith(REBUILD_FROM)) {
      try {
        return Math.min(commit.offset(), Long.parseLong(meta.substring(REBUILD_FROM.length())));
      } catch (NumberFormatException e) {
        log.warn("ignoring unreadable commit metadata '{}'", meta);
      }
    }
    return commit.offset();
  }

  /**
   * For partitions new to this sink: reads their commit and, when it carries a rebuild point, seeks
   * back to it; records below the commit are then only folded into 10 s buckets (replay), and only
   * buckets that also get records at or past the commit are written.
   */
  private void restore(Collection<TopicPartition> partitions) {
    Set<TopicPartition> fresh = new HashSet<>(partitions);
    fresh.removeAll(restored);
    if (fresh.isEmpty()) {
      return;
    }
    restored.addAll(fresh);
    Map<TopicPartition, OffsetAndMetadata> commits = consumer.committed(fresh);
    commits.forEach(
        (partition, commit) -> {
          if (commit == null) {
            return;
          }
          committed.put(partition, commit.offset());
          long from = rebuildFrom(commit);
          committedRebuildFrom.put(partition, from);
          if (from < commit.offset()) {
            log.info(
                "{}: re-reading from {} to rebuild 10 s buckets straddling the commit at {}",
                partition,
                from,
                commit.offset());
            consumer.seek(partition, from);
            replayUntil.put(partition, commit.offset());
          }
        });
  }

  /** Nanoseconds of the ticker spent consuming, i.e. not paused in a write outage. */
  private long consumingNanos() {
    long now = ticker.getAsLong();
    return now - pausedNanos - (backingOff ? now - pauseStartNanos : 0);
  }

  private void shutdown() {
    if (shutDown) {
      return;
    }
    shutDown = true;
    try {
      for (TopicPartition partition : consumedUpTo.keySet()) {
        aggregator.minHeldOffset(partition).ifPresent(held -> commitCeiling.put(partition, held));
      }
      pending.addAll(aggregator.closeAll());
      long deadline = System.nanoTime() + config.closeTimeout().toNanos();
      while (!flush()) {
        if (tokenRequired != null) {
          break; // nothing can be written; the offsets stay where they were
        }
        long wait = nextAttemptNanos - System.nanoTime();
        if (System.nanoTime() + Math.max(wait, 0) > deadline) {
          log.error(
              "closing with {} points not written to {}; their offsets are not committed and they"
                  + " will be re-read on restart",
              pending.size(),
              config.url());
          break;
        }
        LockSupport.parkNanos(wait);
      }
      if (pending.isEmpty()) {
        writeHealth(); // the final counters
      }
    } finally {
      log.info("influx sink stopped: {}", metrics);
      try {
        consumer.close();
      } finally {
        try {
          writer.close();
        } finally {
          if (groupLag != null) {
            groupLag.close();
          }
        }
      }
    }
  }

  private void forget(Collection<TopicPartition> partitions) {
    aggregator.forget(partitions);
    partitions.forEach(
        partition -> {
          consumedUpTo.remove(partition);
          committed.remove(partition);
          commitCeiling.remove(partition);
          committedRebuildFrom.remove(partition);
          replayUntil.remove(partition);
          restored.remove(partition);
        });
  }

  /** Keeps the no-loss rules across rebalances. */
  private final class Rebalance implements ConsumerRebalanceListener {

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (!backingOff) {
        flush();
      }
      // Whatever is not committed now is re-read by the new owner, open buckets included.
      forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      forget(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      restore(partitions);
      if (backingOff) {
        consumer.pause(partitions);
      }
    }
  }
}
