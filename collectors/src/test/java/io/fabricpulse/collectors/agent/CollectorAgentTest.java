package io.fabricpulse.collectors.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortSample;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.ethtool.EthtoolCollector;
import io.fabricpulse.collectors.ethtool.EthtoolSource;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCollector;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiSource;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent over the real samples, with the OS replaced by the captures and Kafka by MockProducer.
 */
class CollectorAgentTest {
  static final NodeIdentity NODE = new NodeIdentity("lab", "gpu017", "boot-7");
  static final Instant T0 = Instant.parse("2025-01-02T03:04:05Z");

  @TempDir Path tmp;

  /** ethtool -S of every netdev answers with the real ethq capture. */
  static final class CapturedEthtool implements EthtoolSource {
    @Override
    public String stats(String netdev) {
      return Samples.read("ethtool/ethq-mlx5_core-cx4-kernel4.15.txt");
    }

    @Override
    public String driver(String netdev) {
      return "mlx5_core";
    }
  }

  /** A driver whose --query-gpu fails, so the collector falls back to the real -q capture. */
  static final class QueryFailsNvidiaSmi implements NvidiaSmiSource {
    final AtomicInteger helpCalls = new AtomicInteger();

    @Override
    public String helpQueryGpu() {
      helpCalls.incrementAndGet();
      return Samples.resource("nvsmi/help-query-gpu-r470-synthetic.txt");
    }

    @Override
    public String queryGpu(List<String> fields) throws IOException {
      throw new IOException("nvidia-smi --query-gpu: exit 2: Field is not a valid field to query");
    }

    @Override
    public String queryAll() {
      return Samples.read("nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08.txt");
    }
  }

  /** A source that cannot be read at all, every cycle. */
  static final class BrokenTask extends SourceTask {
    BrokenTask() {
      super(SourceKind.SMINFO, NODE, Duration.ofMillis(100));
    }

    @Override
    public ParseResult<SpecificRecord> collect(Instant now) throws IOException {
      throw new IOException("sminfo: cannot open /dev/infiniband/umad0");
    }
  }

  private List<SourceTask> tasks(Duration interval) {
    Path root = Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp.resolve("sys"));
    DirectorySysfsTree tree = new DirectorySysfsTree(root);
    SysfsPortCounterReader reader = new SysfsPortCounterReader(tree);
    List<String> kmsgLines =
        Samples.read("kmsg/akash-244-dmesg-xid43-31-94-contained.txt").lines().toList();
    AtomicInteger kmsgPolls = new AtomicInteger();
    List<SourceTask> tasks = new ArrayList<>();
    tasks.add(new SysfsTask(NODE, interval, reader));
    tasks.add(
        new EthtoolTask(
            NODE,
            interval,
            new EthtoolCollector(new CapturedEthtool()),
            new RoceNetdevs(tree, reader, List.of("ens1f0"), Duration.ofMinutes(1))));
    tasks.add(new GpuTask(NODE, interval, new NvidiaSmiCollector(new QueryFailsNvidiaSmi())));
    tasks.add(
        new KmsgTask(
            NODE,
            interval,
            () -> kmsgPolls.getAndIncrement() == 0 ? kmsgLines : List.of(),
            new KernelLogXidParser(ZoneOffset.UTC, null),
            "dmesg"));
    tasks.add(new BrokenTask());
    return tasks;
  }

  private static final class NoOutput implements RecordOutput {
    @Override
    public void publish(NodeIdentity identity, List<SpecificRecord> records) {}

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  @Test
  void collectOnceReturnsOneCycleOfEverySourceAndSurvivesABrokenOne() {
    try (CollectorAgent agent =
        new CollectorAgent(
            NODE, tasks(Duration.ofSeconds(1)), new NoOutput(), Clock.fixed(T0, ZoneOffset.UTC))) {
      List<SpecificRecord> records = agent.collectOnce();

      Map<String, Long> byType =
          records.stream()
              .collect(Collectors.groupingBy(r -> r.getSchema().getName(), Collectors.counting()));
      // the port counters and the PFC counters each as one node record of the cycle
      assertEquals(Map.of("NodeCounters", 2L, "GpuEcc", 8L, "GpuXid", 4L), byType);

      NodeCounters ports = (NodeCounters) records.get(0);
      assertEquals(RateSource.PORT, ports.getSource());
      assertEquals(T0, ports.getTime());
      assertEquals("boot-7", ports.getBootId());
      assertEquals(0L, ports.getSeq());
      assertEquals(
          List.of("mlx5_0"), ports.getPorts().stream().map(PortSample::getDevice).toList());
      NodeCounters pfc = (NodeCounters) records.get(1);
      assertEquals(RateSource.PFC, pfc.getSource());
      assertEquals(List.of("ens1f0"), pfc.getPorts().stream().map(PortSample::getNetdev).toList());
      assertEquals(0L, pfc.getSeq());
      List<GpuEcc> gpus =
          records.stream().filter(GpuEcc.class::isInstance).map(GpuEcc.class::cast).toList();
      // each source numbers its own records: the GPUs from 0 to 7
      assertEquals(
          List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L), gpus.stream().map(GpuEcc::getSeq).toList());
      assertEquals("GPU-47daa2ad-a218-6286-252b-af45f0dfaf00", gpus.get(1).getUuid());
      GpuXid xid =
          records.stream()
              .filter(GpuXid.class::isInstance)
              .map(GpuXid.class::cast)
              .findFirst()
              .orElseThrow();
      assertEquals(43, xid.getXid());

      assertEquals(1, agent.failures(SourceKind.SMINFO));
      assertEquals(1, agent.malformed(SourceKind.SMINFO));
      assertEquals(0, agent.malformed(SourceKind.SYSFS));
    }
  }

  @Test
  void daemonPublishesEveryRecordTypeToItsTopicAndFlushesOnClose() {
    AvroSerializer<SpecificRecord> values = new AvroSerializer<>();
    values.configure(Map.of("schema.registry.url", "mock://agent-daemon"), false);
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(true, null, new StringSerializer(), values);
    KafkaRecordOutput output = new KafkaRecordOutput(producer, FabricTopics.defaults(), 1000);
    SteppedClock clock = new SteppedClock(T0);
    HandScheduler scheduler = new HandScheduler();
    CollectorAgent agent =
        new CollectorAgent(NODE, tasks(Duration.ofMillis(100)), output, clock, scheduler);

    agent.start();
    assertEquals(List.of(Duration.ofMillis(100)), List.copyOf(scheduler.intervals()));
    // three intervals: at T0, T0 + 100 ms and T0 + 200 ms every source runs one cycle
    for (int cycle = 0; cycle < 3; cycle++) {
      scheduler.runOneInterval();
      clock.advance(Duration.ofMillis(100));
    }
    agent.close();

    List<ProducerRecord<String, SpecificRecord>> sent = producer.history();
    Map<String, Set<String>> typesByTopic =
        sent.stream()
            .collect(
                Collectors.groupingBy(
                    ProducerRecord::topic,
                    Collectors.mapping(r -> r.value().getSchema().getName(), Collectors.toSet())));
    assertEquals(
        Map.of(
            FabricTopics.PORT_COUNTERS, Set.of("NodeCounters"),
            FabricTopics.PFC, Set.of("NodeCounters"),
            FabricTopics.GPU, Set.of("GpuEcc"),
            FabricTopics.XID, Set.of("GpuXid")),
        typesByTopic);
    assertTrue(sent.stream().allMatch(r -> r.key().equals("lab/gpu017")));
    // event time: the record timestamp is the sample time
    ProducerRecord<String, SpecificRecord> first =
        sent.stream()
            .filter(r -> r.topic().equals(FabricTopics.PORT_COUNTERS))
            .findFirst()
            .orElseThrow();
    assertEquals(((NodeCounters) first.value()).getTime().toEpochMilli(), first.timestamp());
    // sysfs cycles numbered 0,1,2,... in publication order
    List<Long> seqs =
        sent.stream()
            .filter(r -> r.topic().equals(FabricTopics.PORT_COUNTERS))
            .map(r -> ((NodeCounters) r.value()).getSeq())
            .toList();
    assertEquals(List.of(0L, 1L, 2L), seqs);
    assertEquals(
        List.of(T0, T0.plusMillis(100), T0.plusMillis(200)),
        sent.stream()
            .filter(r -> r.topic().equals(FabricTopics.PORT_COUNTERS))
            .map(r -> ((NodeCounters) r.value()).getTime())
            .toList());
    // the Xids were in the first kernel log poll only: published once, not once per cycle
    assertEquals(4, sent.stream().filter(r -> r.topic().equals(FabricTopics.XID)).count());
    assertTrue(producer.closed());
    assertEquals(3, agent.cycles(SourceKind.SYSFS));
    assertEquals(3, agent.cycles(SourceKind.GPU));
    assertEquals(3, agent.failures(SourceKind.SMINFO));
    assertTrue(scheduler.stopped);

    // what went out is Confluent wire format that the registry-compatible deserializer reads
    AvroDeserializer<NodeCounters> reader = new AvroDeserializer<>(NodeCounters.class);
    reader.configure(Map.of("schema.registry.url", "mock://agent-daemon"), false);
    byte[] bytes = values.serialize(FabricTopics.PORT_COUNTERS, first.value());
    assertEquals(first.value(), reader.deserialize(FabricTopics.PORT_COUNTERS, bytes));
  }

  /**
   * A schedule run by the test: every source's cycle runs when the test says an interval passed.
   */
  static final class HandScheduler implements CollectorAgent.Scheduler {
    private final List<Runnable> cycles = new ArrayList<>();
    private final Set<Duration> intervals = new java.util.LinkedHashSet<>();
    boolean stopped;

    @Override
    public void every(Duration interval, Runnable cycle) {
      intervals.add(interval);
      cycles.add(cycle);
    }

    Set<Duration> intervals() {
      return intervals;
    }

    void runOneInterval() {
      if (!stopped) {
        cycles.forEach(Runnable::run);
      }
    }

    @Override
    public boolean stop(Duration wait) {
      stopped = true;
      return true;
    }

    @Override
    public void stopNow() {}
  }

  /** A clock that moves only when the test moves it. */
  static final class SteppedClock extends Clock {
    private Instant now;

    SteppedClock(Instant start) {
      this.now = start;
    }

    void advance(Duration step) {
      now = now.plus(step);
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
      throw new UnsupportedOperationException("the agent reads instants only");
    }
  }
}
