package io.fabricpulse.app.interactive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The interactive-query API of one {@code streams} instance (docs/queries.md): JSON over HTTP,
 * {@code GET /v1/rates}, {@code /v1/top}, {@code /v1/alerts}, {@code /v1/nccl}. Any instance of the
 * application answers any query: {@link ClusterQueries} routes key lookups to the owner and fans
 * lists out to every instance. With a token, every request must carry {@code Authorization: Bearer
 * TOKEN} (instances send it to each other), else 401.
 *
 * <p>The server starts before Kafka Streams, so its address (port 0: any free port) can be the
 * application's {@code application.server}; until {@link #attach} it answers 503.
 */
public final class QueryApi implements AutoCloseable {

  /** Environment variable holding the token when no token file is given. */
  public static final String TOKEN_VARIABLE = "FABRICPULSE_QUERY_TOKEN";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService threads;
  private final byte[] expectedAuthorization;
  private final String applicationServer;
  private final FabricTopics topics;
  private final char[] token;
  private volatile ClusterQueries queries;

  private QueryApi(
      HttpServer server,
      ExecutorService threads,
      char[] token,
      String applicationServer,
      FabricTopics topics) {
    this.server = server;
    this.threads = threads;
    this.token = token.clone();
    this.expectedAuthorization =
        token.length == 0 ? null : ("Bearer " + new String(token)).getBytes(StandardCharsets.UTF_8);
    this.applicationServer = applicationServer;
    this.topics = topics;
  }

  /**
   * Binds {@code bind:port} and serves; queries answer 503 until {@link #attach}.
   *
   * @param token empty: no token required
   */
  public static QueryApi start(InetAddress bind, int port, char[] token, FabricTopics topics)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 32);
    // a fan-out waits on peers while they may fan out to this instance: several threads
    ExecutorService threads =
        Executors.newFixedThreadPool(
            8,
            r -> {
              Thread t = new Thread(r, "query-api");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(threads);
    String host =
        bind.isAnyLocalAddress() ? InetAddress.getLocalHost().getHostName() : bind.getHostAddress();
    QueryApi api =
        new QueryApi(server, threads, token, host + ":" + server.getAddress().getPort(), topics);
    server.createContext("/", api::handle);
    server.start();
    return api;
  }

  /** {@code host:port} other instances call: the value of {@code application.server}. */
  public String applicationServer() {
    return applicationServer;
  }

  /** The base URL, e.g. {@code http://127.0.0.1:8090/}. */
  public String url() {
    return "http://" + applicationServer + "/";
  }

  /**
   * Starts answering from the application {@code streams} supplies (the current one, should it be
   * replaced), which runs with this API's {@code application.server}.
   */
  public void attach(Supplier<KafkaStreams> streams) {
    this.queries = new ClusterQueries(streams, new LocalStores(streams, topics), this);
  }

  String applicationServerForPeers() {
    return applicationServer;
  }

  char[] token() {
    return token.clone();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!authorized(exchange)) {
        exchange.getResponseHeaders().add("WWW-Authenticate", "Bearer");
        send(exchange, 401, Map.of("error", "missing or wrong bearer token"));
        return;
      }
      if (!"GET".equals(exchange.getRequestMethod())) {
        send(exchange, 405, Map.of("error", "only GET is served"));
        return;
      }
      ClusterQueries answering = queries;
      if (answering == null) {
        send(exchange, 503, Map.of("error", "the streams application is still starting"));
        return;
      }
      Map<String, String> params = params(exchange.getRequestURI().getRawQuery());
      String path = exchange.getRequestURI().getPath();
      try {
        ClusterQueries.Answer answer = answering.answer(path, params);
        send(exchange, answer.status(), answer.body());
      } catch (ClusterQueries.BadQuery e) {
        send(exchange, e.status(), Map.of("error", e.getMessage()));
      } catch (InvalidStateStoreException e) {
        send(
            exchange,
            503,
            Map.of("error", "stores not queryable now (rebalancing?): " + e.getMessage()));
      }
    } catch (RuntimeException e) {
      // an unexpected failure answers 500; the server keeps serving
      try {
        send(exchange, 500, Map.of("error", String.valueOf(e)));
      } catch (IOException | RuntimeException ignored) {
        // the response was under way already
      }
    }
  }

  private boolean authorized(HttpExchange exchange) {
    if (expectedAuthorization == null) {
      return true;
    }
    String given = exchange.getRequestHeaders().getFirst("Authorization");
    return given != null
        && MessageDigest.isEqual(expectedAuthorization, given.getBytes(StandardCharsets.UTF_8));
  }

  private static Map<String, String> params(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      params.put(
          URLDecoder.decode(name, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return params;
  }

  private static void send(HttpExchange exchange, int status, Object body) throws IOException {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IOException("cannot write the answer", e);
    }
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
