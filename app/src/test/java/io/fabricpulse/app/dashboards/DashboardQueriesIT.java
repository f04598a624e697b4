package io.fabricpulse.app.dashboards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.testing.FaultScenario;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.Bridges;
import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.Route;
import io.fabricpulse.bridges.delivery.AlertBridge;
import io.fabricpulse.bridges.delivery.BridgeTopics;
import io.fabricpulse.bridges.delivery.RobotDispatcher;
import io.fabricpulse.bridges.delivery.WebhookClient;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.ManualClock;
import io.fabricpulse.collectors.sim.FaultKind;
import io.fabricpulse.collectors.sim.InjectedFault;
import io.fabricpulse.schemas.serde.AvroDeserializer;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.sinks.influx.GroupLag;
import io.fabricpulse.sinks.influx.InfluxSchema;
import io.fabricpulse.sinks.influx.InfluxSink;
import io.fabricpulse.sinks.influx.InfluxSinkConfig;
import io.fabricpulse.sinks.influx.SinkPoint;
import io.fabricpulse.streams.FabricTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every query of the Grafana dashboards in {@code dashboards/} against the real InfluxQL engine
 * (Debian's InfluxDB 1.x, one process for the class), loaded the way production loads a store: the
 * demo's seeded fault scenario ({@link FaultScenario}) is produced to a real in-process Kafka
 * broker, and the real {@link InfluxSink} consumes it and writes its points, whose line protocol
 * goes to {@code /write}. The real WeCom bridge delivers the scenario's alerts to two local robots
 * on 127.0.0.1 (one throttles its first request, one is down until the bridge gives up), so its
 * counters on fabric.bridge.counters show deliveries, digests, a lockout and undelivered alerts.
 * Then every panel, annotation and template-variable query must run and return data, and name only
 * measurements, fields and tags the sink wrote.
 */
class DashboardQueriesIT {
  static {
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
  }

  static final String DB = "fabricpulse";
  private static final String REGISTRY = FaultScenario.REGISTRY;
  private static final Duration SINK_DEADLINE = Duration.ofSeconds(180);

  @TempDir static Path dir;
  static InfluxDb1Server influx;
  static FaultScenario scenario;

  /** The fabric side: switch ports, ISLs and the topology ({@link SwitchPortScenario}). */
  static SwitchPortScenario switches;

  /** Every record produced to the broker: the host scenario's and the switch ports'. */
  static final List<ProducerRecord<String, byte[]>> produced = new ArrayList<>();

  static List<SinkPoint> written;
  static Instant healthFrom;
  static Instant healthTo;
  static Instant bridgeFrom;
  static Instant bridgeTo;

  @BeforeAll
  static void loadTheStore() throws Exception {
    influx = InfluxDb1Server.start(Files.createDirectories(dir.resolve("influxdb")));
    influx.createDatabase(DB);
    long t0 = System.nanoTime();
    scenario = FaultScenario.seeded();
    switches =
        SwitchPortScenario.run(
            FaultScenario.START,
            REGISTRY,
            repoRoot().resolve("alert-rules"),
            dir.resolve("switch-port-state"));
    produced.addAll(scenario.records);
    produced.addAll(switches.records);
    System.out.printf(
        "scenario: %d records (%d of switch ports) in %d ms%n",
        produced.size(), switches.records.size(), (System.nanoTime() - t0) / 1_000_000);
    try (EmbeddedKafkaBroker broker =
        EmbeddedKafkaBroker.start(dir.resolve("kafka"), Duration.ofSeconds(60))) {
      FabricTopics topics = FabricTopics.defaults();
      Properties admin = new Properties();
      admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
      try (Admin a = Admin.create(admin)) {
        // the scenario's records carry 2025 timestamps: no time retention, or the broker would
        // delete them before the sink reads them
        List<NewTopic> create = new ArrayList<>();
        for (TopicSpec spec : topics.all()) {
          Map<String, String> configs = new HashMap<>(spec.configs());
          if (!spec.compacted()) {
            configs.put(TopicConfig.RETENTION_MS_CONFIG, "-1");
          }
          create.add(new NewTopic(spec.name(), spec.partitions(), (short) 1).configs(configs));
        }
        a.createTopics(create).all().get(30, TimeUnit.SECONDS);
        io.fabricpulse.schemas.topics.TopicLeaders.await(
            a, create.stream().map(NewTopic::name).toList(), java.time.Duration.ofSeconds(30));
        BridgeTopics.ensure(a);
      }
      long p0 = System.nanoTime();
      produce(broker.bootstrapServers());
      System.out.printf("produced in %d ms%n", (System.nanoTime() - p0) / 1_000_000);
      long b0 = System.nanoTime();
      deliverTheAlerts(broker.bootstrapServers());
      System.out.printf("bridge delivered in %d ms%n", (System.nanoTime() - b0) / 1_000_000);
      healthFrom = Instant.now();
      InfluxDb1PointWriter writer = new InfluxDb1PointWriter(influx, DB);
      InfluxSinkConfig config =
          InfluxSinkConfig.of("http://127.0.0.1:1", "fabricpulse", DB, new char[0])
              .withBatch(5_000, Duration.ofMillis(200));
      long expected =
          count(config.ratesTopic())
              + count(config.alertsTopic())
              + count(config.gpuTopic())
              + count(config.xidTopic())
              + count(config.transportTopic())
              + count(FabricTopics.TOPOLOGY);
      InfluxSink sink =
          new InfluxSink(
              config,
              consumer(broker.bootstrapServers()),
              Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY),
              writer);
      // the lag of the pipeline's other groups: the bridge above committed its offsets
      sink.withGroupLag(
          new GroupLag(
              Admin.create(admin),
              List.of(FabricTopology.APPLICATION_ID, Bridges.defaultGroupId(RobotType.WECOM))));
      try {
        sink.subscribe();
        long deadline = System.nanoTime() + SINK_DEADLINE.toNanos();
        while (sink.metrics().recordsConsumed() < expected
            || sink.pendingPoints() > 0
            || !bridgeCountersWritten(writer.written())) {
          assertTrue(
              System.nanoTime() < deadline,
              "sink consumed " + sink.metrics() + " of " + expected + " records");
          sink.pollOnce(Duration.ofMillis(200));
        }
      } finally {
        sink.close();
      }
      healthTo = Instant.now();
      assertEquals(0, sink.metrics().malformedRecords(), sink.metrics().toString());
      assertEquals(0, sink.metrics().pointsRejected(), sink.metrics().toString());
      assertEquals(0, sink.metrics().healthWriteFailures(), sink.metrics().toString());
      written = writer.written();
      System.out.println("sink: " + sink.metrics());
    }
  }

  private static final List<String> ROBOTS = List.of("oncall", "ops");

  /**
   * The WeCom bridge over the scenario's fabric.alerts: robot "oncall" is shared with another
   * sender who used its minute (the first request is throttled, then a 1-minute lockout) and has a
   * budget of 5 messages a minute (what arrives faster goes out in digests), robot "ops" is down
   * until the bridge gives up on it after 2 minutes. The robots' time is an injected clock moved to
   * each next wake-up, so this takes seconds; the bridge's counters go to fabric.bridge.counters
   * every 10 s of that clock and when it stops.
   */
  private static void deliverTheAlerts(String bootstrap) throws Exception {
    ManualClock clock = new ManualClock(Instant.now());
    bridgeFrom = clock.instant();
    Route everything = new Route(Set.of(), Set.of(), Set.of(), List.of(), Map.of(), List.of());
    BridgeConfig config =
        new BridgeConfig(
            BridgeConfig.Language.EN,
            BridgeConfig.DEFAULT_ZONE,
            null,
            Duration.ofMinutes(2),
            Map.of(),
            List.of());
    try (FakeWeComServer oncall = new FakeWeComServer(clock, "KEY-oncall");
        FakeWeComServer ops = new FakeWeComServer(clock, "KEY-ops")) {
      oncall.othersSent(20);
      ops.down(true);
      List<RobotDispatcher> dispatchers = new ArrayList<>();
      for (var robot : Map.of("oncall", oncall, "ops", ops).entrySet()) {
        RobotConfig r =
            new RobotConfig(
                robot.getKey(),
                RobotType.WECOM,
                robot.getValue().url(),
                null,
                null,
                null,
                false,
                robot.getKey().equals("oncall") ? 5 : 20, // a tight budget: digests
                List.of(everything),
                null,
                "dashboard-it");
        dispatchers.add(
            Bridges.dispatcher(
                config,
                r,
                Bridges.robot(
                    r,
                    new Bridges.Secrets("KEY-" + robot.getKey(), null),
                    clock,
                    new WebhookClient()),
                clock));
      }
      Map<String, Object> client = new HashMap<>();
      client.put("bootstrap.servers", bootstrap);
      client.put("client.id", "dashboard-it");
      client.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY);
      AlertBridge bridge =
          Bridges.kafka(
              RobotType.WECOM,
              dispatchers,
              client,
              Bridges.defaultGroupId(RobotType.WECOM),
              FabricTopics.ALERTS,
              FabricTopics.DEAD_LETTERS,
              clock);
      long alerts = alertChanges();
      try {
        bridge.start();
        BooleanSupplier settled =
            () ->
                dispatchers.stream()
                    .allMatch(
                        d ->
                            d.pendingCount() == 0
                                && d.metrics().alertsDelivered.get() + d.metrics().undelivered.get()
                                    == alerts);
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!settled.getAsBoolean()) {
          assertTrue(
              System.nanoTime() < deadline,
              "bridge not settled; "
                  + dispatchers.stream()
                      .map(d -> d.name() + " " + d.metrics().snapshot())
                      .toList());
          bridge.pollOnce(Duration.ofMillis(50));
          Instant next = clock.instant().plusSeconds(2);
          for (RobotDispatcher d : dispatchers) {
            Instant wake = d.nextWakeAt();
            if (wake != null && wake.isAfter(clock.instant()) && wake.isBefore(next)) {
              next = wake;
            }
          }
          clock.set(next);
        }
        bridge.pollOnce(Duration.ofMillis(50)); // commits the last deliveries
      } finally {
        bridge.close(); // publishes the final counters
      }
      bridgeTo = clock.instant();
      RobotDispatcher first =
          dispatchers.get(0).name().equals("oncall") ? dispatchers.get(0) : dispatchers.get(1);
      assertEquals(1, first.metrics().throttled.get(), first.metrics().snapshot().toString());
      assertTrue(first.metrics().alertsDigested.get() > 0, first.metrics().snapshot().toString());
      assertEquals(0, oncall.duringLockout().size());
    }
  }

  /** Distinct (alert, state) changes on the scenario's fabric.alerts: what each robot settles. */
  private static long alertChanges() {
    AvroDeserializer<Alert> decoder = new AvroDeserializer<>(Alert.class);
    decoder.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY), false);
    Set<String> changes = new TreeSet<>();
    for (ProducerRecord<String, byte[]> r : produced) {
      if (r.topic().equals(FabricTopics.ALERTS)) {
        Alert a = decoder.deserialize(r.topic(), r.value());
        changes.add(a.getState() + "|" + a.getAlertId());
      }
    }
    return changes.size();
  }

  private static long count(String topic) {
    return produced.stream().filter(r -> r.topic().equals(topic)).count();
  }

  /** The sink wrote every robot's final counters (taken when the bridge stopped). */
  private static boolean bridgeCountersWritten(List<SinkPoint> points) {
    Set<String> robots = new TreeSet<>();
    for (SinkPoint p : points) {
      if (p.measurement().equals(InfluxSchema.PIPELINE_BRIDGE)
          && p.timeMs() == bridgeTo.toEpochMilli()) {
        robots.add(p.tags().get(InfluxSchema.TAG_ROBOT));
      }
    }
    return robots.containsAll(ROBOTS);
  }

  @AfterAll
  static void stopTheStore() {
    if (influx != null) {
      influx.close();
    }
  }

  @Test
  void everyPanelAnnotationAndVariableQueryRunsAndReturnsData() throws Exception {
    List<String> failures = new ArrayList<>();
    int run = 0;
    for (Dashboards.Dashboard dashboard : Dashboards.load(dashboardsDir())) {
      for (Dashboards.Query query : dashboard.queries()) {
        String influxql = substitute(query.influxql(), rangeOf(query.influxql()));
        JsonNode result = influx.query(DB, influxql);
        run++;
        if (result.has("error")) {
          failures.add(query + "\n    -> error " + result.get("error").asText());
        } else if (!hasData(result)) {
          failures.add(query + "\n    -> no data for " + influxql);
        }
      }
    }
    assertTrue(run > 0, "no query in " + dashboardsDir());
    System.out.printf("%d dashboard queries ran against influxd%n", run);
    assertTrue(
        failures.isEmpty(),
        failures.size() + " of " + run + " queries failed:\n" + String.join("\n", failures));
  }

  @Test
  void everyQueryNamesOnlyMeasurementsFieldsAndTagsTheSinkWrote() throws Exception {
    Map<String, Set<String>> names = new TreeMap<>();
    for (SinkPoint p : written) {
      Set<String> known = names.computeIfAbsent(p.measurement(), m -> new TreeSet<>());
      known.addAll(p.fields().keySet());
      known.addAll(p.tags().keySet());
    }
    // fields the sink writes whenever nvidia-smi reports them (the simulated H100s print [N/A]
    // for retired pages, which row remapping replaced)
    names.get(InfluxSchema.GPU).addAll(InfluxSchema.GPU_FIELDS);
    List<String> failures = new ArrayList<>();
    for (Dashboards.Dashboard dashboard : Dashboards.load(dashboardsDir())) {
      for (Dashboards.Query query : dashboard.queries()) {
        for (String problem : InfluxQlNames.problems(query.influxql(), names)) {
          failures.add(query + "\n    -> " + problem);
        }
      }
    }
    assertTrue(failures.isEmpty(), String.join("\n", failures));
  }

  @Test
  void theStormAnnotationMarksTheStormOriginOfTheScenario() throws Exception {
    InjectedFault storm =
        scenario.faults.stream()
            .filter(f -> f.kind() == FaultKind.PFC_PAUSE_STORM)
            .findFirst()
            .orElseThrow();
    Dashboards.Query origins =
        Dashboards.load(dashboardsDir()).stream()
            .filter(d -> d.uid().equals("fabricpulse-pfc-ecn"))
            .flatMap(d -> d.queries().stream())
            .filter(q -> q.where().equals("annotation Storm origins"))
            .findFirst()
            .orElseThrow();
    JsonNode result = influx.query(DB, substitute(origins.influxql(), rangeOf(origins.influxql())));
    List<String> nodes = new ArrayList<>();
    for (JsonNode row : result.path("series").path(0).path("values")) {
      nodes.add(row.get(2).asText());
    }
    assertEquals(List.of(storm.node()), nodes, result.toString());
  }

  /**
   * The switch/ISL dashboard over {@link SwitchPortScenario}: each panel shows the port of its
   * fault (symbol errors and link error recovery on the 1X ISL leaf01 port 8, xmit wait over 10 %
   * on the ISL leaf01 port 7, link downs on the host link leaf01 port 1), the ISLs apart from the
   * host links with what both ends support, the worst port first, and the fabric alerts with the
   * port at the other end of their cable.
   */
  @Test
  void theSwitchIslDashboardShowsTheFaultsOfTheSwitchPorts() throws Exception {
    Map<String, Double> symbolErrors = maxByPort(panel("Symbol errors per switch port"));
    assertTrue(symbolErrors.get("leaf01 port 8") >= 10, symbolErrors.toString());
    assertEquals(0.0, symbolErrors.get("leaf01 port 7"), symbolErrors.toString());
    Map<String, Double> recovery = maxByPort(panel("Link error recovery per switch port"));
    assertTrue(recovery.get("leaf01 port 8") > 0, recovery.toString());
    Map<String, Double> downed = maxByPort(panel("Link downed per switch port"));
    assertTrue(downed.get("leaf01 port 1") >= 1, downed.toString());
    assertEquals(0.0, downed.get("leaf01 port 2"), downed.toString());
    Map<String, Double> wait = maxByPort(panel("Xmit wait (congestion) per switch port"));
    assertTrue(
        wait.get("leaf01 port 7") >= 0.1 && wait.get("leaf01 port 7") < 0.25, wait.toString());
    assertEquals(0.0, wait.get("leaf01 port 8"), wait.toString());
    Map<String, Double> speed = maxByPort(panel("Speed per switch port"));
    assertEquals(
        Map.of(
            "leaf01 port 1",
            10.0,
            "leaf01 port 2",
            10.0,
            "leaf01 port 7",
            10.0,
            "leaf01 port 8",
            2.5),
        speed);
    assertTrue(
        symbolErrors.keySet().stream().noneMatch(p -> p.startsWith("gpu")),
        "host ports on the switch dashboard: " + symbolErrors.keySet());

    Map<String, List<String>> isls = linkRows(panel("ISLs (switch to switch)"));
    assertEquals(
        Map.of(
            "leaf01 port 7 <-> spine01 port 1", List.of("4", "4", "10", "12", "120", "1"),
            "leaf01 port 8 <-> spine01 port 2", List.of("1", "1", "2.5", "12", "120", "1"),
            "leaf02 port 7 <-> spine01 port 3", List.of("4", "4", "10", "12", "120", "1")),
        isls);
    Map<String, List<String>> hosts = linkRows(panel("Host links (switch to HCA)"));
    assertEquals(
        Set.of(
            "gpu001 mlx5_0 port 1 <-> leaf01 port 1",
            "gpu002 mlx5_0 port 1 <-> leaf01 port 2",
            "gpu003 mlx5_0 port 1 <-> leaf02 port 1"),
        hosts.keySet());

    JsonNode worst = panel("Worst switch ports");
    String worstPort = null;
    double most = -1;
    for (JsonNode series : worst.path("series")) {
      double errors = series.path("values").path(0).path(1).asDouble();
      if (errors > most) {
        most = errors;
        worstPort =
            series.path("tags").path("node").asText()
                + " port "
                + series.path("tags").path("port").asText();
      }
    }
    assertEquals("leaf01 port 8", worstPort, worst.toString());

    JsonNode alerts = panel("Active fabric alerts");
    Map<String, String> peers = new TreeMap<>();
    JsonNode columns = alerts.path("series").path(0).path("columns");
    List<String> names = new ArrayList<>();
    columns.forEach(c -> names.add(c.asText()));
    for (JsonNode row : alerts.path("series").path(0).path("values")) {
      if (row.get(names.indexOf("node")).asText().equals("leaf01")) {
        peers.put(
            row.get(names.indexOf("kind")).asText()
                + " leaf01 port "
                + row.get(names.indexOf("port")).asText(),
            row.get(names.indexOf("peer")).asText());
      }
    }
    assertEquals("spine01 port 1", peers.get("XMIT_WAIT leaf01 port 7"), peers.toString());
    assertEquals("spine01 port 2", peers.get("PHY_ERRORS leaf01 port 8"), peers.toString());
    assertEquals("gpu001 mlx5_0 port 1", peers.get("LINK_FLAP leaf01 port 1"), peers.toString());
  }

  /**
   * The same dashboard over the demo fleet's own fat tree (cluster {@code demo} of the fault
   * scenario: fabric01's sweeps of 8 leaves and 4 spines, {@code DemoFaults.scheduleIslFaults}):
   * the dirty leaf03-spine02 cable is the worst symbol-error port at its spine end, the flapping
   * leaf02-spine01 cable counts link downs at both ends and no other ISL does, and the ISL and host
   * link tables hold the whole tree, with the Ethernet fabric's ISLs that the switches' LLDP shows.
   */
  @Test
  void theSwitchIslDashboardShowsTheIslFaultsOfTheDemoFatTree() throws Exception {
    String cluster = "demo";
    Map<String, Double> symbolErrors = maxByPort(panel("Symbol errors per switch port", cluster));
    String dirtiest =
        symbolErrors.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    assertEquals("spine02 port 3", dirtiest, symbolErrors.toString());
    assertTrue(symbolErrors.get("spine02 port 3") > 0, symbolErrors.toString());
    assertEquals(0.0, symbolErrors.get("leaf01 port 17"), symbolErrors.toString());
    Map<String, Double> downed = maxByPort(panel("Link downed per switch port", cluster));
    assertTrue(downed.get("leaf02 port 17") >= 1, downed.toString());
    assertTrue(downed.get("spine01 port 2") >= 1, downed.toString());
    assertEquals(0.0, downed.get("leaf03 port 17"), downed.toString());
    assertEquals(0.0, downed.get("spine04 port 8"), downed.toString());
    Map<String, List<String>> isls = linkRows(panel("ISLs (switch to switch)", cluster));
    // every leaf to every spine of the IB fat tree, and of the Ethernet fabric under the RoCE NICs
    // (16 nodes: two racks, so two RoCE leaves, each cabled to both RoCE spines, seen over LLDP)
    assertEquals(8 * 4 + 2 * 2, isls.size(), isls.keySet().toString());
    assertTrue(isls.containsKey("leaf04 port 19 <-> spine03 port 4"), isls.keySet().toString());
    assertTrue(
        isls.containsKey("roce-leaf02 port 50 <-> roce-spine02 port 2"), isls.keySet().toString());
    Map<String, List<String>> hosts = linkRows(panel("Host links (switch to HCA)", cluster));
    assertTrue(
        hosts.containsKey("gpu002 mlx5_1 port 1 <-> leaf02 port 2"), hosts.keySet().toString());
  }

  private static JsonNode panel(String title) throws Exception {
    return panel(title, SwitchPortScenario.CLUSTER);
  }

  /**
   * The first target of the switch/ISL dashboard's panel {@code title}, run over the store with the
   * dashboard's cluster variable set to {@code cluster}, as an operator picks it.
   */
  private static JsonNode panel(String title, String cluster) throws Exception {
    Dashboards.Query query =
        Dashboards.load(dashboardsDir()).stream()
            .filter(d -> d.uid().equals("fabricpulse-switch-isl"))
            .flatMap(d -> d.queries().stream())
            .filter(q -> q.where().equals("panel '" + title + "' A"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no panel " + title));
    String influxql = query.influxql().replace("$cluster", cluster);
    JsonNode result = influx.query(DB, substitute(influxql, rangeOf(influxql)));
    assertTrue(!result.has("error") && result.has("series"), title + ": " + result);
    return result;
  }

  /** Per series ({@code node port N}) the largest value of its first column after time. */
  private static Map<String, Double> maxByPort(JsonNode result) {
    Map<String, Double> max = new TreeMap<>();
    for (JsonNode series : result.path("series")) {
      String port =
          series.path("tags").path("node").asText()
              + " port "
              + series.path("tags").path("port").asText();
      for (JsonNode row : series.path("values")) {
        if (!row.get(1).isNull()) {
          max.merge(port, row.get(1).asDouble(), Math::max);
        }
      }
    }
    return max;
  }

  /**
   * Per link ({@code end a <-> end b}) its widths, rate, possible width and rate, below capability.
   */
  private static Map<String, List<String>> linkRows(JsonNode result) {
    Map<String, List<String>> rows = new TreeMap<>();
    for (JsonNode series : result.path("series")) {
      List<String> names = new ArrayList<>();
      series.path("columns").forEach(c -> names.add(c.asText()));
      JsonNode row = series.path("values").path(0);
      List<String> values = new ArrayList<>();
      for (String column :
          List.of(
              "width a",
              "width b",
              "rate",
              "could be width",
              "could be rate",
              "below capability")) {
        values.add(number(row.get(names.indexOf(column)).asDouble()));
      }
      rows.put(
          row.get(names.indexOf("end a")).asText()
              + " <-> "
              + row.get(names.indexOf("end b")).asText(),
          values);
    }
    return rows;
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  /** True when a statement returned at least one series with a non-null value. */
  private static boolean hasData(JsonNode result) {
    for (JsonNode series : result.path("series")) {
      for (JsonNode row : series.path("values")) {
        for (int i = 1; i < row.size(); i++) {
          if (!row.get(i).isNull()) {
            return true;
          }
        }
        if (row.size() == 1 && !row.get(0).isNull()) {
          return true; // SHOW TAG VALUES-like single column
        }
      }
    }
    return false;
  }

  /**
   * The fabric's measurements carry the scenario's event time; the pipeline's own ones
   * (fabricpulse_*) the wall clock of the sink's run, the bridge's the clock of its run.
   */
  private static Instant[] rangeOf(String influxql) {
    if (influxql.contains("\"" + InfluxSchema.PIPELINE_BRIDGE + "\"")) {
      return new Instant[] {bridgeFrom.minusSeconds(1), bridgeTo.plusSeconds(1)};
    }
    if (influxql.contains("\"fabricpulse_")) {
      return new Instant[] {healthFrom.minusSeconds(1), healthTo.plusSeconds(1)};
    }
    return new Instant[] {FaultScenario.START, scenario.end.plusSeconds(60)};
  }

  /**
   * What Grafana does before sending a query: {@code $timeFilter} becomes the range in epoch
   * milliseconds, {@code $__interval} an interval for about 50 points, and every template variable
   * its "All" value {@code .*} (the dashboards use them as {@code =~ /^$var$/}).
   */
  static String substitute(String influxql, Instant[] range) {
    long from = range[0].toEpochMilli();
    long to = range[1].toEpochMilli();
    long intervalS = Math.max(1, (to - from) / 1000 / 50);
    return influxql
        .replace("$timeFilter", "time >= " + from + "ms and time <= " + to + "ms")
        .replace("$__interval", intervalS + "s")
        .replaceAll("\\$(cluster|node|device|gpu|job|kind|topic|robot|switch)\\b", ".*");
  }

  static Path dashboardsDir() {
    return repoRoot().resolve("dashboards");
  }

  private static void produce(String bootstrap) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
    // Just after creation the broker may refuse a partition's first batches (NOT_LEADER) though
    // metadata names it leader; the idempotent producer then got stuck on OUT_OF_ORDER_SEQUENCE
    // here. One request in flight keeps the retries in order without it.
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
      // fresh topics: a produce before the broker leads every partition is refused and retried
      // out of order, so wait until each partition has its leader (bounded)
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      for (TopicSpec spec : FabricTopics.defaults().all()) {
        while (producer.partitionsFor(spec.name()).stream().anyMatch(p -> p.leader() == null)
            || producer.partitionsFor(spec.name()).size() < spec.partitions()) {
          assertTrue(System.nanoTime() < deadline, spec.name() + " has no leader");
          TimeUnit.MILLISECONDS.sleep(50);
        }
      }
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (ProducerRecord<String, byte[]> record : produced) {
        sent.add(producer.send(record));
      }
      producer.flush();
      for (var f : sent) {
        f.get();
      }
    }
  }

  private static KafkaConsumer<String, byte[]> consumer(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, InfluxSink.DEFAULT_GROUP_ID);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    return new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
  }

  static Path repoRoot() {
    return FaultScenario.repoRoot();
  }
}
