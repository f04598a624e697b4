package io.fabricpulse.app.dashboards;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's InfluxDB 1.x ({@code influxd}) as a child process bound to 127.0.0.1 on free ports, with
 * its data, meta and WAL directories under a directory of the test's own. The real InfluxQL engine:
 * line protocol goes in through {@code /write}, queries through {@code /query}.
 */
final class InfluxDb1Server implements AutoCloseable {

  private static final Duration START_DEADLINE = Duration.ofSeconds(30);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final String url;
  private final Path log;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private InfluxDb1Server(Process process, String url, Path log) {
    this.process = process;
    this.url = url;
    this.log = log;
  }

  /** Starts {@code influxd} and waits until {@code /ping} answers, at most 30 s. */
  static InfluxDb1Server start(Path dir) throws IOException, InterruptedException {
    int rpc = freePort();
    int httpPort = freePort();
    int ifql = freePort();
    Path config = dir.resolve("influxdb.conf");
    Files.writeString(
        config,
        String.join(
            "\n",
            "reporting-disabled = true",
            "bind-address = \"127.0.0.1:" + rpc + "\"",
            "[meta]",
            "  dir = \"" + dir.resolve("meta") + "\"",
            "  logging-enabled = false",
            "[data]",
            "  dir = \"" + dir.resolve("data") + "\"",
            "  wal-dir = \"" + dir.resolve("wal") + "\"",
            "  query-log-enabled = false",
            "[monitor]",
            "  store-enabled = false",
            "[http]",
            "  bind-address = \"127.0.0.1:" + httpPort + "\"",
            "  log-enabled = false",
            "[ifql]",
            "  enabled = false",
            "  bind-address = \"127.0.0.1:" + ifql + "\"",
            "[continuous_queries]",
            "  enabled = false",
            ""));
    Path log = dir.resolve("influxd.log");
    Process process =
        new ProcessBuilder("influxd", "run", "-config", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    InfluxDb1Server server = new InfluxDb1Server(process, "http://127.0.0.1:" + httpPort, log);
    long deadline = System.nanoTime() + START_DEADLINE.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("influxd exited: " + Files.readString(log));
      }
      try {
        if (server.send(HttpRequest.newBuilder(URI.create(server.url + "/ping")).GET()) == 204) {
          return server;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        server.close();
        throw new IllegalStateException("influxd not answering after " + START_DEADLINE);
      }
      TimeUnit.MILLISECONDS.sleep(50); // polling a starting process; no result depends on it
    }
  }

  void createDatabase(String db) throws IOException, InterruptedException {
    JsonNode answer = post("/query", "q=" + encode("CREATE DATABASE \"" + db + "\""));
    if (answer.path("results").path(0).has("error")) {
      throw new IllegalStateException("CREATE DATABASE " + db + ": " + answer);
    }
  }

  /**
   * Writes line protocol with millisecond timestamps; returns the HTTP status (204 = written) and
   * the server's answer.
   */
  HttpResponse<String> write(String db, List<String> lines)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url + "/write?precision=ms&db=" + encode(db)))
            .timeout(REQUEST_TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(String.join("\n", lines)));
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Runs one InfluxQL statement; the parsed JSON answer ({@code results[0]}). */
  JsonNode query(String db, String influxql) throws IOException, InterruptedException {
    JsonNode answer =
        post("/query", "db=" + encode(db) + "&epoch=ms&q=" + encode(influxql)).path("results");
    return answer.path(0);
  }

  private JsonNode post(String path, String form) throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build();
    HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IllegalStateException(
          path + " answered " + answer.statusCode() + ": " + answer.body());
    }
    return JSON.readTree(answer.body());
  }

  private int send(HttpRequest.Builder request) throws IOException, InterruptedException {
    return http.send(
            request.timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  String logText() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
