package io.fabricpulse.sinks.questdb;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.fabricpulse.sinks.influx.InfluxSchema;
import io.questdb.ServerMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A QuestDB server in this JVM, HTTP only, bound to 127.0.0.1: a real time-series store that
 * accepts influxdb-client-java's {@code /api/v2/write} and answers SQL on {@code GET /exec}. Tags
 * become SYMBOL columns and each measurement a table, created on first write. WAL apply is
 * asynchronous, so readers wait with {@link #awaitRows} (a deadline, no sleep).
 *
 * <p>At start it creates the sink's 10 s aggregate tables with DEDUP UPSERT KEYS (designated
 * timestamp plus every tag), because the sink writes a bucket again when samples arrive after it
 * was closed, and InfluxDB's rule "same measurement, tags and time overwrites" holds in QuestDB
 * only on deduplicated tables. Tables created by the ILP write path are plain WAL tables, so they
 * are created here first, over SQL; field columns are still added by the writes.
 *
 * <p>{@link #stop()} and {@link #start()} keep the data directory and the port, so a test can take
 * the server away and bring the same one back.
 */
public final class EmbeddedQuestDb implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EmbeddedQuestDb.class);
  private static final List<String> RATE_TAGS =
      List.of(
          InfluxSchema.TAG_CLUSTER,
          InfluxSchema.TAG_NODE,
          InfluxSchema.TAG_DEVICE,
          InfluxSchema.TAG_PORT,
          InfluxSchema.TAG_NETDEV);

  private final Path rootDir;
  private final int port;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private ServerMain server;

  private EmbeddedQuestDb(Path rootDir, int port) {
    this.rootDir = rootDir;
    this.port = port;
  }

  /**
   * Starts a server storing its data under {@code rootDir} (created if missing), on a free loopback
   * port.
   */
  public static EmbeddedQuestDb start(Path rootDir) {
    EmbeddedQuestDb db = new EmbeddedQuestDb(rootDir, freeLoopbackPort());
    db.start();
    return db;
  }

  /**
   * QuestDB logs every WAL apply at INFO to stdout by default; an embedded store keeps its log in a
   * file under its root and prints only critical errors (conf/log.conf is read at start-up).
   */
  private void writeLogConfig() throws IOException {
    Path conf = rootDir.resolve("conf").resolve("log.conf");
    // QuestDB's documented override of its log config location (-Dout=...); without it the
    // logger may already be configured from the jar's defaults when the server starts.
    System.setProperty("out", conf.toAbsolutePath().toString());
    if (Files.exists(conf)) {
      return;
    }
    Files.createDirectories(conf.getParent());
    Path logFile = rootDir.resolve("log").resolve("questdb.log");
    Files.createDirectories(logFile.getParent());
    Files.writeString(
        conf,
        String.join(
            "\n",
            "writers=file",
            "w.file.class=io.questdb.log.LogFileWriter",
            "w.file.location=" + logFile.toAbsolutePath(),
            "w.file.level=INFO,ERROR,CRITICAL",
            ""));
  }

  /** Starts (or restarts after {@link #stop()}) the server; returns when it accepts requests. */
  public synchronized void start() {
    if (server != null) {
      return;
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put("QDB_HTTP_BIND_TO", "127.0.0.1:" + port);
    env.put("QDB_HTTP_MIN_ENABLED", "false");
    env.put("QDB_PG_ENABLED", "false");
    env.put("QDB_LINE_TCP_ENABLED", "false");
    env.put("QDB_LINE_UDP_ENABLED", "false");
    env.put("QDB_TELEMETRY_ENABLED", "false");
    try {
      Files.createDirectories(rootDir);
      writeLogConfig();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create QuestDB root " + rootDir, e);
    }
    ServerMain main = ServerMain.create(rootDir.toString(), env);
    main.start();
    main.awaitStartup();
    server = main;
    createPointTables();
  }

  /**
   * The point identity of each measurement written from the pipeline's records: its tags (the
   * designated timestamp joins them). InfluxDB keeps one point per series and time, so a point the
   * sink writes again (written, then its offset not committed before a rebalance or a broker
   * outage, and read again) replaces itself; these tables are deduplicated on the same keys so the
   * embedded store does the same instead of keeping a second row.
   */
  static final Map<String, List<String>> POINT_KEYS = pointKeys();

  private static Map<String, List<String>> pointKeys() {
    Map<String, List<String>> keys = new LinkedHashMap<>();
    for (String rates :
        List.of(InfluxSchema.PORT_RATES, InfluxSchema.PFC_RATES, InfluxSchema.ECN_RATES)) {
      keys.put(rates, RATE_TAGS);
      keys.put(InfluxSchema.aggregateMeasurement(rates), RATE_TAGS);
    }
    keys.put(
        InfluxSchema.ALERTS,
        List.of(
            InfluxSchema.TAG_CLUSTER,
            InfluxSchema.TAG_NODE,
            InfluxSchema.TAG_KIND,
            InfluxSchema.TAG_SEVERITY,
            InfluxSchema.TAG_STATE,
            InfluxSchema.TAG_RULE,
            InfluxSchema.TAG_DEVICE,
            InfluxSchema.TAG_PORT,
            InfluxSchema.TAG_NETDEV,
            InfluxSchema.TAG_PRIORITY,
            InfluxSchema.TAG_GPU));
    keys.put(
        InfluxSchema.GPU,
        List.of(InfluxSchema.TAG_CLUSTER, InfluxSchema.TAG_NODE, InfluxSchema.TAG_GPU));
    keys.put(
        InfluxSchema.GPU_XID,
        List.of(
            InfluxSchema.TAG_CLUSTER,
            InfluxSchema.TAG_NODE,
            InfluxSchema.TAG_KIND,
            InfluxSchema.TAG_GPU,
            InfluxSchema.TAG_XID));
    keys.put(
        InfluxSchema.NCCL_TRANSPORT,
        List.of(
            InfluxSchema.TAG_CLUSTER,
            InfluxSchema.TAG_NODE,
            InfluxSchema.TAG_HOST,
            InfluxSchema.TAG_JOB,
            InfluxSchema.TAG_NET));
    return keys;
  }

  /**
   * Creates each table of {@link #POINT_KEYS}, if missing, deduplicated on its designated timestamp
   * and tags (the sink's line protocol adds the field columns), and enables DEDUP on one left by an
   * older version (idempotent; refused when the old table lacks one of the tag columns).
   */
  private void createPointTables() {
    POINT_KEYS.forEach(
        (table, tags) -> {
          String keys = "timestamp, " + String.join(", ", tags);
          StringBuilder columns = new StringBuilder();
          tags.forEach(tag -> columns.append(tag).append(" SYMBOL, "));
          if (table.endsWith(InfluxSchema.AGGREGATE_SUFFIX)) {
            columns.append("samples LONG, ");
          }
          query(
              "CREATE TABLE IF NOT EXISTS "
                  + table
                  + " ("
                  + columns
                  + "timestamp TIMESTAMP) TIMESTAMP(timestamp) PARTITION BY DAY WAL"
                  + " DEDUP UPSERT KEYS("
                  + keys
                  + ")");
          try {
            query("ALTER TABLE " + table + " DEDUP ENABLE UPSERT KEYS(" + keys + ")");
          } catch (QueryException e) {
            log.warn(
                "cannot enable DEDUP on {}; rewritten points will duplicate rows: {}", table, e);
          }
        });
  }

  /** Stops the server; its data directory and port are kept for {@link #start()}. */
  public synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  public synchronized boolean isRunning() {
    return server != null;
  }

  @Override
  public void close() {
    stop();
  }

  public int port() {
    return port;
  }

  /** Base URL for influxdb-client-java, e.g. {@code http://127.0.0.1:41234}. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  /** Runs one SQL query over {@code GET /exec}; fails on an HTTP or SQL error. */
  public QueryResult query(String sql) {
    String uri = url() + "/exec?query=" + URLEncoder.encode(sql, StandardCharsets.UTF_8);
    HttpResponse<String> response;
    try {
      response =
          http.send(
              HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).GET().build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException("QuestDB query failed: " + sql, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (response.statusCode() != 200) {
      throw new QueryException(response.statusCode(), response.body());
    }
    return QueryResult.parse(response.body());
  }

  /**
   * Polls {@code sql} until the result has at least {@code minRows} rows, or fails after {@code
   * timeout}. A table that does not exist yet (no write applied) counts as zero rows.
   */
  public QueryResult awaitRows(String sql, int minRows, Duration timeout) {
    return await(sql, r -> r.rows().size() >= minRows, timeout);
  }

  /** Polls {@code sql} until {@code done} holds for its result, or fails after {@code timeout}. */
  public QueryResult await(String sql, Predicate<QueryResult> done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (true) {
      try {
        QueryResult result = query(sql);
        if (done.test(result)) {
          return result;
        }
        last = result.rows().size() + " rows: " + result.rows();
      } catch (QueryException e) {
        last = e.getMessage();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + timeout + " waiting on [" + sql + "]: " + last);
      }
      // WAL apply runs on QuestDB's own schedule; poll gently instead of spinning on HTTP.
      java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
    }
  }

  private static int freeLoopbackPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  /** An HTTP or SQL error answered by {@code /exec} (e.g. table does not exist). */
  public static final class QueryException extends RuntimeException {
    QueryException(int status, String body) {
      super("HTTP " + status + ": " + body);
    }
  }

  /**
   * Rows of an {@code /exec} answer, each a map from column name to the value as text (null for SQL
   * NULL). Timestamps are ISO-8601 UTC with microseconds, e.g. {@code 2025-01-01T00:00:00.000000Z}.
   */
  public record QueryResult(List<String> columns, List<Map<String, String>> rows) {

    static QueryResult parse(String json) {
      JsonObject body = JsonParser.parseString(json).getAsJsonObject();
      if (!body.has("columns")) {
        return new QueryResult(List.of(), List.of()); // DDL answers {"ddl":"OK"}
      }
      List<String> columns = new ArrayList<>();
      for (JsonElement column : body.getAsJsonArray("columns")) {
        columns.add(column.getAsJsonObject().get("name").getAsString());
      }
      List<Map<String, String>> rows = new ArrayList<>();
      for (JsonElement row : body.getAsJsonArray("dataset")) {
        JsonArray values = row.getAsJsonArray();
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < columns.size(); i++) {
          JsonElement value = values.get(i);
          map.put(columns.get(i), value.isJsonNull() ? null : value.getAsString());
        }
        rows.add(Collections.unmodifiableMap(map));
      }
      return new QueryResult(List.copyOf(columns), List.copyOf(rows));
    }
  }
}
