package io.fabricpulse.bridges.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A local HTTP server on 127.0.0.1 that answers like a group robot's webhook: HTTP 200 with a JSON
 * errcode for every outcome, a per-minute limit with a lockout measured on the injected clock, and
 * size limits. Subclasses check the secret and the body. {@link #down(boolean)} makes every request
 * fail with HTTP 503 (an outage).
 */
public abstract class FakeRobotServer implements AutoCloseable {
  protected static final ObjectMapper JSON = new ObjectMapper();

  /** One request the server answered. */
  public record Request(
      Instant at, Map<String, String> query, JsonNode body, int bytes, int errcode) {}

  private final HttpServer server;
  protected final Clock clock;
  private final int perMinute;
  private final Duration lockout;
  private final Deque<Instant> window = new ArrayDeque<>();
  private Instant lockedUntil = Instant.MIN;
  private volatile boolean down;
  private final List<Request> requests = Collections.synchronizedList(new ArrayList<>());

  protected FakeRobotServer(String path, Clock clock, int perMinute, Duration lockout)
      throws IOException {
    this(path, clock, perMinute, lockout, 0);
  }

  /** On {@code port} (0: any free one), for a robot whose URL was configured before it listened. */
  protected FakeRobotServer(String path, Clock clock, int perMinute, Duration lockout, int port)
      throws IOException {
    this.clock = clock;
    this.perMinute = perMinute;
    this.lockout = lockout;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    server.createContext(path, this::handle);
    server.start();
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  public void down(boolean down) {
    this.down = down;
  }

  public List<Request> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** The requests the robot accepted (errcode 0): what the group saw. */
  public List<Request> accepted() {
    return requests().stream().filter(r -> r.errcode() == 0).toList();
  }

  /** Requests that arrived while the robot was locked. */
  public List<Request> duringLockout() {
    return requests().stream().filter(r -> r.errcode() == rateErrcode() && r.bytes() < 0).toList();
  }

  /** Marks {@code n} sends by someone else at the current time (the robot is shared). */
  public synchronized void othersSent(int n) {
    for (int i = 0; i < n; i++) {
      window.addLast(clock.instant());
    }
  }

  protected abstract int rateErrcode();

  protected abstract String rateErrmsg();

  /** The errcode for a well-formed request, or 0; {@code errmsg[0]} receives the message. */
  protected abstract int check(
      Map<String, String> query, JsonNode body, int bytes, String[] errmsg);

  private synchronized void handle(HttpExchange exchange) throws IOException {
    byte[] raw = exchange.getRequestBody().readAllBytes();
    Instant now = clock.instant();
    if (down) {
      exchange.sendResponseHeaders(503, -1);
      exchange.close();
      return;
    }
    Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
    if (!"POST".equals(exchange.getRequestMethod())) {
      reply(exchange, 40035, "method must be POST", now, query, null, raw.length);
      return;
    }
    if (now.isBefore(lockedUntil)) {
      // bytes < 0 marks a request made while locked: a bridge must never make one
      reply(exchange, rateErrcode(), rateErrmsg(), now, query, null, -1);
      return;
    }
    while (!window.isEmpty() && !window.peekFirst().plus(Duration.ofMinutes(1)).isAfter(now)) {
      window.removeFirst();
    }
    window.addLast(now);
    if (window.size() > perMinute) {
      lockedUntil = now.plus(lockout);
      reply(exchange, rateErrcode(), rateErrmsg(), now, query, null, raw.length);
      return;
    }
    JsonNode body;
    try {
      body = JSON.readTree(raw);
    } catch (IOException e) {
      reply(exchange, 40035, "invalid json", now, query, null, raw.length);
      return;
    }
    String[] errmsg = {"ok"};
    int errcode = check(query, body, raw.length, errmsg);
    reply(exchange, errcode, errcode == 0 ? "ok" : errmsg[0], now, query, body, raw.length);
  }

  private void reply(
      HttpExchange exchange,
      int errcode,
      String errmsg,
      Instant now,
      Map<String, String> query,
      JsonNode body,
      int bytes)
      throws IOException {
    requests.add(new Request(now, query, body, bytes, errcode));
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("errcode", errcode);
    reply.put("errmsg", errmsg);
    byte[] out = JSON.writeValueAsBytes(reply);
    exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
    exchange.sendResponseHeaders(200, out.length);
    try (OutputStream os = exchange.getResponseBody()) {
      os.write(out);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new LinkedHashMap<>();
    if (raw == null) {
      return q;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        // raw values: the sign is compared as sent, to catch double encoding
        q.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return q;
  }

  protected static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
