package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The production-shaped commands against real parts: {@code streams} and {@code sink influx} run as
 * they would on servers (here on a KRaft broker and a QuestDB on 127.0.0.1), a collector publishes
 * two samples of a real sysfs capture, and the rates come out of the store.
 */
class StreamsAndSinkCommandsIT {

  @Test
  void streamsAndSinkCommandsCarryCollectorSamplesIntoTheStore(@TempDir Path dir) throws Exception {
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60));
        EmbeddedQuestDb store = EmbeddedQuestDb.start(dir.resolve("questdb"))) {
      String registry = "mock://streams-sink-commands-it";
      StreamsCommand streams = new StreamsCommand();
      StringWriter streamsOut = new StringWriter();
      SinkCommand.Influx sink = new SinkCommand.Influx();
      CompletableFuture<Integer> streamsExit = null;
      CompletableFuture<Integer> sinkExit = null;
      try {
        streamsExit =
            run(
                streams,
                streamsOut,
                "--bootstrap-servers",
                broker.bootstrapServers(),
                "--schema-registry-url",
                registry,
                "--replication-factor",
                "1",
                "--partitions",
                "2",
                "--guarantee",
                "AT_LEAST_ONCE",
                "--state-dir",
                dir.resolve("streams").toString(),
                "--status-port",
                "0");
        sinkExit =
            run(
                sink,
                new StringWriter(),
                "--bootstrap-servers",
                broker.bootstrapServers(),
                "--schema-registry-url",
                registry,
                "--influx-url",
                store.url(),
                "--alive-file",
                dir.resolve("sink-alive").toString());
        awaitRunning(streamsOut, streamsExit);

        Path sysfs =
            Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", dir.resolve("sysfs"));
        SysfsPortCounterReader reader = new SysfsPortCounterReader(new DirectorySysfsTree(sysfs));
        NodeIdentity node = new NodeIdentity("lab", "gpu042", "boot-a");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", broker.bootstrapServers());
        producer.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registry);
        AtomicLong seq = new AtomicLong();
        try (RecordPublisher publisher =
            new RecordPublisher(producer, FabricTopics.PORT_COUNTERS)) {
          for (int i = 0; i < 2; i++) {
            ParseResult<PortCounters> sample =
                reader.read(
                    new SampleContext(
                        node, Instant.parse("2026-11-29T12:00:00Z").plusSeconds(i), seq));
            publisher.publishAll(node, sample);
          }
          publisher.flush();
        }

        var rows =
            store
                .awaitRows(
                    "select * from fabric_port_rates where node = 'gpu042' order by timestamp",
                    2,
                    Duration.ofSeconds(120))
                .rows();
        assertEquals("mlx5_0", rows.get(1).get("device"), rows.toString());
        // the store took the sink's health points: the compose health check's file is there
        long aliveDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!java.nio.file.Files.exists(dir.resolve("sink-alive"))) {
          assertTrue(System.nanoTime() < aliveDeadline, "no alive file from the sink");
          java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
        }
        // the live status page of streams read the same rates
        Matcher page =
            Pattern.compile("status page: (http://127\\.0\\.0\\.1:\\d+/)")
                .matcher(streamsOut.toString());
        assertTrue(page.find(), streamsOut.toString());
        HttpClient http = HttpClient.newHttpClient();
        long statusDeadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String status = "";
        while (!Pattern.compile("\"updates\":[1-9]").matcher(status).find()) {
          assertTrue(System.nanoTime() < statusDeadline, "status page: " + status);
          status =
              http.send(
                      HttpRequest.newBuilder(URI.create(page.group(1) + "api/status")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body();
          java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L);
        }
        // and vouches for what runs it: Kafka answering, the application RUNNING, its own feed
        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(URI.create(page.group(1) + "api/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode(), health.body());
        for (String check : List.of("kafka", "streams", "status feed")) {
          assertTrue(
              health.body().contains("{\"name\":\"" + check + "\",\"ok\":true,"), health.body());
        }
        assertTrue(health.body().contains("\"detail\":\"RUNNING, "), health.body());
        assertEquals(
            0.0,
            Double.parseDouble(rows.get(1).get("local_ack_timeout_err_per_s")),
            rows.toString());
      } finally {
        // Stop both services even when an assertion failed: their threads must not outlive the
        // test.
        streams.stop.countDown();
        if (sink.sink != null) {
          sink.sink.close();
        }
      }
      assertEquals(0, streamsExit.get(60, TimeUnit.SECONDS));
      assertEquals(0, sinkExit.get(60, TimeUnit.SECONDS));
    }
  }

  /** Waits (with a deadline) until the streams command reports RUNNING. */
  private static void awaitRunning(StringWriter out, CompletableFuture<Integer> exit) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!out.toString().contains("RUNNING")) {
      if (exit.isDone() || System.nanoTime() > deadline) {
        throw new AssertionError("streams did not reach RUNNING: " + out);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L);
    }
  }

  /** Runs a command in its own thread, as the launcher would in its own process. */
  private static CompletableFuture<Integer> run(Object command, StringWriter out, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out, true));
    return CompletableFuture.supplyAsync(() -> cli.execute(args));
  }
}
