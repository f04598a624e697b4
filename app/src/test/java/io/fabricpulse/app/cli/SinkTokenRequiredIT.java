package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12: {@code sink influx} without a token against a store that requires one stops with one
 * line and exit 2 instead of retrying a write that cannot succeed. The store is InfluxDB 2.x's
 * write API as far as the answer goes (it cannot run here): every {@code /api/v2/write} without an
 * {@code Authorization} header is answered 401 with InfluxDB's error body, {@code
 * {"code":"unauthorized","message":"unauthorized access"}}
 * (https://docs.influxdata.com/influxdb/v2/api/#operation/PostWrite, response 401).
 */
class SinkTokenRequiredIT {
  @Test
  void withoutATokenTheSinkStopsWithOneLine(@TempDir Path dir) throws Exception {
    assertNull(System.getenv("INFLUX_TOKEN"), "the test runs the sink without INFLUX_TOKEN");
    assertNull(System.getenv("INFLUX_TOKEN_FILE"), "the test runs the sink without a token file");
    AtomicInteger writes = new AtomicInteger();
    HttpServer store =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    store.createContext(
        "/api/v2/write",
        exchange -> {
          writes.incrementAndGet();
          boolean authorized = exchange.getRequestHeaders().containsKey("Authorization");
          byte[] body =
              (authorized ? "" : "{\"code\":\"unauthorized\",\"message\":\"unauthorized access\"}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json; charset=utf-8");
          exchange.sendResponseHeaders(authorized ? 204 : 401, authorized ? -1 : body.length);
          if (!authorized) {
            exchange.getResponseBody().write(body);
          }
          exchange.close();
        });
    store.start();
    String url = "http://127.0.0.1:" + store.getAddress().getPort();
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(dir, Duration.ofMinutes(2))) {
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
        TopicBootstrap.ensure(admin, FabricTopics.defaults("", 1), (short) 1);
      }
      long started = System.nanoTime();
      CliRun run =
          CliRun.of(
              "sink",
              "influx",
              "--influx-url",
              url,
              "--bootstrap-servers",
              broker.bootstrapServers(),
              "--schema-registry-url",
              "mock://sink-token-required-it");
      long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
      assertEquals(ExitCodes.USAGE, run.exit(), run.stderr());
      List<String> lines = run.stderr().lines().toList();
      assertEquals(
          List.of(
              "sink influx: "
                  + url
                  + " requires a token (HTTP 401): set INFLUX_TOKEN, or INFLUX_TOKEN_FILE to a"
                  + " file holding it"),
          lines);
      assertTrue(writes.get() >= 1, "the sink never wrote");
      System.out.printf(
          "sink without a token: %d write(s) answered 401, then: %s (exit %d, %d s)%n",
          writes.get(), lines.get(0), run.exit(), seconds);
    } finally {
      store.stop(0);
    }
  }
}
