package io.fabricpulse.app.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live status page on 127.0.0.1: {@code /} is a plain HTML/JS page (no build step, no external
 * resource) that polls {@code /api/status}, the {@link StatusBoard}'s snapshot as JSON, every 5 s.
 */
public final class StatusPage implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger log = LoggerFactory.getLogger(StatusPage.class);
  private static final String PAGE = "/io/fabricpulse/app/status/index.html";

  private final HttpServer server;

  private StatusPage(HttpServer server) {
    this.server = server;
  }

  /** Serves {@code board} on 127.0.0.1:{@code port} (0 = a free port). */
  public static StatusPage start(StatusBoard board, int port) throws IOException {
    byte[] page;
    try (InputStream in = StatusPage.class.getResourceAsStream(PAGE)) {
      if (in == null) {
        throw new IOException("status page resource " + PAGE + " missing from the jar");
      }
      page = in.readAllBytes();
    }
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
    server.createContext(
        "/",
        exchange -> {
          String path = exchange.getRequestURI().getPath();
          if (!exchange.getRequestMethod().equals("GET")) {
            send(exchange, 405, "text/plain", "GET only".getBytes(StandardCharsets.UTF_8));
          } else if (path.equals("/") || path.equals("/index.html")) {
            send(exchange, 200, "text/html; charset=utf-8", page);
          } else if (path.equals("/api/status")) {
            byte[] body;
            try {
              body = JSON.writeValueAsBytes(board.snapshot());
            } catch (RuntimeException e) {
              log.error("status page: cannot build the status", e);
              send(exchange, 500, "text/plain", e.toString().getBytes(StandardCharsets.UTF_8));
              return;
            }
            send(exchange, 200, "application/json", body);
          } else {
            send(exchange, 404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8));
          }
        });
    server.setExecutor(Executors.newFixedThreadPool(4, StatusPage::daemon));
    server.start();
    return new StatusPage(server);
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "status-page-http");
    t.setDaemon(true);
    return t;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
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
