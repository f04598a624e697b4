package io.fabricpulse.collectors.agent;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.FindingSeverity;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.switchports.CommandSwitchCounterQuery;
import io.fabricpulse.collectors.switchports.SwitchCounterSweep;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.collectors.topology.CommandFabricSweep;
import io.fabricpulse.collectors.topology.IbdiagnetRunDirectory;
import io.fabricpulse.schemas.serde.AvroSerializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fabric role over real captures: the sweep command is {@code cat} of a capture (a real process
 * through the same runner as ibnetdiscover), the ibdiagnet directory a temporary one.
 */
class FabricTaskTest {
  private static final NodeIdentity SM = new NodeIdentity("c1", "sm01", "boot-1");
  private static final String PORTS = "ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt";
  private static final String IBDIAGNET =
      "ibdiagnet/gary-minghuili-ibdiagnet2-ibnetdiscover-ndr-excerpt.ibnetdiscover";
  private static final String ISL = "c1/0x0000000000200000:8<->0x0000000000200002:2";
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");
  @TempDir Path tmp;

  private FabricTask sweeping(Path capture) {
    return new FabricTask(
        SM,
        Duration.ofMinutes(5),
        "ibnetdiscover",
        new CommandFabricSweep("cat", List.of(capture.toString()), Duration.ofSeconds(10)),
        null);
  }

  private static <T> List<T> of(ParseResult<SpecificRecord> result, Class<T> type) {
    return result.records().stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void theFirstSweepPublishesEveryLinkThenOnlyWhatChanged() throws Exception {
    Path capture = tmp.resolve("sweep.txt");
    Files.writeString(capture, read(PORTS).replace(" 1x SDR - ", " 4x SDR - "));
    FabricTask task = sweeping(capture);

    ParseResult<SpecificRecord> first = task.collect(T0);
    assertEquals(List.of(), first.malformed());
    assertEquals(6, of(first, FabricLink.class).size());
    assertEquals(List.of(), of(first, FabricLinkChange.class));
    assertEquals(TopologySource.IBNETDISCOVER, of(first, FabricLink.class).get(0).getSource());
    assertEquals("sm01", of(first, FabricLink.class).get(0).getObservedBy());

    assertEquals(List.of(), task.collect(T0.plusSeconds(300)).records(), "nothing changed");

    Files.writeString(capture, read(PORTS)); // the ISL renegotiated to 1x
    ParseResult<SpecificRecord> third = task.collect(T0.plusSeconds(600));
    List<FabricLinkChange> changes = of(third, FabricLinkChange.class);
    assertEquals(1, changes.size());
    assertEquals(ISL, changes.get(0).getLinkId());
    assertEquals(LinkChangeKind.RENEGOTIATED, changes.get(0).getChange());
    assertEquals(T0.plusSeconds(300), changes.get(0).getPreviousTime());
    assertEquals(3L, changes.get(0).getSweepSeq());
    assertEquals(1, of(third, FabricLink.class).get(0).getEndA().getWidth());
  }

  @Test
  void aSweepThatFailsThrowsAndOneWithoutLinksKeepsThePreviousTopology() throws Exception {
    Path capture = tmp.resolve("sweep.txt");
    Files.writeString(capture, read(PORTS));
    FabricTask task = sweeping(capture);
    task.collect(T0);

    Files.delete(capture);
    assertThrows(IOException.class, () -> task.collect(T0.plusSeconds(300)), "cat exits 1");

    Files.writeString(capture, "ibwarn: [1] mad_rpc_open_port: can't open UMAD port\n");
    ParseResult<SpecificRecord> empty = task.collect(T0.plusSeconds(600));
    assertEquals(List.of(), empty.records(), "not every link disappearing at once");
    assertTrue(
        empty.malformed().stream().anyMatch(m -> m.reason().contains("kept the previous one")),
        empty.malformed().toString());
  }

  @Test
  void aNewIbdiagnetRunIsIngestedOnceInTheRunsTime() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("ibdiagnet2"));
    Path file = dir.resolve(IbdiagnetRunDirectory.TOPOLOGY_FILE);
    FabricTask task =
        new FabricTask(
            SM, Duration.ofMinutes(5), "ibnetdiscover", null, new IbdiagnetRunDirectory(dir));
    assertEquals(List.of(), task.collect(T0).records(), "no run yet");

    Files.copy(Samples.path(IBDIAGNET), file);
    Instant written = Instant.parse("2025-03-31T23:43:20Z");
    Files.setLastModifiedTime(file, FileTime.from(written));
    ParseResult<SpecificRecord> run = task.collect(T0.plusSeconds(300));
    assertEquals(List.of(), run.malformed());
    List<FabricLink> links = of(run, FabricLink.class);
    assertEquals(40, links.size(), "the spine's 8 ISLs and the leaf's 32 host links");
    assertEquals(TopologySource.IBDIAGNET, links.get(0).getSource());
    assertEquals(written, links.get(0).getTime(), "event time is the run's, not the read's");
    assertEquals(List.of(), task.collect(T0.plusSeconds(600)).records(), "the same run again");

    String withoutHost32 =
        read(IBDIAGNET)
            .lines()
            .filter(l -> !l.contains("5c25730300f424be"))
            .collect(Collectors.joining("\n"));
    Files.writeString(file, withoutHost32);
    Files.setLastModifiedTime(file, FileTime.from(written.plusSeconds(3600)));
    List<FabricLinkChange> changes = of(task.collect(T0.plusSeconds(900)), FabricLinkChange.class);
    assertEquals(1, changes.size());
    assertEquals(LinkChangeKind.DISAPPEARED, changes.get(0).getChange());
    assertEquals(
        "is-north-7-compute-32 mlx5_8", changes.get(0).getBefore().getEndA().getNodeDescription());
    assertNull(changes.get(0).getAfter());
  }

  @Test
  void linksAreKeyedByLinkAndADisappearedLinkIsTombstoned() throws Exception {
    AvroSerializer<SpecificRecord> values = new AvroSerializer<>();
    values.configure(Map.of("schema.registry.url", "mock://fabric-task"), false);
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(true, null, new StringSerializer(), values);
    KafkaRecordOutput output = new KafkaRecordOutput(producer, FabricTopics.defaults(), 1000);
    Path capture = tmp.resolve("sweep.txt");
    Files.writeString(capture, read(PORTS));
    FabricTask task = sweeping(capture);

    output.publish(SM, task.collect(T0).records());
    Files.writeString(
        capture,
        read(PORTS).lines().filter(l -> !l.contains(" 1x SDR ")).collect(Collectors.joining("\n")));
    output.publish(SM, task.collect(T0.plusSeconds(300)).records());
    output.close();

    List<ProducerRecord<String, SpecificRecord>> sent = producer.history();
    assertEquals(8, sent.size(), "6 links, the change, the tombstone");
    assertTrue(
        sent.subList(0, 6).stream()
            .allMatch(
                r ->
                    r.topic().equals(FabricTopics.TOPOLOGY)
                        && r.key().equals(((FabricLink) r.value()).getLinkId())
                        && r.timestamp() == T0.toEpochMilli()));
    ProducerRecord<String, SpecificRecord> change = sent.get(6);
    assertEquals(FabricTopics.TOPOLOGY_CHANGES, change.topic());
    assertEquals(ISL, change.key());
    ProducerRecord<String, SpecificRecord> tombstone = sent.get(7);
    assertEquals(FabricTopics.TOPOLOGY, tombstone.topic());
    assertEquals(ISL, tombstone.key());
    assertNull(tombstone.value());
    assertEquals(T0.plusSeconds(300).toEpochMilli(), tombstone.timestamp());
  }

  @Test
  void eachSweepReadsTheSwitchPortsAndTheirCountersGoToTheSwitchCounterTopic() throws Exception {
    Path capture = tmp.resolve("sweep.txt");
    Files.writeString(capture, read(PORTS));
    // a perfquery that prints leaf01's captured answers (-x or basic) and fails for other LIDs
    Path perfquery = tmp.resolve("perfquery");
    Files.writeString(
        perfquery,
        "#!/bin/sh\n"
            + "if [ \"$1\" = -x ]; then shift; f="
            + Samples.path("perfquery/ibsim-perfquery-x-leaf01-ports-1-2-7-8.txt")
            + "; else f="
            + Samples.path("perfquery/ibsim-perfquery-leaf01-ports-1-2-7-8.txt")
            + "; fi\n"
            + "[ \"$1\" = 1 ] || { echo \"ibwarn: no response from lid $1\" >&2; exit 1; }\n"
            + "cat \"$f\"\n");
    assertTrue(perfquery.toFile().setExecutable(true));
    FabricTask task =
        new FabricTask(
            SM,
            Duration.ofMinutes(5),
            "ibnetdiscover",
            new CommandFabricSweep("cat", List.of(capture.toString()), Duration.ofSeconds(10)),
            null,
            new SwitchCounterSweep(
                new CommandSwitchCounterQuery(perfquery.toString(), Duration.ofSeconds(10))));
    AvroSerializer<SpecificRecord> values = new AvroSerializer<>();
    values.configure(Map.of("schema.registry.url", "mock://fabric-task-switches"), false);
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(true, null, new StringSerializer(), values);
    KafkaRecordOutput output = new KafkaRecordOutput(producer, FabricTopics.defaults(), 1000);

    ParseResult<SpecificRecord> result = task.collect(T0);
    output.publish(SM, result.records());
    output.close();

    List<NodeCounters> switches = of(result, NodeCounters.class);
    assertEquals(1, switches.size(), "leaf01 answered; leaf02 and spine01 did not");
    assertEquals("leaf01", switches.get(0).getNode());
    assertEquals(4, switches.get(0).getPorts().size());
    assertEquals(
        2,
        result.malformed().stream()
            .filter(m -> m.reason().contains("no response from lid"))
            .count(),
        result.malformed().toString());
    List<ProducerRecord<String, SpecificRecord>> counters =
        producer.history().stream()
            .filter(r -> r.topic().equals(FabricTopics.SWITCH_COUNTERS))
            .toList();
    assertEquals(1, counters.size());
    assertEquals("c1/leaf01", counters.get(0).key());
    assertEquals(T0.toEpochMilli(), counters.get(0).timestamp());
  }

  @Test
  void aNewIbdiagnetRunsLogGivesOneFindingsRecordInTheRunsTime() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("ibdiagnet2"));
    Files.copy(Samples.path(IBDIAGNET), dir.resolve(IbdiagnetRunDirectory.TOPOLOGY_FILE));
    Files.copy(
        Samples.path("ibdiagnet/gary-minghuili-ibdiagnet2-ndr-quantum2-warnings.log"),
        dir.resolve(IbdiagnetRunDirectory.LOG_FILE));
    FabricTask task =
        new FabricTask(
            SM, Duration.ofMinutes(5), "ibnetdiscover", null, new IbdiagnetRunDirectory(dir));
    AvroSerializer<SpecificRecord> values = new AvroSerializer<>();
    values.configure(Map.of("schema.registry.url", "mock://fabric-task-findings"), false);
    MockProducer<String, SpecificRecord> producer =
        new MockProducer<>(true, null, new StringSerializer(), values);
    KafkaRecordOutput output = new KafkaRecordOutput(producer, FabricTopics.defaults(), 1000);

    ParseResult<SpecificRecord> run = task.collect(T0);
    output.publish(SM, run.records());
    output.close();

    List<FabricFindings> findings = of(run, FabricFindings.class);
    assertEquals(1, findings.size());
    FabricFindings f = findings.get(0);
    assertEquals("sm01", f.getObservedBy());
    assertEquals(Instant.parse("2025-03-31T23:43:18Z"), f.getRunTime(), "the log's own timestamp");
    assertEquals(17, f.getFindings().size());
    assertTrue(f.getFindings().stream().allMatch(x -> x.getSeverity() == FindingSeverity.WARNING));
    List<ProducerRecord<String, SpecificRecord>> sent =
        producer.history().stream().filter(r -> r.topic().equals(FabricTopics.IBDIAGNET)).toList();
    assertEquals(1, sent.size());
    assertEquals("c1/sm01", sent.get(0).key());
    assertEquals(Instant.parse("2025-03-31T23:43:18Z").toEpochMilli(), sent.get(0).timestamp());
  }
}
