package io.fabricpulse.app.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka (KRaft, combined broker and controller) running inside this JVM, for
 * {@code demo} and the tests. Every listener binds 127.0.0.1: the Kafka project's cluster test kit
 * is not used because it binds all interfaces, and every server a test starts binds 127.0.0.1 only.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  private static final String HOST = "127.0.0.1";

  /** The SCRAM mechanism of the SASL listener (Kafka's recommended SCRAM). */
  public static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

  private final Path logDir;
  private final int brokerPort;
  private final int controllerPort;
  private final int saslPort;
  private int sslPort;
  private int saslSslPort;
  private int mtlsPort;
  private Tls tls;
  private Tls clientCa;
  private KafkaRaftServer server;

  /**
   * The broker's TLS key material: a keystore holding its key pair and certificate chain (the
   * certificate names 127.0.0.1, so clients' hostname verification passes).
   */
  public record Tls(Path keystore, String type, String password) {
    @Override
    public String toString() {
      return "Tls[keystore=" + keystore + ", type=" + type + ", password=***]";
    }
  }

  private EmbeddedKafkaBroker(Path logDir, int brokerPort, int controllerPort, int saslPort) {
    this.logDir = logDir;
    this.brokerPort = brokerPort;
    this.controllerPort = controllerPort;
    this.saslPort = saslPort;
  }

  /**
   * Formats {@code dataDir} (kept if already formatted) and starts the broker; waits until ready.
   */
  public static EmbeddedKafkaBroker start(Path dataDir, Duration timeout) throws IOException {
    Path logDir = dataDir.resolve("kafka");
    Files.createDirectories(logDir);
    EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(logDir, freePort(), freePort(), 0);
    broker.startServer(timeout);
    return broker;
  }

  /**
   * As {@link #start}, with a second client listener on 127.0.0.1 speaking SASL_PLAINTEXT with
   * {@value #SCRAM_MECHANISM} ({@link #saslBootstrapServers()}), where {@code user} with {@code
   * password} may log in (the credential is created through the plaintext listener once the broker
   * is up). The plaintext listener stays: the broker and controller talk over it.
   */
  public static EmbeddedKafkaBroker startWithScram(
      Path dataDir, Duration timeout, String user, char[] password) throws IOException {
    Path logDir = dataDir.resolve("kafka");
    Files.createDirectories(logDir);
    EmbeddedKafkaBroker broker =
        new EmbeddedKafkaBroker(logDir, freePort(), freePort(), freePort());
    broker.startServer(timeout);
    broker.addScramUser(user, password);
    return broker;
  }

  /**
   * As {@link #startWithScram}, with two more client listeners on 127.0.0.1 that speak TLS with
   * {@code tls}'s key: SSL ({@link #sslBootstrapServers()}) and SASL_SSL with {@value
   * #SCRAM_MECHANISM} ({@link #saslSslBootstrapServers()}). Clients do not present certificates
   * (ssl.client.auth=none). The plaintext listener stays for the broker's own traffic.
   */
  public static EmbeddedKafkaBroker startWithTls(
      Path dataDir, Duration timeout, Tls tls, String user, char[] password) throws IOException {
    return startWithTls(dataDir, timeout, tls, null, user, password);
  }

  /**
   * As above; with a {@code clientCa} (a truststore: its {@code keystore} is the store of the CA
   * certificates clients' certificates must chain to), also a mutual-TLS listener ({@link
   * #mtlsBootstrapServers()}, ssl.client.auth=required): a client without a certificate of that CA
   * fails the handshake.
   */
  public static EmbeddedKafkaBroker startWithTls(
      Path dataDir, Duration timeout, Tls tls, Tls clientCa, String user, char[] password)
      throws IOException {
    Path logDir = dataDir.resolve("kafka");
    Files.createDirectories(logDir);
    EmbeddedKafkaBroker broker =
        new EmbeddedKafkaBroker(logDir, freePort(), freePort(), freePort());
    broker.tls = tls;
    broker.sslPort = freePort();
    broker.saslSslPort = freePort();
    if (clientCa != null) {
      broker.clientCa = clientCa;
      broker.mtlsPort = freePort();
    }
    broker.startServer(timeout);
    broker.addScramUser(user, password);
    return broker;
  }

  /** The mutual-TLS listener's address; only after {@link #startWithTls} with a client CA. */
  public String mtlsBootstrapServers() {
    if (mtlsPort == 0) {
      throw new IllegalStateException("the broker has no mutual-TLS listener (give a client CA)");
    }
    return HOST + ":" + mtlsPort;
  }

  /** The SSL listener's address; only after {@link #startWithTls}. */
  public String sslBootstrapServers() {
    if (sslPort == 0) {
      throw new IllegalStateException("the broker has no TLS listener (start it with TLS)");
    }
    return HOST + ":" + sslPort;
  }

  /** The SASL_SSL listener's address; only after {@link #startWithTls}. */
  public String saslSslBootstrapServers() {
    if (saslSslPort == 0) {
      throw new IllegalStateException("the broker has no TLS listener (start it with TLS)");
    }
    return HOST + ":" + saslSslPort;
  }

  /** The SASL_PLAINTEXT listener's address; only after {@link #startWithScram}. */
  public String saslBootstrapServers() {
    if (saslPort == 0) {
      throw new IllegalStateException("the broker has no SASL listener (start it with SCRAM)");
    }
    return HOST + ":" + saslPort;
  }

  private void addScramUser(String user, char[] password) throws IOException {
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    try (Admin client = Admin.create(admin)) {
      client
          .alterUserScramCredentials(
              java.util.List.of(
                  new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(
                      user,
                      new org.apache.kafka.clients.admin.ScramCredentialInfo(
                          org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 8192),
                      new String(password))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("cannot create the SCRAM user " + user + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating the SCRAM user " + user, e);
    }
  }

  public String bootstrapServers() {
    return HOST + ":" + brokerPort;
  }

  private Properties serverProperties() {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
    String listeners =
        "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort;
    String protocols = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT";
    if (saslPort != 0) {
      listeners += ",SASL_PLAINTEXT://" + HOST + ":" + saslPort;
      protocols += ",SASL_PLAINTEXT:SASL_PLAINTEXT";
      p.put("sasl.enabled.mechanisms", SCRAM_MECHANISM);
      p.put(
          "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    }
    if (tls != null) {
      listeners += ",SSL://" + HOST + ":" + sslPort + ",SASL_SSL://" + HOST + ":" + saslSslPort;
      protocols += ",SSL:SSL,SASL_SSL:SASL_SSL";
      p.put(
          "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
          "org.apache.kafka.common.security.scram.ScramLoginModule required;");
      p.put("ssl.keystore.location", tls.keystore().toString());
      p.put("ssl.keystore.type", tls.type());
      p.put("ssl.keystore.password", tls.password());
      p.put("ssl.key.password", tls.password());
      p.put("ssl.client.auth", "none");
      if (clientCa != null) {
        // a listener named MTLS speaking SSL, requiring a client certificate of clientCa
        listeners += ",MTLS://" + HOST + ":" + mtlsPort;
        protocols += ",MTLS:SSL";
        p.put("listener.name.mtls.ssl.client.auth", "required");
        p.put("listener.name.mtls.ssl.truststore.location", clientCa.keystore().toString());
        p.put("listener.name.mtls.ssl.truststore.type", clientCa.type());
        p.put("listener.name.mtls.ssl.truststore.password", clientCa.password());
      }
    }
    p.put("listeners", listeners);
    p.put("advertised.listeners", listeners);
    p.put("listener.security.protocol.map", protocols);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("num.partitions", "1");
    p.put("auto.create.topics.enable", "false");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "3");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "3");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("log.segment.bytes", Integer.toString(64 * 1024 * 1024));
    p.put("log.retention.check.interval.ms", "60000");
    // The demo runs a simulated clock ahead of the wall clock; accept its future timestamps.
    p.put("log.message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE));
    return p;
  }

  private void startServer(Duration timeout) throws IOException {
    long started = System.nanoTime();
    Properties props = serverProperties();
    format(props);
    KafkaConfig config = new KafkaConfig(props, false);
    server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    awaitReady(timeout);
    log.info(
        "Kafka (KRaft) ready at {} in {} ms, data in {}",
        bootstrapServers(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        logDir);
  }

  /** The storage tool's main calls System.exit, so its execute method is called in-process. */
  private void format(Properties props) throws IOException {
    Path file = logDir.resolve("server.properties");
    try (OutputStream out = Files.newOutputStream(file)) {
      props.store(out, "fabricpulse embedded broker");
    }
    Path metaProperties = logDir.resolve("meta.properties");
    if (Files.exists(metaProperties)) {
      return;
    }
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    String[] args = {
      "format", "-t", Uuid.randomUuid().toString(), "-c", file.toString(), "--ignore-formatted"
    };
    int rc;
    try (PrintStream ps = new PrintStream(output, true, StandardCharsets.UTF_8)) {
      rc = kafka.tools.StorageTool$.MODULE$.execute(args, ps);
    }
    if (rc != 0) {
      throw new IOException(
          "formatting " + logDir + " failed: " + output.toString(StandardCharsets.UTF_8));
    }
  }

  private void awaitReady(Duration timeout) throws IOException {
    Properties admin = new Properties();
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin client = Admin.create(admin)) {
      while (true) {
        try {
          if (!client.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          if (System.nanoTime() > deadline) {
            throw new IOException("Kafka did not become ready within " + timeout, e);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for Kafka", e);
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("Kafka did not become ready within " + timeout);
        }
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  /**
   * Stops the broker as a crash would leave it for its clients (they lose every connection),
   * keeping its log directory and ports, so {@link #restart} brings the same broker back: the fault
   * tests' broker outage.
   */
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
      log.info("Kafka stopped (restartable) at {}", bootstrapServers());
    }
  }

  /** Starts a stopped broker again on the same log directory and ports; waits until ready. */
  public synchronized void restart(Duration timeout) throws IOException {
    if (server == null) {
      startServer(timeout);
    }
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
      log.info("Kafka stopped");
    }
  }
}
