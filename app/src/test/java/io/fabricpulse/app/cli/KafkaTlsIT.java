package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.app.testing.TestCertificateAuthority;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.bridges.testing.FakeWeComServer;
import io.fabricpulse.bridges.testing.TestAlerts;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.serde.AvroSerializer;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.sinks.questdb.EmbeddedQuestDb;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 12, security: the embedded broker with TLS listeners (SSL, and SASL_SSL with SCRAM-SHA-512)
 * on 127.0.0.1 whose certificate a CA made in the test signed. Every command that talks to Kafka
 * connects with the client settings of README.md ("Kafka client settings: TLS and SASL/SCRAM"): the
 * node agent from {@code KAFKA_*} and {@code FABRICPULSE_*} variables, the others from a {@code
 * --kafka-config} file; all over SASL_SSL (SCRAM-SHA-512), {@code export} over SSL alone. A sysfs
 * capture goes collect -> streams -> sink into a real QuestDB, an alert through the WeCom bridge to
 * a local robot, and {@code query} and {@code export} read the topics back; the live status page
 * answers with its token. Every output, the status page and every {@code --help} are scanned for
 * the run's secrets. A wrong password and a CA the client does not trust each end every command
 * with one line and exit 2.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaTlsIT {
  private static final String USER = "fabricpulse";
  private static final String REGISTRY = "mock://kafka-tls-it";

  /** The run's secrets: none may appear in any output. */
  private static final Map<String, String> SECRETS = new LinkedHashMap<>();

  private static final String SCRAM_PASSWORD = secret("SASL password", "tlsItScramPw3e91");
  private static final String TRUST_PASSWORD = secret("truststore password", "tlsItTrustPw77c2");
  private static final String KEYSTORE_PASSWORD = secret("keystore password", "tlsItKeyPw0b5d");
  private static final String STATUS_TOKEN = secret("status page token", "tlsItStatusTok5a6f");
  private static final String WECOM_KEY = secret("WeCom key", "tlsItWecomKey1c4e");

  private static String secret(String what, String value) {
    SECRETS.put(what, value);
    return value;
  }

  @TempDir static Path tmp;
  private EmbeddedKafkaBroker broker;
  private EmbeddedQuestDb store;
  private Path truststore;
  private Path untrustedTruststore;

  /** Everything every command printed, and the status page's answers: scanned at the end. */
  private final List<String> outputs = new ArrayList<>();

  /** The JVM's stderr, where the logs go (slf4j-simple looks System.err up at every line). */
  private final java.io.ByteArrayOutputStream logs = new java.io.ByteArrayOutputStream();

  private java.io.PrintStream originalErr;

  /** The client certificate of the mutual-TLS listener, signed by the test CA. */
  private EmbeddedKafkaBroker.Tls clientKeystore;

  @BeforeAll
  void start() throws Exception {
    originalErr = System.err;
    java.io.OutputStream tee =
        new java.io.OutputStream() {
          @Override
          public void write(int b) {
            originalErr.write(b);
            synchronized (logs) {
              logs.write(b);
            }
          }

          @Override
          public void write(byte[] b, int off, int len) {
            originalErr.write(b, off, len);
            synchronized (logs) {
              logs.write(b, off, len);
            }
          }
        };
    System.setErr(new java.io.PrintStream(tee, true, java.nio.charset.StandardCharsets.UTF_8));
    long started = System.nanoTime();
    TestCertificateAuthority ca =
        TestCertificateAuthority.create(
            tmp.resolve("ca"), "fabricpulse test CA", KEYSTORE_PASSWORD);
    truststore = ca.truststore(TRUST_PASSWORD);
    untrustedTruststore =
        TestCertificateAuthority.create(tmp.resolve("other-ca"), "another CA", KEYSTORE_PASSWORD)
            .truststore(TRUST_PASSWORD);
    clientKeystore = ca.clientKeystore("fabricpulse-client");
    broker =
        EmbeddedKafkaBroker.startWithTls(
            tmp.resolve("broker"),
            Duration.ofMinutes(2),
            ca.brokerKeystore(),
            new EmbeddedKafkaBroker.Tls(truststore, "PKCS12", TRUST_PASSWORD),
            USER,
            SCRAM_PASSWORD.toCharArray());
    // the topics, created through the broker's own plaintext listener (not what is tested)
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
      TopicBootstrap.ensure(admin, FabricTopics.defaults("", 1), (short) 1);
    }
    store = EmbeddedQuestDb.start(tmp.resolve("questdb"));
    System.out.printf(
        "CA, broker (SSL %s, SASL_SSL %s) and QuestDB ready in %d ms%n",
        broker.sslBootstrapServers(),
        broker.saslSslBootstrapServers(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  @AfterAll
  void stop() {
    System.setErr(originalErr);
    if (store != null) {
      store.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  /** README's settings for SASL/SCRAM over TLS, as the environment holds them. */
  private Map<String, String> saslSslEnvironment(String password, Path trust) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", broker.saslSslBootstrapServers());
    env.put("KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
    env.put("KAFKA_SASL_MECHANISM", EmbeddedKafkaBroker.SCRAM_MECHANISM);
    env.put("KAFKA_SASL_JAAS_CONFIG", jaas(password));
    env.put("KAFKA_SSL_TRUSTSTORE_LOCATION", trust.toString());
    env.put("KAFKA_SSL_TRUSTSTORE_TYPE", "PKCS12");
    env.put("KAFKA_SSL_TRUSTSTORE_PASSWORD", TRUST_PASSWORD);
    return env;
  }

  private static String jaas(String password) {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + USER
        + "\" password=\""
        + password
        + "\";";
  }

  /** README's settings for SASL/SCRAM over TLS, as a --kafka-config file. */
  private Path saslSslConfig(String name, String password, Path trust) throws Exception {
    return Files.writeString(
        tmp.resolve(name),
        String.join(
            "\n",
            "# as README.md documents, SASL/SCRAM over TLS",
            "bootstrap.servers=" + broker.saslSslBootstrapServers(),
            "security.protocol=SASL_SSL",
            "sasl.mechanism=" + EmbeddedKafkaBroker.SCRAM_MECHANISM,
            "sasl.jaas.config=" + jaas(password),
            "ssl.truststore.location=" + trust,
            "ssl.truststore.type=PKCS12",
            "ssl.truststore.password=" + TRUST_PASSWORD,
            "schema.registry.url=" + REGISTRY,
            ""));
  }

  /** TLS only (security.protocol=SSL): the broker's certificate checked, no SASL. */
  private Path sslConfig(String name) throws Exception {
    return Files.writeString(
        tmp.resolve(name),
        String.join(
            "\n",
            "bootstrap.servers=" + broker.sslBootstrapServers(),
            "security.protocol=SSL",
            "ssl.truststore.location=" + truststore,
            "ssl.truststore.type=PKCS12",
            "ssl.truststore.password=" + TRUST_PASSWORD,
            "schema.registry.url=" + REGISTRY,
            ""));
  }

  /**
   * Mutual TLS (README's client-certificate settings): the broker's certificate checked and the
   * client's own presented; without {@code keystore} only the first half.
   */
  private Path mtlsConfig(String name, EmbeddedKafkaBroker.Tls keystore) throws Exception {
    List<String> lines =
        new ArrayList<>(
            List.of(
                "bootstrap.servers=" + broker.mtlsBootstrapServers(),
                "security.protocol=SSL",
                "ssl.truststore.location=" + truststore,
                "ssl.truststore.type=PKCS12",
                "ssl.truststore.password=" + TRUST_PASSWORD,
                "schema.registry.url=" + REGISTRY));
    if (keystore != null) {
      lines.add("ssl.keystore.location=" + keystore.keystore());
      lines.add("ssl.keystore.type=" + keystore.type());
      lines.add("ssl.keystore.password=" + keystore.password());
      lines.add("ssl.key.password=" + keystore.password());
    }
    lines.add("");
    return Files.writeString(tmp.resolve(name), String.join("\n", lines));
  }

  private Path bridgeConfig(String url) throws Exception {
    Files.writeString(tmp.resolve("wecom.key"), WECOM_KEY + "\n");
    return Files.writeString(
        tmp.resolve("bridge.yaml"),
        String.join(
            "\n",
            "language: en",
            "robots:",
            "  - name: oncall",
            "    type: wecom",
            "    url: " + url,
            "    key_file: wecom.key",
            "    routes: [{}]",
            ""));
  }

  /** A /proc with the boot id the agent reads (its absence would be a warning of its own). */
  private static Path procRoot() {
    Path proc = tmp.resolve("proc");
    try {
      Path bootId = proc.resolve("sys/kernel/random/boot_id");
      Files.createDirectories(bootId.getParent());
      Files.writeString(bootId, "5f1c1c5e-7d2b-4c4e-9a51-3d0b8e7c2a11\n");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return proc;
  }

  /** The node agent's settings besides Kafka: one sysfs capture, sampled every second. */
  private Map<String, String> collectorEnvironment(Map<String, String> kafka) {
    Map<String, String> env = new LinkedHashMap<>(kafka);
    env.put("FABRICPULSE_CLUSTER", "tls");
    env.put("FABRICPULSE_NODE", "tlsnode");
    env.put("FABRICPULSE_PROC_ROOT", procRoot().toString());
    env.put("FABRICPULSE_SCHEMA_REGISTRY_URL", REGISTRY);
    env.put(
        "FABRICPULSE_SOURCES_SYSFS_ROOT",
        Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp.resolve("sysfs")).toString());
    env.put("FABRICPULSE_SOURCES_SYSFS_INTERVAL", "1s");
    env.put("FABRICPULSE_SOURCES_ETHTOOL_ENABLED", "false");
    env.put("FABRICPULSE_SOURCES_GPU_ENABLED", "false");
    env.put("FABRICPULSE_SOURCES_KMSG_ENABLED", "false");
    return env;
  }

  @Test
  void everyCommandRunsOverTls() throws Exception {
    long started = System.nanoTime();
    Path saslSsl = saslSslConfig("sasl-ssl.properties", SCRAM_PASSWORD, truststore);
    Path ssl = sslConfig("ssl.properties");
    Path statusToken = Files.writeString(tmp.resolve("status-token"), STATUS_TOKEN + "\n");
    try (FakeWeComServer robot = new FakeWeComServer(Clock.systemUTC(), WECOM_KEY)) {
      Path bridgeYaml = bridgeConfig(robot.url());
      Running streams =
          Running.start(
              "streams",
              "--kafka-config",
              saslSsl.toString(),
              "--replication-factor",
              "1",
              "--partitions",
              "1",
              "--guarantee",
              "AT_LEAST_ONCE",
              "--state-dir",
              tmp.resolve("streams").toString(),
              "--status-port",
              "0",
              "--status-token-file",
              statusToken.toString());
      Running sink =
          Running.start(
              "sink", "influx", "--kafka-config", saslSsl.toString(), "--influx-url", store.url());
      Running bridge =
          Running.start(
              "bridge",
              "wecom",
              "--config",
              bridgeYaml.toString(),
              "--kafka-config",
              saslSsl.toString());
      Running collect =
          Running.start(
              collectorEnvironment(saslSslEnvironment(SCRAM_PASSWORD, truststore)), "collect");
      List<Running> services = List.of(streams, sink, bridge, collect);
      try {
        await("streams RUNNING", () -> streams.out().contains("RUNNING"), services);

        // collect -> fabric.raw.port-counters -> streams -> fabric.rates -> sink -> QuestDB
        var rows =
            store
                .awaitRows(
                    "select * from fabric_port_rates where node = 'tlsnode' order by timestamp",
                    2,
                    Duration.ofSeconds(180))
                .rows();
        assertEquals("mlx5_0", rows.get(0).get("device"), rows.toString());

        // an alert over TLS (SSL listener) -> bridge (SASL_SSL) -> the robot
        produceAlertOverTls();
        await(
            "the alert at the robot",
            () ->
                robot.accepted().stream().anyMatch(r -> r.body().toString().contains("tlsbridge")),
            services);

        // the live status page, with its token
        Matcher page =
            Pattern.compile("status page: (http://127\\.0\\.0\\.1:\\d+/)").matcher(streams.out());
        assertTrue(page.find(), streams.out());
        HttpClient http = HttpClient.newHttpClient();
        assertEquals(401, get(http, page.group(1) + "api/status", null).statusCode());
        await(
            "the status page's rates",
            () ->
                Pattern.compile("\"updates\":[1-9]")
                    .matcher(get(http, page.group(1) + "api/status", STATUS_TOKEN).body())
                    .find(),
            services);
        HttpResponse<String> html = get(http, page.group(1), STATUS_TOKEN);
        assertEquals(200, html.statusCode());
        outputs.add(html.body());
        outputs.add(get(http, page.group(1) + "api/status", STATUS_TOKEN).body());
      } finally {
        collect.stopCollect();
        streams.stopStreams();
        sink.stopSink();
        bridge.stopBridge();
      }
      for (Running service : services) {
        assertEquals(0, service.exit(), service.name + ":\n" + service.err());
        outputs.add(service.out());
        outputs.add(service.err());
      }
    }

    Instant now = Instant.now();
    CliRun query =
        CliRun.of(
            "query",
            "--kafka-config",
            saslSsl.toString(),
            "--topic",
            FabricTopics.RATES,
            "--where",
            "node == \"tlsnode\"",
            "--limit",
            "1");
    assertEquals(ExitCodes.OK, query.exit(), query.stderr());
    assertTrue(query.stdout().contains("tlsnode"), query.stdout());
    CliRun export =
        CliRun.of(
            "export",
            "--kafka-config",
            ssl.toString(),
            "--from",
            now.minus(10, ChronoUnit.MINUTES).toString(),
            "--to",
            now.plus(1, ChronoUnit.MINUTES).toString(),
            "--node",
            "tlsnode");
    assertEquals(ExitCodes.OK, export.exit(), export.stderr());
    long exported = export.stdout().lines().filter(l -> l.contains("tlsnode")).count();
    assertTrue(exported >= 2, export.stdout());
    for (CliRun run : List.of(query, export)) {
      outputs.add(run.stdout());
      outputs.add(run.stderr());
    }
    for (String command :
        List.of("collect", "streams", "sink influx", "bridge wecom", "query", "export", "demo")) {
      List<String> args = new ArrayList<>(List.of(command.split(" ")));
      args.add("--help");
      outputs.add(CliRun.of(args.toArray(String[]::new)).stdout());
    }

    synchronized (logs) {
      outputs.add(logs.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
    List<String> leaks = leaks(outputs);
    assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    System.out.printf(
        "over TLS: %d rate rows in QuestDB from collect via streams and sink, the alert at the"
            + " robot, query and export (%d records); %d outputs (%d bytes) scanned for %d secrets,"
            + " %d leaks; %d s%n",
        store.query("select * from fabric_port_rates where node = 'tlsnode'").rows().size(),
        exported,
        outputs.size(),
        outputs.stream().mapToInt(String::length).sum(),
        SECRETS.size(),
        leaks.size(),
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
  }

  @Test
  void mutualTlsWithAClientCertificateAndOneLineWithout() throws Exception {
    Path withCertificate = mtlsConfig("mtls.properties", clientKeystore);
    Alert alert = TestAlerts.storm("mtls-1", "mtlsnode");
    produceAlert(withCertificate, alert);
    CliRun query =
        CliRun.of(
            "query",
            "--kafka-config",
            withCertificate.toString(),
            "--topic",
            FabricTopics.ALERTS,
            "--where",
            "node == \"mtlsnode\"",
            "--limit",
            "1");
    assertEquals(ExitCodes.OK, query.exit(), query.stderr());
    assertTrue(query.stdout().contains("mtlsnode"), query.stdout());
    List<String> leaks = leaks(List.of(query.stdout(), query.stderr()));
    assertTrue(leaks.isEmpty(), String.join("\n", leaks));

    // the listener requires the certificate: without it every command says so in one line
    Path without = mtlsConfig("mtls-no-certificate.properties", null);
    List<String[]> commands = new ArrayList<>();
    commands.add(
        new String[] {
          "export",
          "--from",
          "2026-12-01T00:00:00Z",
          "--to",
          "2026-12-01T00:01:00Z",
          "--kafka-config",
          without.toString()
        });
    commands.add(
        new String[] {
          "query", "--topic", FabricTopics.ALERTS, "--kafka-config", without.toString()
        });
    List<String> said = children(commands, Map.of(), "TLS handshake with Kafka failed: ");
    for (String line : said) {
      assertTrue(
          line.contains("requires a client certificate") && line.contains("ssl.keystore"), line);
      System.out.println(line);
    }
  }

  @Test
  void aWrongPasswordIsOneLineAndExit2ForEveryCommand() throws Exception {
    String wrong = secret("wrong SASL password", "tlsItWrongPw9d0c");
    Path config = saslSslConfig("wrong-password.properties", wrong, truststore);
    refusedEverywhere(
        config, saslSslEnvironment(wrong, truststore), "Kafka refused the credentials: ");
  }

  @Test
  void anUntrustedCaIsOneLineAndExit2ForEveryCommand() throws Exception {
    Path config = saslSslConfig("untrusted.properties", SCRAM_PASSWORD, untrustedTruststore);
    refusedEverywhere(
        config,
        saslSslEnvironment(SCRAM_PASSWORD, untrustedTruststore),
        "TLS handshake with Kafka failed: ");
  }

  /**
   * Every command in a child JVM, as the launcher runs it (its stderr holds the logs of Kafka's
   * clients too, at the jar's levels): the node agent with {@code env}, the others with {@code
   * config}.
   */
  private void refusedEverywhere(Path config, Map<String, String> env, String expected)
      throws Exception {
    Path bridgeYaml = bridgeConfig("http://127.0.0.1:9" + FakeWeComServer.PATH);
    String from = "2026-12-01T00:00:00Z";
    String to = "2026-12-01T00:01:00Z";
    List<String[]> commands = new ArrayList<>();
    commands.add(new String[] {"export", "--from", from, "--to", to});
    commands.add(new String[] {"query", "--topic", FabricTopics.RATES});
    commands.add(new String[] {"streams", "--state-dir", tmp.resolve("refused").toString()});
    commands.add(new String[] {"sink", "influx", "--influx-url", store.url()});
    commands.add(new String[] {"bridge", "wecom", "--config", bridgeYaml.toString()});
    for (int i = 0; i < commands.size(); i++) {
      List<String> args = new ArrayList<>(List.of(commands.get(i)));
      args.addAll(List.of("--kafka-config", config.toString()));
      commands.set(i, args.toArray(String[]::new));
    }
    List<String> said = new ArrayList<>(children(commands, Map.of(), expected));
    said.addAll(
        children(List.<String[]>of(new String[] {"collect"}), collectorEnvironment(env), expected));
    assertEquals(6, said.size(), said.toString());
    said.forEach(System.out::println);
  }

  /** Runs {@code commands} in one child JVM; per command its one refusal line. */
  private static List<String> children(
      List<String[]> commands, Map<String, String> env, String expected) throws Exception {
    // the node agent's settings come from env alone: none of this JVM's
    Map<String, String> childEnv = new LinkedHashMap<>();
    System.getenv().keySet().stream()
        .filter(k -> k.startsWith("KAFKA_") || k.startsWith("FABRICPULSE_"))
        .forEach(k -> childEnv.put(k, null));
    childEnv.putAll(env);
    Path dir = Files.createTempDirectory(tmp, "child");
    Path out = dir.resolve("stdout.txt");
    Path err = dir.resolve("stderr.txt");
    Process child = SentinelCommands.start(commands, childEnv, out, err);
    boolean done = child.waitFor(4, TimeUnit.MINUTES);
    if (!done) {
      child.destroyForcibly();
    }
    String stdout = Files.readString(out);
    String stderr = Files.readString(err);
    assertTrue(done && child.exitValue() == 0, stdout + stderr);
    List<String> said = new ArrayList<>();
    String[] outs = stdout.split("(?m)^=== fabricpulse ");
    String[] errs = stderr.split("(?m)^=== fabricpulse ");
    assertEquals(commands.size() + 1, errs.length, stderr);
    for (int i = 1; i < errs.length; i++) {
      String command = errs[i].lines().findFirst().orElse("?");
      Matcher exit = Pattern.compile("(?m)^=== exit (\\d+)$").matcher(outs[i]);
      assertTrue(exit.find(), outs[i]);
      // what the command said, without its header and the agent's INFO lines of its settings
      List<String> lines =
          errs[i]
              .lines()
              .skip(1)
              .filter(l -> !l.contains("[INFO]") && !l.matches("^[a-z_.]+=.*") && !l.isBlank())
              .toList();
      assertEquals(ExitCodes.USAGE, Integer.parseInt(exit.group(1)), command + ":\n" + errs[i]);
      assertEquals(1, lines.size(), command + ":\n" + errs[i]);
      assertTrue(lines.get(0).contains(expected), command + ":\n" + errs[i]);
      List<String> leaks = leaks(List.of(outs[i], errs[i]));
      assertTrue(leaks.isEmpty(), command + ": " + leaks);
      said.add(lines.get(0));
    }
    return said;
  }

  private static List<String> leaks(List<String> outputs) {
    List<String> leaks = new ArrayList<>();
    for (String output : outputs) {
      SECRETS.forEach(
          (what, value) -> {
            int at = output.indexOf(value);
            if (at >= 0) {
              int start = output.lastIndexOf('\n', at) + 1;
              int end = output.indexOf('\n', at);
              leaks.add(what + ": " + output.substring(start, end < 0 ? output.length() : end));
            }
          });
    }
    return leaks;
  }

  private void produceAlertOverTls() throws Exception {
    produceAlert(sslConfig("producer.properties"), TestAlerts.storm("tls-1", "tlsbridge"));
  }

  /** Writes {@code alert} to fabric.alerts with the client settings of {@code config}. */
  private void produceAlert(Path config, Alert alert) throws Exception {
    Properties p = new Properties();
    p.load(Files.newBufferedReader(config));
    p.remove(AvroSerdeConfig.SCHEMA_REGISTRY_URL);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    AvroSerializer<Alert> serializer = new AvroSerializer<>();
    serializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, REGISTRY), false);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      producer
          .send(
              new ProducerRecord<>(
                  FabricTopics.ALERTS,
                  alert.getAlertId(),
                  serializer.serialize(FabricTopics.ALERTS, alert)))
          .get(60, TimeUnit.SECONDS);
    }
  }

  private static HttpResponse<String> get(HttpClient http, String url, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(url + ": " + e, e);
    }
  }

  /** Polls until {@code done}, failing when the deadline passes or a service ended early. */
  private static void await(String what, Supplier<Boolean> done, List<Running> services) {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (!done.get()) {
      for (Running s : services) {
        if (s.exit.isDone()) {
          throw new AssertionError(what + ": " + s.name + " ended:\n" + s.out() + s.err());
        }
      }
      if (System.nanoTime() > deadline) {
        StringBuilder all = new StringBuilder(what + " not within 180 s\n");
        services.forEach(s -> all.append(s.name).append(":\n").append(s.out()).append(s.err()));
        throw new AssertionError(all.toString());
      }
      LockSupport.parkNanos(200_000_000L);
    }
  }

  /** A long-running command in a thread of its own, as the launcher runs it in its process. */
  private static final class Running {
    final String name;
    final CommandLine cli;
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    CompletableFuture<Integer> exit;

    private Running(String name, CommandLine cli) {
      this.name = name;
      this.cli = cli;
    }

    static Running start(String... args) {
      return start(null, args);
    }

    /** With {@code env} as the node agent's environment (collect only). */
    static Running start(Map<String, String> env, String... args) {
      CommandLine cli = FabricPulse.commandLine();
      Running running = new Running(String.join(" ", args), cli);
      cli.setOut(new PrintWriter(running.out, true));
      cli.setErr(new PrintWriter(running.err, true));
      if (env != null) {
        collectCommand(cli).environment = env;
      }
      running.exit = CompletableFuture.supplyAsync(() -> cli.execute(args));
      return running;
    }

    private static CollectCommand collectCommand(CommandLine cli) {
      return (CollectCommand) cli.getSubcommands().get("collect").getCommand();
    }

    private Object leaf(String... path) {
      CommandLine c = cli;
      for (String name : path) {
        c = c.getSubcommands().get(name);
      }
      return c.getCommand();
    }

    String out() {
      return out.toString();
    }

    String err() {
      return err.toString();
    }

    void stopCollect() {
      collectCommand(cli).stop();
    }

    void stopStreams() {
      ((StreamsCommand) leaf("streams")).stop.countDown();
    }

    void stopSink() {
      SinkCommand.Influx sink = (SinkCommand.Influx) leaf("sink", "influx");
      if (sink.sink != null) {
        sink.sink.close();
      }
    }

    void stopBridge() {
      BridgeCommand.Wecom bridge = (BridgeCommand.Wecom) leaf("bridge", "wecom");
      if (bridge.bridge != null) {
        bridge.bridge.close();
      }
    }

    int exit() throws Exception {
      return exit.get(90, TimeUnit.SECONDS);
    }
  }
}
