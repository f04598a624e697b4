package io.fabricpulse.app.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.app.bench.GroupLag;
import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.collectors.sim.DemoFaults;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.schemas.registry.LocalSchemaRegistryServer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.FabricTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, fault 2 with a real kill: two {@code fabricpulse streams} processes (child JVMs, the
 * command operators run, exactly-once v2) share the work of one application over a real broker and
 * a schema registry on 127.0.0.1; while the simulated fleet's agents publish the demo's port
 * faults, one process is killed with SIGKILL ({@code kill -9}: no shutdown hook, no commit, an open
 * transaction). The other takes its partitions when the dead member's session times out (10 s here)
 * and its transaction is aborted. Read from the topics afterwards: every counter record has exactly
 * one NodeRates (none lost with the killed process, none computed twice by the survivor), every
 * fault raised exactly one alert and nothing else fired, and no alert record (id and state) was
 * written twice.
 */
@Tag("chaos")
class StreamsKillIT {
  private static final int NODES = 8;
  private static final int PARTITIONS = 4;
  private static final Duration FAULT_WINDOW = Duration.ofMinutes(6);
  private static final Duration RUN = FAULT_WINDOW.plusMinutes(1);
  private static final long KILL_AT = 150;

  /** Wall time per simulated second: about 10 simulated seconds a second. */
  private static final long PACE_MS = 100;

  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  @Test
  void aStreamsProcessKilledMidStreamLosesNoRateAndPagesEachFaultOnce(@TempDir Path dir)
      throws Exception {
    long testStart = System.nanoTime();
    Instant start = Instant.now().minus(RUN).minusSeconds(60).truncatedTo(ChronoUnit.SECONDS);
    FabricTopics topics = FabricTopics.defaults("", PARTITIONS);
    try (EmbeddedKafkaBroker broker =
            EmbeddedKafkaBroker.start(dir.resolve("broker"), Duration.ofMinutes(2));
        LocalSchemaRegistryServer registryServer = new LocalSchemaRegistryServer(null);
        Admin admin =
            Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      String bootstrap = broker.bootstrapServers();
      String registry = registryServer.url();
      TopicBootstrap.ensure(admin, topics, (short) 1);
      Path config =
          Files.writeString(
              dir.resolve("kafka.properties"),
              String.join(
                  "\n",
                  "bootstrap.servers=" + bootstrap,
                  "schema.registry.url=" + registry,
                  // a killed member's partitions move when its session times out
                  "session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
                  "heartbeat.interval.ms=1000",
                  ""));
      Streams first = Streams.start(dir, "first", config);
      Streams second = Streams.start(dir, "second", config);
      try {
        first.awaitRunning();
        second.awaitRunning();
        String group = FabricTopology.APPLICATION_ID;
        awaitTrue(() -> membersWithPartitions(admin, group) == 2, "both processes have work");

        FabricSimulator sim =
            new FabricSimulator(SimulatorConfig.infiniband("kill", NODES, 42, start));
        List<InjectedFault> faults =
            DemoFaults.schedulePortFaults(sim, start.plusSeconds(5), FAULT_WINDOW);
        Properties producer = new Properties();
        producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        producer.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        producer.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry);
        long killedAt = -1;
        long published;
        try (SimulatedFleet fleet = new SimulatedFleet(sim, producer, topics)) {
          for (long s = 0; s <= RUN.toSeconds(); s++) {
            if (s == KILL_AT) {
              fleet.flush();
              second.kill();
              killedAt = System.nanoTime();
            }
            fleet.collect(start.plusSeconds(s));
            TimeUnit.MILLISECONDS.sleep(PACE_MS);
          }
          fleet.flush();
          assertEquals(0, fleet.malformed() + fleet.failures() + fleet.lost(), "agents lost none");
          published = fleet.published();
        }
        awaitTrue(() -> membersWithPartitions(admin, group) == 1, "the survivor holds all work");
        double takeover = (System.nanoTime() - killedAt) / 1e9;

        List<String> inputs = new ArrayList<>(topics.raw().stream().map(TopicSpec::name).toList());
        inputs.add(topics.topology().name());
        GroupLag lag = new GroupLag(admin);
        assertTrue(
            lag.awaitCaughtUp(group, inputs, Duration.ofMinutes(3), l -> {}),
            "the survivor caught up; lag " + lag.lag(group, inputs));
        assertTrue(first.alive(), "the survivor is still running:\n" + first.err());

        List<String> counterTopics =
            List.of(
                topics.portCounters().name(),
                topics.pfc().name(),
                topics.ecn().name(),
                topics.switchCounters().name());
        Sequences raw = Sequences.ofRaw(bootstrap, registry, counterTopics, r -> false);
        Sequences rates = Sequences.ofRates(bootstrap, registry, topics.rates().name(), r -> false);
        assertEquals(0, raw.gaps(), "raw sequence gaps");
        assertEquals(0, raw.duplicated(), "raw duplicates");
        assertEquals(0, rates.duplicated(), "rates computed twice");
        assertEquals(0, rates.missingFrom(raw), "raw samples without their rates");
        assertEquals(raw.count(), rates.count(), "one NodeRates per raw NodeCounters");

        List<Alert> alerts = AlertRecords.decodeAll(bootstrap, registry, topics.alerts().name());
        List<String> twice = AlertRecords.writtenTwice(alerts);
        DetectionReport report =
            DetectionReport.compare(
                faults, alerts, FabricTopology.detectedKinds(), Integer.MAX_VALUE);
        String story = report.story();
        assertEquals(List.of(), twice, "alert records written twice\n" + story);
        assertEquals(List.of(), report.missed(), story);
        assertEquals(List.of(), report.unexpected(), story);
        System.out.printf(
            "StreamsKillIT: %d raw records published; %d counter records in %d series, NodeRates"
                + " %d (computed twice 0, missing 0); %d alert records, %d faults detected (missed"
                + " 0, unexpected 0, written twice 0); process killed (SIGKILL) at simulated second"
                + " %d, all partitions on the survivor %.1f s later; wall %.0f s%n",
            published,
            raw.count(),
            raw.series(),
            rates.count(),
            alerts.size(),
            report.detected().size(),
            KILL_AT,
            takeover,
            (System.nanoTime() - testStart) / 1e9);
      } finally {
        first.stop();
        second.kill();
      }
    }
  }

  /** Members of {@code group} with at least one partition assigned. */
  private static int membersWithPartitions(Admin admin, String group) {
    try {
      ConsumerGroupDescription d =
          admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      int n = 0;
      for (MemberDescription m : d.members()) {
        if (!m.assignment().topicPartitions().isEmpty()) {
          n++;
        }
      }
      return n;
    } catch (Exception e) {
      return -1;
    }
  }

  private static void awaitTrue(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      TimeUnit.MILLISECONDS.sleep(250);
    }
  }

  /** One {@code fabricpulse streams} child JVM, as the launcher starts it. */
  private record Streams(String name, Process process, Path outFile, Path errFile) {

    static Streams start(Path dir, String name, Path config) throws Exception {
      Path out = dir.resolve(name + ".out");
      Path err = dir.resolve(name + ".err");
      List<String> command =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.fabricpulse.avro",
              "-Xss4m",
              "-Xmx1g",
              "-cp",
              System.getProperty("java.class.path"),
              FabricPulse.class.getName(),
              "streams",
              "--kafka-config",
              config.toString(),
              "--state-dir",
              dir.resolve("state-" + name).toString(),
              "--partitions",
              Integer.toString(PARTITIONS),
              "--replication-factor",
              "1",
              "--threads",
              "1");
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      return new Streams(name, p, out, err);
    }

    void awaitRunning() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!Files.readString(outFile).contains(" RUNNING against ")) {
        assertTrue(process.isAlive(), name + " ended:\n" + Files.readString(outFile) + err());
        assertTrue(System.nanoTime() < deadline, name + " not RUNNING:\n" + err());
        TimeUnit.MILLISECONDS.sleep(200);
      }
    }

    boolean alive() {
      return process.isAlive();
    }

    /** SIGKILL: the JVM ends at once, without its shutdown hooks. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: the command's hook closes the application. */
    void stop() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }

    String err() {
      try {
        return Files.readString(errFile);
      } catch (java.io.IOException e) {
        return "(no stderr: " + e + ")";
      }
    }
  }
}
