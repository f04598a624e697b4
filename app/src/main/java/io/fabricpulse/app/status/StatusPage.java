package io.fabricpulse.app.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabricpulse.schemas.http.BearerToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live status page on 127.0.0.1: {@code /} is a plain HTML/JS page (no build step, no external
 * resource) that polls {@code /api/status}, the {@link StatusBoard}'s snapshot as JSON, every 5 s;
 * {@code /api/health} is the health part alone, 200 when every check passes and 503 otherwise.
 */
public final class StatusPage implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger log = LoggerFactory.getLogger(StatusPage.class);
  private static final String PAGE = "/io/fabricpulse/app/status/index.html";

  private final HttpServer server;

  private StatusPage(HttpServer server) {
    this.server = server;
  }

  /** Serves {@code board} on 127.0.0.1:{@code port} (0 = a free port), to anyone on this host. */
  public static StatusPage start(StatusBoard board, int port) throws IOException {
    return start(board, InetAddress.getLoopbackAddress(), port, null);
  }

  /**
   * Serves {@code board} on {@code address}:{@code port}; with a {@code token}, a request without
   * it (header or cookie, {@link BearerToken}) gets 401 and nothing else. {@code /?token=TOKEN}
   * sets the cookie and redirects to {@code /}, so a browser can open the page.
   */
  public static StatusPage start(
      StatusBoard board, InetAddress address, int port, BearerToken token) throws IOException {
    byte[] page;
    try (InputStream in = StatusPage.class.getResourceAsStream(PAGE)) {
      if (in == null) {
        throw new IOException("status page resource " + PAGE + " missing from the jar");
      }
      page = in.readAllBytes();
    }
    HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 16);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (token != null && !permitted(exchange, token)) {
            return;
          }
          if (!exchange.getRequestMethod().equals("GET")) {
            send(exchange, 405, "text/plain", "GET only".getBytes(StandardCharsets.UTF_8));
          } else if (path.equals("/") || path.equals("/index.html")) {
            send(exchange, 200, "text/html; charset=utf-8", page);
          } else if (path.equals("/api/status")) {
            sendJson(exchange, board::snapshot, false);
          } else if (path.equals("/api/health")) {
            sendJson(exchange, board::health, true);
          } else {
            send(exchange, 404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8));
          }
        });
    server.setExecutor(Executors.newFixedThreadPool(4, StatusPage::daemon));
    server.start();
    return new StatusPage(server);
  }

  /**
   * Whether the request carries the token; answers it when not (401), or when it is the login
   * {@code /?token=TOKEN} (a redirect to {@code /} setting the cookie, so the token leaves the
   * address bar).
   */
  private static boolean permitted(HttpExchange exchange, BearerToken token) throws IOException {
    var headers = exchange.getRequestHeaders();
    if (token.permitsHeader(headers.getFirst(BearerToken.HEADER))
        || token.permitsCookies(headers.get("Cookie"))) {
      return true;
    }
    String query = exchange.getRequestURI().getRawQuery();
    if (query != null && query.startsWith("token=") && token.matches(query.substring(6))) {
      exchange.getResponseHeaders().set("Set-Cookie", token.cookie());
      exchange.getResponseHeaders().set("Location", "/");
      send(exchange, 303, "text/plain", new byte[0]);
      return false;
    }
    exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"fabricpulse\"");
    send(
        exchange,
        401,
        "text/plain",
        "a token is required: Authorization: Bearer TOKEN, or open /?token=TOKEN"
            .getBytes(StandardCharsets.UTF_8));
    return false;
  }

  /**
   * {@code what} as JSON, 200; with {@code healthStatus}, 503 when its {@code ok} is false (what a
   * load balancer or a Kubernetes probe reads).
   */
  private static void sendJson(
      HttpExchange exchange, Supplier<Map<String, Object>> what, boolean healthStatus)
      throws IOException {
    Map<String, Object> value;
    byte[] body;
    try {
      value = what.get();
      body = JSON.writeValueAsBytes(value);
    } catch (RuntimeException e) {
      log.error("status page: cannot build {}", exchange.getRequestURI().getPath(), e);
      send(
          exchange,
          500,
          "text/plain",
          "cannot build the status; see the log".getBytes(StandardCharsets.UTF_8));
      return;
    }
    int status = healthStatus && !Boolean.TRUE.equals(value.get("ok")) ? 503 : 200;
    send(exchange, status, "application/json", body);
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "status-page-http");
    t.setDaemon(true);
    return t;
  }

  public String url() {
    InetSocketAddress at = server.getAddress();
    String host =
        at.getAddress().isAnyLocalAddress() || at.getAddress().isLoopbackAddress()
            ? "127.0.0.1"
            : at.getAddress().getHostAddress();
    return "http://" + host + ":" + at.getPort() + "/";
  }

  /** The address the page listens on. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
