package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.nccl.NcclLineParser;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Two {@code streams} instances of one application on one KRaft broker (shared by the class), each
 * serving the query API: a node's rates are answered by either instance (it routes the key to its
 * owner), top-N and the open alerts are merged across both; {@code query --api} renders them and
 * refuses cleanly without the token or without an API; {@code query --follow} prints what is
 * written after it started.
 */
class InteractiveQueriesIT {

  private static final String REGISTRY = "mock://interactive-queries-it";
  private static final String TOKEN = "it-token-5b1f";
  private static final Instant T0 = Instant.parse("2026-12-01T03:10:00Z");
  private static final int NODES = 12;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static EmbeddedKafkaBroker broker;
  private static final List<StreamsCommand> instances = new ArrayList<>();
  private static final List<CompletableFuture<Integer>> exits = new ArrayList<>();
  private static final List<String> urls = new ArrayList<>();
  private static Path tokenFile;

  @BeforeAll
  static void startBrokerAndTwoInstances() throws Exception {
    broker = EmbeddedKafkaBroker.start(dir, Duration.ofSeconds(60));
    tokenFile = Files.writeString(dir.resolve("query-token"), TOKEN + "\n");
    for (int i = 0; i < 2; i++) {
      CommandLine cli = FabricPulse.commandLine();
      StreamsCommand streams = (StreamsCommand) cli.getSubcommands().get("streams").getCommand();
      StringWriter out = new StringWriter();
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(out, true));
      String[] args = {
        "streams",
        "--bootstrap-servers",
        broker.bootstrapServers(),
        "--schema-registry-url",
        REGISTRY,
        "--replication-factor",
        "1",
        "--partitions",
        "2",
        "--guarantee",
        "AT_LEAST_ONCE",
        "--threads",
        "1",
        "--state-dir",
        dir.resolve("streams-" + i).toString(),
        "--query-port",
        "0",
        "--query-token-file",
        tokenFile.toString()
      };
      instances.add(streams);
      CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli.execute(args));
      exits.add(exit);
      urls.add(awaitQueryApi(out, exit));
    }
  }

  @AfterAll
  static void stopInstancesAndBroker() throws Exception {
    instances.forEach(s -> s.stop.countDown());
    for (CompletableFuture<Integer> exit : exits) {
      assertEquals(0, exit.get(60, TimeUnit.SECONDS));
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void eitherInstanceAnswersEveryKeyAndTheListsAreMergedAcrossBoth() throws Exception {
    // 03:10:00: twelve nodes report one RoCE port each; node i pauses i/20 of the second on rx
    Map<String, Double> pauseRatio = new LinkedHashMap<>();
    try (KafkaProducer<String, NodeRates> producer =
        producer(AvroSerde.forValues(NodeRates.class, REGISTRY).serializer())) {
      for (int i = 1; i <= NODES; i++) {
        String node = String.format("gpu%03d", i);
        pauseRatio.put("lab/" + node, i / 20.0);
        NodeRates rates = pfcRates(node, i / 20.0, i * 100.0);
        producer.send(
            new ProducerRecord<>(
                FabricTopics.RATES, null, T0.toEpochMilli(), "lab/" + node, rates));
      }
    }
    // three open alerts, one of them resolved again (its tombstone)
    try (KafkaProducer<String, Alert> producer =
        producer(AvroSerde.forValues(Alert.class, REGISTRY).serializer())) {
      for (int i = 1; i <= 4; i++) {
        Alert a =
            alert("alert-" + i, "gpu00" + i, i % 2 == 0 ? Severity.CRITICAL : Severity.WARNING);
        producer.send(
            new ProducerRecord<>(
                FabricTopics.ALERTS_ACTIVE, null, T0.toEpochMilli(), a.getAlertId(), a));
      }
      producer.send(
          new ProducerRecord<String, Alert>(
              FabricTopics.ALERTS_ACTIVE, null, T0.toEpochMilli() + 1000, "alert-3", null));
    }

    // both instances host a part of the rates store (the group has settled on two members)
    long settled = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      HttpResponse<String> r = get(urls.get(0) + "v1/top?by=pause_ratio&n=1", TOKEN);
      if (r.statusCode() == 200
          && instancesOf(JSON.readValue(r.body(), new TypeReference<>() {})).size() == 2) {
        break;
      }
      assertTrue(System.nanoTime() < settled, "one instance hosts the store: " + r.body());
      LockSupport.parkNanos(100_000_000L);
    }

    // every node's rates, asked of either instance: the owner answers (so for each key one of
    // the two instances asked routed the lookup to the other)
    Set<String> owners = new HashSet<>();
    for (String key : pauseRatio.keySet()) {
      Map<String, Object> first = null;
      for (String url : urls) {
        Map<String, Object> answer = awaitRows(url + "v1/rates?node=" + key, 1);
        List<Map<String, Object>> rows = rows(answer);
        assertEquals(1, rows.size(), answer.toString());
        assertEquals(pauseRatio.get(key), (Double) rows.get(0).get("rx_pause_ratio"), 1e-9);
        assertEquals(true, answer.get("complete"), answer.toString());
        List<Map<String, Object>> answered = instancesOf(answer);
        assertEquals(1, answered.size(), answer.toString());
        assertEquals(answer.get("routed_to"), answered.get(0).get("instance"), answer.toString());
        assertTrue(answered.get(0).get("offset_lag") instanceof Number, answer.toString());
        if (first == null) {
          first = answer;
        } else {
          assertEquals(first.get("routed_to"), answer.get("routed_to"), "one owner per key");
          assertEquals(rows(first), rows, key);
        }
      }
      owners.add(String.valueOf(first.get("routed_to")));
    }
    assertTrue(
        Set.of(address(urls.get(0)), address(urls.get(1))).containsAll(owners), owners.toString());

    // top 5 by pause ratio: gpu012 down to gpu008, whichever instance is asked, from both
    List<String> expectedTop =
        pauseRatio.entrySet().stream()
            .sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()))
            .limit(5)
            .map(Map.Entry::getKey)
            .toList();
    for (String url : urls) {
      Map<String, Object> top = getJson(url + "v1/top?by=pause_ratio&n=5");
      assertEquals(expectedTop, nodeKeys(rows(top)), top.toString());
      assertEquals(2, instancesOf(top).size(), top.toString());
      assertEquals(true, top.get("complete"), top.toString());
      // by a counter's rate: rx_prio3_pause node i at i*100 per second
      Map<String, Object> byCounter = getJson(url + "v1/top?by=rx_prio3_pause&n=2");
      assertEquals(List.of("lab/gpu012", "lab/gpu011"), nodeKeys(rows(byCounter)));
    }

    // open alerts merged from both instances, filtered
    for (String url : urls) {
      Map<String, Object> open =
          awaitAlerts(url + "v1/alerts", List.of("alert-1", "alert-2", "alert-4"));
      assertEquals(2, instancesOf(open).size(), open.toString());
      Map<String, Object> critical = getJson(url + "v1/alerts?severity=critical");
      assertEquals(List.of("alert-2", "alert-4"), alertIds(critical));
      Map<String, Object> ofNode = getJson(url + "v1/alerts?node=lab/gpu001");
      assertEquals(List.of("alert-1"), alertIds(ofNode));
    }

    // one job, two real logs: a RoCE host with GDR on every HCA, and GKE hosts on sockets; each
    // host's verdict, from both instances
    List<NcclLog> logs = new ArrayList<>();
    for (String capture :
        List.of(
            "nccl/slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5.txt",
            "nccl/gke-a3-h100-2node-socket-fallback-nccl2.22.3.txt")) {
      logs.addAll(
          new NcclLineParser()
              .parseAll(
                  NcclLineParser.linesOf(
                      "/var/log/slurm/slurm-4711.out",
                      Samples.read(capture).lines().toList(),
                      "4711"),
                  new SampleContext(
                      new NodeIdentity("lab", "gpu001", "boot-1"), T0, new AtomicLong()))
              .records());
    }
    Map<String, NcclTransport> expected = new TreeMap<>();
    NcclTransportVerdict.byGroup(logs).values().forEach(v -> expected.put(v.host(), v.toRecord()));
    assertTrue(expected.size() >= 2, expected.toString());
    try (KafkaProducer<String, NcclLog> producer =
        producer(AvroSerde.forValues(NcclLog.class, REGISTRY).serializer())) {
      for (NcclLog log : logs) {
        producer.send(
            new ProducerRecord<>(
                FabricTopics.NCCL, null, log.getTime().toEpochMilli(), "lab/gpu001", log));
      }
    }
    // host, net and gdr of each final verdict, in host order (null gdr: absent from the row)
    List<String> want = new ArrayList<>();
    expected.forEach((host, t) -> want.add(host + " " + t.getNet() + " " + t.getGdr()));
    for (String url : urls) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        Map<String, Object> job = getJson(url + "v1/nccl?job=4711");
        List<String> got = new ArrayList<>();
        rows(job).forEach(r -> got.add(r.get("host") + " " + r.get("net") + " " + r.get("gdr")));
        if (got.equals(want)) {
          assertEquals(2, instancesOf(job).size(), job.toString());
          break;
        }
        assertTrue(System.nanoTime() < deadline, "verdicts " + got + ", want " + want);
        LockSupport.parkNanos(100_000_000L);
      }
    }
    CliRun nccl =
        CliRun.of(
            "query",
            "--api",
            urls.get(0),
            "--api-token-file",
            tokenFile.toString(),
            "nccl",
            "--job",
            "4711");
    assertEquals(0, nccl.exit(), nccl.toString());
    assertEquals(1 + expected.size(), nccl.stdout().lines().count(), nccl.stdout());
    assertTrue(nccl.stdout().contains(" IB "), nccl.stdout());
    assertTrue(nccl.stdout().contains(" Socket "), nccl.stdout());

    // without the token: 401, and query --api says so in one line with exit 2
    assertEquals(401, get(urls.get(0) + "v1/top?by=pause_ratio", null).statusCode());
    CliRun refused = CliRun.of("query", "--api", urls.get(1), "top", "--by", "pause_ratio");
    assertEquals(2, refused.exit(), refused.toString());
    assertTrue(refused.stderr().contains("refused the token (HTTP 401)"), refused.stderr());
    assertEquals(1, refused.stderr().strip().lines().count(), refused.stderr());
    assertTrue(!refused.stderr().contains(TOKEN), "the token is never printed");

    // query --api renders the merged top-N as a table, and says who answered
    CliRun table =
        CliRun.of(
            "query",
            "--api",
            urls.get(1),
            "--api-token-file",
            tokenFile.toString(),
            "top",
            "--by",
            "pause_ratio",
            "--limit",
            "3");
    assertEquals(0, table.exit(), table.toString());
    List<String> lines = table.stdout().lines().toList();
    assertEquals(4, lines.size(), table.stdout());
    assertTrue(
        lines.get(0).matches("#\\s+NODE\\s+PORT\\s+NETDEV\\s+SOURCE\\s+TIME\\s+PAUSE_RATIO"),
        lines.get(0));
    assertTrue(
        lines
            .get(1)
            .matches(
                "1\\s+lab/gpu012\\s+mlx5_0/1\\s+ens1np0\\s+PFC\\s+2026-12-01T03:10:00Z\\s+0.6000"),
        lines.get(1));
    assertTrue(lines.get(3).contains("lab/gpu010"), lines.get(3));
    assertTrue(table.stderr().contains("answered by "), table.stderr());
    assertTrue(table.stderr().contains(address(urls.get(0))), table.stderr());
    assertTrue(table.stderr().contains(address(urls.get(1))), table.stderr());

    CliRun json =
        CliRun.of(
            "query",
            "--api",
            urls.get(0),
            "--api-token-file",
            tokenFile.toString(),
            "alerts",
            "--severity",
            "warning",
            "--format",
            "json");
    assertEquals(0, json.exit(), json.toString());
    assertEquals(
        List.of("alert-1"), alertIds(JSON.readValue(json.stdout(), new TypeReference<>() {})));

    // no API at that address: one line, exit 2
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    CliRun unreachable = CliRun.of("query", "--api", "http://127.0.0.1:" + closedPort, "alerts");
    assertEquals(2, unreachable.exit(), unreachable.toString());
    assertTrue(unreachable.stderr().contains("the query API did not answer"), unreachable.stderr());
    assertEquals(1, unreachable.stderr().strip().lines().count(), unreachable.stderr());
  }

  @Test
  void followPrintsTheMatchingRecordsWrittenAfterItStarted() throws Exception {
    try (KafkaProducer<String, Alert> producer =
        producer(AvroSerde.forValues(Alert.class, REGISTRY).serializer())) {
      // written before the query starts: not printed
      Alert before = alert("follow-before", "gpu101", Severity.CRITICAL);
      producer
          .send(
              new ProducerRecord<>(
                  FabricTopics.ALERTS, null, T0.toEpochMilli(), before.getAlertId(), before))
          .get();

      CommandLine cli = FabricPulse.commandLine();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      cli.setOut(new PrintWriter(out, true));
      cli.setErr(new PrintWriter(err, true));
      CompletableFuture<Integer> exit =
          CompletableFuture.supplyAsync(
              () ->
                  cli.execute(
                      "query",
                      "--bootstrap-servers",
                      broker.bootstrapServers(),
                      "--schema-registry-url",
                      REGISTRY,
                      "--topic",
                      FabricTopics.ALERTS,
                      "--where",
                      "severity == \"CRITICAL\" && node.startsWith(\"gpu1\")",
                      "--fields",
                      "alert_id,node",
                      "--follow",
                      "--limit",
                      "2"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!err.toString().contains("query: following fabric.alerts from its end")) {
        assertTrue(!exit.isDone() && System.nanoTime() < deadline, "not following: " + err + out);
        LockSupport.parkNanos(20_000_000L);
      }
      // after it started: a warning (no match), then two critical ones, then one past the limit
      int i = 0;
      for (Severity s :
          List.of(Severity.WARNING, Severity.CRITICAL, Severity.CRITICAL, Severity.CRITICAL)) {
        Alert a = alert("follow-" + i, "gpu10" + i, s);
        producer
            .send(
                new ProducerRecord<>(
                    FabricTopics.ALERTS, null, T0.toEpochMilli() + i, a.getAlertId(), a))
            .get();
        i++;
      }
      assertEquals(0, exit.get(60, TimeUnit.SECONDS), err.toString());
      assertEquals(
          List.of(
              "{\"alert_id\":\"follow-1\",\"node\":\"gpu101\"}",
              "{\"alert_id\":\"follow-2\",\"node\":\"gpu102\"}"),
          out.toString().lines().toList());
      assertTrue(err.toString().contains("query: 2 matching row(s)"), err.toString());
    }
  }

  private static String awaitQueryApi(StringWriter out, CompletableFuture<Integer> exit) {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    Pattern api = Pattern.compile("query API: (http://127\\.0\\.0\\.1:\\d+/)");
    while (true) {
      Matcher m = api.matcher(out.toString());
      if (m.find() && out.toString().contains("RUNNING")) {
        return m.group(1);
      }
      if (exit.isDone() || System.nanoTime() > deadline) {
        throw new AssertionError("streams did not start its query API: " + out);
      }
      LockSupport.parkNanos(50_000_000L);
    }
  }

  /** Asks until the answer has {@code rows} rows (the records are on their way through). */
  private static Map<String, Object> awaitRows(String url, int rows) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      HttpResponse<String> r = get(url, TOKEN);
      if (r.statusCode() == 200) {
        Map<String, Object> body = JSON.readValue(r.body(), new TypeReference<>() {});
        if (rows(body).size() >= rows) {
          return body;
        }
      }
      assertTrue(System.nanoTime() < deadline, url + ": " + r.statusCode() + " " + r.body());
      LockSupport.parkNanos(100_000_000L);
    }
  }

  private static Map<String, Object> awaitAlerts(String url, List<String> ids) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      HttpResponse<String> r = get(url, TOKEN);
      if (r.statusCode() == 200) {
        Map<String, Object> body = JSON.readValue(r.body(), new TypeReference<>() {});
        if (alertIds(body).equals(ids)) {
          return body;
        }
      }
      assertTrue(System.nanoTime() < deadline, url + ": " + r.statusCode() + " " + r.body());
      LockSupport.parkNanos(100_000_000L);
    }
  }

  private static HttpResponse<String> get(String url, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String address(String url) {
    return url.replaceAll("^http://|/$", "");
  }

  private static Map<String, Object> getJson(String url) throws Exception {
    HttpResponse<String> r = get(url, TOKEN);
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readValue(r.body(), new TypeReference<>() {});
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> rows(Map<String, Object> body) {
    return (List<Map<String, Object>>) body.get("rows");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> instancesOf(Map<String, Object> body) {
    return (List<Map<String, Object>>) body.get("instances");
  }

  private static List<String> nodeKeys(List<Map<String, Object>> rows) {
    return rows.stream().map(r -> r.get("cluster") + "/" + r.get("node")).toList();
  }

  private static List<String> alertIds(Map<String, Object> body) {
    return rows(body).stream().map(r -> String.valueOf(r.get("alert_id"))).toList();
  }

  private static <V> KafkaProducer<String, V> producer(
      org.apache.kafka.common.serialization.Serializer<V> values) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.bootstrapServers());
    return new KafkaProducer<>(p, new StringSerializer(), values);
  }

  /** One ethtool -S cycle of a node's RoCE port: rx priority 3 paused {@code ratio} of it. */
  private static NodeRates pfcRates(String node, double ratio, double pausesPerSecond) {
    CounterRates port =
        CounterRates.newBuilder()
            .setCluster("lab")
            .setNode(node)
            .setBootId("boot-1")
            .setSeq(1)
            .setTime(T0)
            .setIntervalMs(1000L)
            .setSource(RateSource.PFC)
            .setDevice("mlx5_0")
            .setPort(1)
            .setNetdev("ens1np0")
            .setRates(
                List.of(
                    rate(
                        "rx_prio3_pause_duration",
                        ratio * 1e6,
                        "microseconds",
                        CounterKind.PFC_PAUSE_DURATION),
                    rate("rx_prio3_pause", pausesPerSecond, "frames", CounterKind.PFC_PAUSE)))
            .build();
    return NodeRecords.ofRates(List.of(port));
  }

  private static CounterRate rate(String name, double perSecond, String unit, CounterKind kind) {
    return CounterRate.newBuilder()
        .setName(name)
        .setValue(Math.round(perSecond * 10))
        .setDelta(Math.round(perSecond))
        .setPerSecond(perSecond)
        .setUnit(unit)
        .setTag(RateTag.normal)
        .setKind(kind)
        .setDirection(CounterDirection.RX)
        .setPriority(3)
        .build();
  }

  private static Alert alert(String id, String node, Severity severity) {
    return Alert.newBuilder()
        .setAlertId(id)
        .setRule("pause_storm")
        .setKind(AlertKind.PAUSE_STORM)
        .setSeverity(severity)
        .setState(AlertState.FIRING)
        .setCluster("lab")
        .setNode(node)
        .setNetdev("ens1np0")
        .setPriority(3)
        .setStartedAt(T0)
        .setSummary("rx pause on ens1np0 prio 3")
        .setEvidence(Map.of())
        .setLabels(Map.of())
        .build();
  }
}
