package io.fabricpulse.app.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Issue 12, health: the page says whether what runs it is healthy. {@code /api/health} answers 200
 * while every check passes and 503 while one fails (what a load balancer or a liveness probe
 * reads), {@code /api/status} carries the same part, and a check that throws counts as failing
 * without repeating the exception's message, which can carry a secret.
 */
class StatusPageHealthTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "sentinel-sasl-password-77c1";

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> get(StatusPage page, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(page.url()).resolve(path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void kafkaGoingAwayTurnsTheHealthTo503AndBack() throws Exception {
    AtomicBoolean kafkaDown = new AtomicBoolean();
    StatusBoard board = new StatusBoard();
    board.addCheck(
        new HealthCheck(
            "kafka",
            () ->
                kafkaDown.get()
                    ? HealthCheck.Result.failing("Kafka at 127.0.0.1:9092 unreachable for 12 s")
                    : HealthCheck.Result.ok("Kafka at 127.0.0.1:9092 answers")));
    board.addCheck(new HealthCheck("streams", () -> HealthCheck.Result.ok("RUNNING")));
    try (StatusPage page = StatusPage.start(board, 0)) {
      HttpResponse<String> healthy = get(page, "/api/health");
      assertEquals(200, healthy.statusCode());
      JsonNode h = JSON.readTree(healthy.body());
      assertTrue(h.get("ok").asBoolean());
      assertEquals("kafka", h.get("checks").get(0).get("name").asText());
      assertEquals("streams", h.get("checks").get(1).get("name").asText());

      kafkaDown.set(true);
      HttpResponse<String> down = get(page, "/api/health");
      assertEquals(503, down.statusCode());
      JsonNode d = JSON.readTree(down.body());
      assertFalse(d.get("ok").asBoolean());
      assertFalse(d.get("checks").get(0).get("ok").asBoolean());
      assertEquals(
          "Kafka at 127.0.0.1:9092 unreachable for 12 s",
          d.get("checks").get(0).get("detail").asText());
      assertTrue(d.get("checks").get(1).get("ok").asBoolean());
      // the page itself still answers, and shows the same health beside the tables
      HttpResponse<String> status = get(page, "/api/status");
      assertEquals(200, status.statusCode());
      assertEquals(d, JSON.readTree(status.body()).get("health"));

      kafkaDown.set(false);
      assertEquals(200, get(page, "/api/health").statusCode());
    }
  }

  @Test
  void aCheckThatThrowsIsFailingAndItsMessageIsNotShown() throws Exception {
    StatusBoard board = new StatusBoard();
    board.addCheck(
        new HealthCheck(
            "sink",
            () -> {
              throw new IllegalStateException("token " + SECRET + " refused");
            }));
    try (StatusPage page = StatusPage.start(board, 0)) {
      HttpResponse<String> r = get(page, "/api/health");
      assertEquals(503, r.statusCode());
      assertFalse(r.body().contains(SECRET), r.body());
      assertEquals(
          "the check itself failed (IllegalStateException)",
          JSON.readTree(r.body()).get("checks").get(0).get("detail").asText());
    }
  }

  @Test
  void withNoCheckThePageIsHealthy() throws Exception {
    try (StatusPage page = StatusPage.start(new StatusBoard(), 0)) {
      HttpResponse<String> r = get(page, "/api/health");
      assertEquals(200, r.statusCode());
      assertEquals("{\"ok\":true,\"checks\":[]}", r.body());
    }
  }
}
