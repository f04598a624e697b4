package io.fabricpulse.streams.deadletters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatedAgents;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.SampleRecords;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.RecordKeys;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chaos item 5 in a TopologyTestDriver: a simulated fleet (4 nodes with a link flap, a pause storm,
 * an SM failover, an uncorrectable ECC error and a GDR fallback; every source through the agent's
 * own tasks) runs through the whole {@link FabricTopology} twice, once clean and once with bad
 * records interleaved on EVERY source topic of the topology (the raw topics, fabric.rates and
 * fabric.alerts.active, which the topology writes and reads back): random bytes, an unknown schema
 * id, truncated Avro and a record of the wrong type, one in {@value #EVERY} records. Every bad
 * record must be in fabric.dlq with its topic, partition, offset and bytes; the good ones must give
 * exactly the clean run's rates, transport verdicts and alerts (no alert lost, none added).
 */
class CorruptInputTest {

  private static final Instant START = Instant.parse("2025-03-01T03:00:00Z");
  private static final Duration WINDOW = Duration.ofMinutes(2);
  private static final int EVERY = 20;

  @TempDir Path stateDir;

  @Test
  void everyBadRecordIsADeadLetterAndTheGoodOnesGiveTheCleanRunsResults() throws Exception {
    Run clean = run("clean", false);
    Run corrupt = run("corrupt", true);

    // the topology's every source topic got bad records of every kind
    assertEquals(clean.sourceTopics, corrupt.badTopics(), "bad records on every source topic");
    for (String topic : corrupt.sourceTopics) {
      Set<String> kinds = new TreeSet<>();
      corrupt.bad.stream().filter(b -> b.topic.equals(topic)).forEach(b -> kinds.add(b.kind));
      assertEquals(BadKind.values().length, kinds.size(), topic + ": " + kinds);
    }
    System.out.printf(
        "corrupt input: %d good records, %d bad (%s), %d dead letters; %d rates, %d alerts%n",
        corrupt.good,
        corrupt.bad.size(),
        corrupt.badTopics(),
        corrupt.deadLetters.size(),
        corrupt.rates.size(),
        corrupt.alerts.size());
    assertTrue(corrupt.bad.size() > 100, "bad records injected: " + corrupt.bad.size());

    // every bad record is one dead letter with its coordinates and bytes as received
    assertEquals(corrupt.bad.size(), corrupt.deadLetters.size(), "one dead letter per bad record");
    Map<String, DeadLetter> byCoordinates = new HashMap<>();
    for (DeadLetter d : corrupt.deadLetters) {
      assertNotNull(d.getTopic(), d.toString());
      assertNotNull(d.getOffset(), d.toString());
      assertEquals(0, d.getPartition(), d.toString());
      assertNotNull(d.getProcessor(), d.toString());
      assertNotNull(d.getException(), d.toString());
      byCoordinates.put(d.getTopic() + "@" + d.getOffset(), d);
    }
    for (Bad b : corrupt.bad) {
      DeadLetter d = byCoordinates.get(b.topic + "@" + b.offset);
      assertNotNull(d, "no dead letter for " + b);
      assertEquals(ByteBuffer.wrap(b.value), d.getValue(), b.toString());
      assertEquals(ByteBuffer.wrap(b.key.getBytes(StandardCharsets.UTF_8)), d.getKey());
    }

    // the good records gave exactly what they give without the bad ones
    assertFalse(clean.alerts.isEmpty());
    assertFalse(clean.rates.isEmpty());
    assertFalse(clean.transports.isEmpty());
    assertEquals(clean.rates, corrupt.rates, "fabric.rates");
    assertEquals(clean.transports, corrupt.transports, "fabric.nccl.transport");
    assertEquals(clean.alerts, corrupt.alerts, "fabric.alerts");
    assertEquals(0, clean.deadLetters.size(), "the clean run has no dead letter");
  }

  /** A bad record as piped: where it went and what it was. */
  private record Bad(String kind, String topic, long offset, String key, byte[] value) {
    @Override
    public String toString() {
      return kind + " on " + topic + "@" + offset;
    }
  }

  private static final class Run {
    final Set<String> sourceTopics = new TreeSet<>();
    final List<Bad> bad = new ArrayList<>();
    final List<DeadLetter> deadLetters = new ArrayList<>();
    final List<String> rates = new ArrayList<>();
    final List<String> transports = new ArrayList<>();
    final List<String> alerts = new ArrayList<>();
    long good;

    Set<String> badTopics() {
      Set<String> topics = new TreeSet<>();
      bad.forEach(b -> topics.add(b.topic));
      return topics;
    }
  }

  /** The bad record kinds, cycled through on each topic. */
  private enum BadKind {
    RANDOM_BYTES,
    UNKNOWN_SCHEMA_ID,
    TRUNCATED_AVRO,
    WRONG_RECORD_TYPE
  }

  private Run run(String name, boolean corrupt) throws Exception {
    FabricSimulator sim = new FabricSimulator(SimulatorConfig.infiniband("demo", 4, 42, START));
    List<String> nodes = sim.nodes();
    sim.linkFlap(nodes.get(0), sim.devices().get(0), START.plusSeconds(10), 2);
    String netdev = sim.netdevs(nodes.get(1)).get(0).netdev();
    sim.pfcPauseStorm(nodes.get(1), netdev, START.plusSeconds(20), Duration.ofSeconds(30));
    sim.smFailover(START.plusSeconds(15));
    sim.gpuEccUncorrectable(nodes.get(2), 1, START.plusSeconds(30));
    sim.ncclGdrFallback("job-gdr-fallback", List.of(nodes.get(3)), START.plusSeconds(5));
    SimulatedAgents agents = new SimulatedAgents(sim);

    Properties props =
        DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.resolve(name).toString());
    // the topology of the streams command, with the query API's stores
    props.put(StreamsSettings.QUERY_STORES, "true");
    String registry = "mock://corrupt-input-" + name;
    FabricTopics topics = FabricTopics.defaults();
    Topology topology =
        FabricTopology.build(
            topics, registry, RuleSet.load(RepoPaths.alertRules()), RateConfig.defaults(), props);

    Run run = new Run();
    run.sourceTopics.addAll(sourceTopics(topology));
    Map<String, TopicSpec> specs = new HashMap<>();
    topics.all().forEach(t -> specs.put(t.name(), t));
    Random random = new Random(7);
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, START)) {
      Map<String, TestInputTopic<String, byte[]>> inputs = new HashMap<>();
      for (String topic : run.sourceTopics) {
        inputs.put(
            topic,
            driver.createInputTopic(topic, new StringSerializer(), new ByteArraySerializer()));
      }
      TestOutputTopic<String, byte[]> ratesOut =
          driver.createOutputTopic(
              topics.rates().name(), new StringDeserializer(), new ByteArrayDeserializer());
      // fabric.alerts.active is written by the topology and read back as the query API's table
      TestOutputTopic<String, byte[]> activeOut =
          driver.createOutputTopic(
              topics.alertsActive().name(), new StringDeserializer(), new ByteArrayDeserializer());
      long activeWritten = 0;
      Map<String, Long> offsets = new HashMap<>();
      Map<String, byte[]> lastGood = new HashMap<>();
      Map<String, Long> goodOnTopic = new HashMap<>();
      List<byte[]> ratesWritten = new ArrayList<>();
      Serializer<SmSweep> smSweeps = AvroSerde.forValues(SmSweep.class, registry).serializer();
      Serializer<GpuEcc> gpuSamples = AvroSerde.forValues(GpuEcc.class, registry).serializer();
      long lastSecond = WINDOW.toSeconds();
      for (long s = 0; s <= lastSecond; s++) {
        Instant now = START.plusSeconds(s);
        List<Map.Entry<String, SpecificRecord>> due = new ArrayList<>();
        for (SimulatedAgents.HostRecords host : agents.collect(now)) {
          host.records().stream()
              .filter(r -> !(r instanceof FabricLinkChange)) // no pipeline input: for people
              .forEach(r -> due.add(Map.entry(RecordKeys.keyOf(r), r)));
        }
        if (s == 1) {
          due.addAll(fabricRecords(now));
        }
        for (Map.Entry<String, SpecificRecord> entry : due) {
          String key = entry.getKey();
          SpecificRecord r = entry.getValue();
          TopicSpec topic = topics.topicOf(r);
          byte[] bytes = serializer(r, registry).serialize(topic.name(), r);
          long time = timeOf(r);
          inputs.get(topic.name()).pipeInput(key, bytes, time);
          offsets.merge(topic.name(), 1L, Long::sum);
          lastGood.put(topic.name(), bytes);
          run.good++;
          // drain fabric.rates as it is written: its offsets count the topology's own records
          ratesOut.readRecordsToList().forEach(o -> ratesWritten.add(o.value()));
          offsets.put(
              topics.rates().name(),
              (long) ratesWritten.size() + badOn(run, topics.rates().name()));
          for (TestRecord<String, byte[]> a : activeOut.readRecordsToList()) {
            activeWritten++;
            if (a.value() != null) {
              lastGood.put(topics.alertsActive().name(), a.value());
            }
          }
          offsets.put(
              topics.alertsActive().name(),
              activeWritten + badOn(run, topics.alertsActive().name()));
          if (!corrupt) {
            continue;
          }
          long n = goodOnTopic.merge(topic.name(), 1L, Long::sum);
          // every kind after a topic's first good record, then one bad record in EVERY
          List<BadKind> kinds =
              n == 1
                  ? List.of(BadKind.values())
                  : n % EVERY == 0
                      ? List.of(BadKind.values()[(int) (n / EVERY) % BadKind.values().length])
                      : List.of();
          // on this topic, and on fabric.rates once it has a rates record
          List<String> targets = new ArrayList<>(List.of(topic.name()));
          if (!ratesWritten.isEmpty()) {
            lastGood.put(topics.rates().name(), ratesWritten.get(ratesWritten.size() - 1));
            targets.add(topics.rates().name());
          }
          if (lastGood.containsKey(topics.alertsActive().name())) {
            targets.add(topics.alertsActive().name());
          }
          for (BadKind kind : kinds) {
            for (String target : targets) {
              byte[] bad =
                  badValue(
                      kind,
                      target,
                      lastGood.get(target),
                      specs.get(target).valueType() == SmSweep.class
                          ? gpuSamples.serialize(target, gpuSample(now))
                          : smSweeps.serialize(target, smSweep(now)),
                      random);
              long offset = offsets.getOrDefault(target, 0L);
              inputs.get(target).pipeInput(key, bad, time);
              offsets.put(target, offset + 1);
              run.bad.add(new Bad(kind.name(), target, offset, key, bad));
            }
          }
        }
      }
      ratesOut.readRecordsToList().forEach(o -> ratesWritten.add(o.value()));
      var rates = AvroSerde.forValues(NodeRates.class, registry).deserializer();
      ratesWritten.forEach(
          b -> run.rates.add(rates.deserialize(topics.rates().name(), b).toString()));
      driver
          .createOutputTopic(
              topics.ncclTransport().name(),
              new StringDeserializer(),
              AvroSerde.forValues(NcclTransport.class, registry).deserializer())
          .readValuesToList()
          .forEach(t -> run.transports.add(t.toString()));
      driver
          .createOutputTopic(
              topics.alerts().name(),
              new StringDeserializer(),
              AvroSerde.forValues(Alert.class, registry).deserializer())
          .readValuesToList()
          .forEach(a -> run.alerts.add(withoutLineage(a)));
      driver
          .createOutputTopic(
              topics.deadLetters().name(),
              new ByteArrayDeserializer(),
              AvroSerde.forValues(DeadLetter.class, registry).deserializer())
          .readRecordsToList()
          .stream()
          .map(TestRecord::value)
          .forEach(run.deadLetters::add);
    }
    assertEquals(0, agents.malformed());
    return run;
  }

  private static long badOn(Run run, String topic) {
    return run.bad.stream().filter(b -> b.topic.equals(topic)).count();
  }

  /** The source topics of {@code topology}, from its description. */
  static Set<String> sourceTopics(Topology topology) {
    Set<String> out = new TreeSet<>();
    Matcher m =
        Pattern.compile("Source: \\S+ \\(topics: \\[([^\\]]*)\\]\\)")
            .matcher(topology.describe().toString());
    while (m.find()) {
      Arrays.stream(m.group(1).split(",")).map(String::trim).forEach(out::add);
    }
    // repartition topics are the application's own, written by its own serdes
    out.removeIf(t -> t.endsWith("-repartition"));
    return out;
  }

  private static byte[] badValue(
      BadKind kind, String topic, byte[] good, byte[] wrongType, Random random) {
    return switch (kind) {
      case RANDOM_BYTES -> {
        byte[] bytes = new byte[1 + random.nextInt(64)];
        random.nextBytes(bytes);
        bytes[0] = (byte) (1 + random.nextInt(100)); // not the wire format's magic byte 0
        yield bytes;
      }
      case UNKNOWN_SCHEMA_ID -> {
        byte[] bytes = good.clone();
        ByteBuffer.wrap(bytes).put(0, (byte) 0).putInt(1, 987_654 + random.nextInt(1000));
        yield bytes;
      }
      case TRUNCATED_AVRO -> Arrays.copyOf(good, 5 + (good.length - 5) / 3);
      case WRONG_RECORD_TYPE -> wrongType;
    };
  }

  private static String withoutLineage(Alert a) {
    return Alert.newBuilder(a)
        .setSourceTopic(null)
        .setSourcePartition(null)
        .setSourceOffset(null)
        .build()
        .toString();
  }

  /**
   * One good record for each of the fabric side's topics, which the host simulator does not feed: a
   * cable of fabric.topology, an ibdiagnet run and a switch's perfquery sweep (the schemas' sample
   * records, at {@code now}).
   */
  private static List<Map.Entry<String, SpecificRecord>> fabricRecords(Instant now) {
    FabricLink link = SampleRecords.fabricLink();
    link.setTime(now);
    FabricFindings run =
        FabricFindings.newBuilder(SampleRecords.fabricFindings())
            .setCluster("demo")
            .setRunTime(now)
            .build();
    NodeCounters sweep =
        NodeCounters.newBuilder(SampleRecords.nodeCounters())
            .setCluster("demo")
            .setNode("leaf01")
            .setSource(RateSource.PERFQUERY)
            .setTime(now)
            .build();
    return List.of(
        Map.entry(link.getLinkId(), link),
        Map.entry("demo/" + run.getObservedBy(), run),
        Map.entry("demo/leaf01", sweep));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Serializer<SpecificRecord> serializer(SpecificRecord r, String registry) {
    return (Serializer) AvroSerde.forValues(r.getClass(), registry).serializer();
  }

  private static long timeOf(SpecificRecord r) {
    if (r instanceof FabricFindings run) {
      return run.getRunTime().toEpochMilli();
    }
    Object time = r.get(r.getSchema().getField("time").pos());
    return time instanceof Instant i ? i.toEpochMilli() : (Long) time;
  }

  private static SmSweep smSweep(Instant t) {
    return SmSweep.newBuilder()
        .setCluster("demo")
        .setNode("gpu001")
        .setBootId("b")
        .setSeq(1)
        .setTime(t)
        .setSource(io.fabricpulse.avro.SmSource.SMINFO)
        .setEvent(io.fabricpulse.avro.SmEventKind.SMINFO_POLL)
        .setSmState("MASTER")
        .setSmGuid("0x1")
        .setSmLid(1)
        .setActivityCount(1L)
        .setRawLine("sminfo: sm lid 1 sm guid 0x1, activity count 1")
        .build();
  }

  private static GpuEcc gpuSample(Instant t) {
    return GpuEcc.newBuilder()
        .setCluster("demo")
        .setNode("gpu001")
        .setBootId("b")
        .setSeq(1L)
        .setTime(t)
        .setGpu(0)
        .setUuid("GPU-0")
        .setFields(Map.of())
        .build();
  }
}
