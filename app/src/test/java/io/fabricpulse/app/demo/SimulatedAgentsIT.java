package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agents (the collector's own source tasks and Kafka output) against a real KRaft broker,
 * with the fabric simulator as their source: every raw record type reaches its topic, keyed by
 * node, in event time, and decodes with the registry-compatible deserializer.
 */
class SimulatedAgentsIT {
  private static final Instant START = Instant.parse("2026-11-29T08:00:00Z");

  @Test
  void everyRecordTypeOfEverySourceArrivesAndDecodes(@TempDir Path dir) throws Exception {
    String registry = "mock://simulated-agents-it";
    FabricTopics topics = FabricTopics.defaults("", 2);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60))) {
      Properties admin = new Properties();
      admin.put("bootstrap.servers", broker.bootstrapServers());
      try (Admin client = Admin.create(admin)) {
        TopicBootstrap.ensure(client, topics, (short) 1);
      }
      FabricSimulator sim =
          new FabricSimulator(SimulatorConfig.infiniband("lab", DemoFaults.MIN_NODES, 7, START));
      DemoFaults.scheduleAll(sim, START.plusSeconds(5), Duration.ofMinutes(4));
      Properties producer = new Properties();
      producer.put("bootstrap.servers", broker.bootstrapServers());
      producer.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry);
      long published;
      try (SimulatedFleet fleet = new SimulatedFleet(sim, producer, topics)) {
        for (int second = 0; second <= 300; second++) {
          fleet.collect(START.plusSeconds(second));
        }
        fleet.flush();
        published = fleet.published();
        assertEquals(0, fleet.malformed());
        assertEquals(0, fleet.failures());
        assertEquals(0, fleet.lost());
      }

      // by record type; the counter topics' NodeCounters by the type of their per-port views
      Map<Class<?>, List<SpecificRecord>> read = new HashMap<>();
      long total = 0;
      List<TopicSpec> written = new ArrayList<>(topics.raw());
      written.add(topics.topology());
      written.add(topics.topologyChanges());
      for (TopicSpec spec : written) {
        List<SpecificRecord> records = readAll(broker.bootstrapServers(), registry, spec);
        total += records.size();
        for (SpecificRecord record : records) {
          List<SpecificRecord> views =
              record instanceof NodeCounters node ? NodeRecords.views(node) : List.of(record);
          for (SpecificRecord view : views) {
            read.computeIfAbsent(view.getClass(), c -> new ArrayList<>()).add(view);
          }
        }
      }
      assertEquals(published, total, "every published record is on its topic");
      // one NodeCounters per node and second on the port-counters topic
      assertEquals(
          16 * 301,
          readAll(broker.bootstrapServers(), registry, topics.portCounters()).size(),
          "one port-counters record per node cycle");

      // 16 nodes x (8 HCAs + the RoCE storage NIC) every second, and every 10 s the 192 switch
      // ports (8 leaves x (16 host ports + 4 uplinks), 4 spines x 8)
      assertEquals(16 * 9 * 301 + 192 * 31, read.get(PortCounters.class).size());
      assertTrue(read.get(PfcPauseFrames.class).size() >= 16 * 301, "ethtool every second");
      assertTrue(!read.get(EcnMarks.class).isEmpty(), "ECN counters");
      // fabric01's fabric role: every 10 s iblinkinfo, then perfquery of the 12 switches
      assertEquals(
          12 * 31,
          readAll(broker.bootstrapServers(), registry, topics.switchCounters()).size(),
          "one switch-counters record per switch and sweep");
      assertTrue(
          read.get(FabricLink.class).size() >= sim.fatTree().orElseThrow().cables(),
          "every cable on fabric.topology");
      assertTrue(
          read.get(FabricLinkChange.class).stream()
              .map(FabricLinkChange.class::cast)
              .anyMatch(c -> c.getChange() == LinkChangeKind.DISAPPEARED),
          "the flapping ISL leaves the sweep while it is down");
      assertTrue(read.get(GpuEcc.class).size() >= 16 * 8 * 30, "nvidia-smi every 10 s");
      assertTrue(
          read.get(GpuXid.class).stream().map(GpuXid.class::cast).anyMatch(x -> x.getXid() == 48),
          "the uncorrectable ECC fault's Xid 48");
      assertTrue(
          read.get(SmSweep.class).stream()
              .map(SmSweep.class::cast)
              .anyMatch(
                  s ->
                      s.getEvent() == SmEventKind.STATE_CHANGE
                          && "MASTER".equals(s.getSmState())
                          && s.getNode().equals("sm02")),
          "the standby SM takes over");
      assertTrue(
          read.get(NcclLog.class).stream()
              .map(NcclLog.class::cast)
              .anyMatch(l -> l.getRawLine().contains("GPU Direct RDMA Disabled")),
          "the GDR fallback job's log");
    }
  }

  private static List<SpecificRecord> readAll(String bootstrap, String registry, TopicSpec spec) {
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("auto.offset.reset", "earliest");
    props.put("enable.auto.commit", "false");
    @SuppressWarnings({"unchecked", "rawtypes"})
    AvroDeserializer<SpecificRecord> decoder = new AvroDeserializer(spec.valueType());
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry), false);
    List<SpecificRecord> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(spec.name()).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("timed out reading " + spec.name());
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          SpecificRecord value = decoder.deserialize(r.topic(), r.value());
          if (value == null) {
            continue; // the tombstone of a link that left the sweep
          }
          if (value instanceof FabricLink link) {
            assertEquals(link.getLinkId(), r.key(), "keyed by link");
          } else if (value instanceof FabricLinkChange change) {
            assertEquals(change.getLinkId(), r.key(), "keyed by link");
          } else {
            Object node = value.get(value.getSchema().getField("node").pos());
            assertEquals("lab/" + node, r.key(), "keyed cluster/node");
          }
          Object time = value.get(value.getSchema().getField("time").pos());
          assertEquals(((Instant) time).toEpochMilli(), r.timestamp(), "event-time timestamp");
          out.add(value);
        }
      }
    }
    return out;
  }
}
