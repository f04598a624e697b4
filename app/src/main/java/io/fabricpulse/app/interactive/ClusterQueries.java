package io.fabricpulse.app.interactive;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricpulse.streams.detect.nccl.NcclTransportDetector;
import io.fabricpulse.streams.query.QueryStores;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * One query answered for the whole application. A key lookup (the rates of a node) goes to the
 * instance that owns the key ({@link KafkaStreams#queryMetadataForKey}); a list (top-N, alerts, a
 * job's verdicts) goes to every instance that hosts the store ({@link
 * KafkaStreams#streamsMetadataForStore}) and the parts are merged. Other instances are asked with
 * {@code scope=local}: they answer from their own stores only. Every answer lists the instances
 * that answered, with the offset lag of the store partitions they read, and those that did not.
 */
final class ClusterQueries {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration PEER_TIMEOUT = Duration.ofSeconds(10);
  private static final int DEFAULT_TOP = 10;
  private static final int MAX_TOP = 10_000;

  private final Supplier<KafkaStreams> streams;
  private final LocalStores local;
  private final QueryApi api;
  private final HttpClient peers =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  ClusterQueries(Supplier<KafkaStreams> streams, LocalStores local, QueryApi api) {
    this.streams = streams;
    this.local = local;
    this.api = api;
  }

  /** An HTTP status and its JSON body. */
  record Answer(int status, Map<String, Object> body) {}

  /** A query the API cannot answer as asked (400, 404, 503), with the reason. */
  static final class BadQuery extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    BadQuery(int status, String message) {
      super(message);
      this.status = status;
    }

    int status() {
      return status;
    }
  }

  Answer answer(String path, Map<String, String> params) {
    boolean localOnly = "local".equals(params.get("scope"));
    return switch (path) {
      case "/v1/rates" -> rates(params, localOnly);
      case "/v1/top" -> top(params, localOnly);
      case "/v1/alerts" -> alerts(params, localOnly);
      case "/v1/nccl" -> nccl(params, localOnly);
      default ->
          throw new BadQuery(
              404, path + ": not served (GET /v1/rates, /v1/top, /v1/alerts, /v1/nccl)");
    };
  }

  private Answer rates(Map<String, String> params, boolean localOnly) {
    String node = required(params, "node");
    if (node.indexOf('/') <= 0 || node.endsWith("/")) {
      throw new BadQuery(400, "node must be CLUSTER/NODE (the record key), got '" + node + "'");
    }
    String port = params.get("port");
    String store = QueryStores.LATEST_RATES_STORE;
    if (localOnly) {
      return localAnswer("rates", store, local.nodeRates(node, port));
    }
    KeyQueryMetadata owner =
        streams.get().queryMetadataForKey(store, node, Serdes.String().serializer());
    if (owner == null || KeyQueryMetadata.NOT_AVAILABLE.equals(owner)) {
      throw new BadQuery(503, "no instance owns " + node + " in " + store + " now (rebalancing?)");
    }
    Map<String, Object> body;
    if (isSelf(owner.activeHost())) {
      body = localAnswer("rates", store, local.nodeRates(node, port)).body();
    } else {
      body = ask(owner.activeHost(), "/v1/rates", params);
      if (body.get("rows") == null) {
        body = incomplete("rates", List.of(notAnswered(owner.activeHost(), body)));
      }
    }
    body.put("routed_to", name(owner.activeHost()));
    body.put("partition", owner.partition());
    return new Answer(200, body);
  }

  private Answer top(Map<String, String> params, boolean localOnly) {
    String metric = required(params, "by");
    int n = DEFAULT_TOP;
    if (params.containsKey("n")) {
      try {
        n = Integer.parseInt(params.get("n"));
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 1 || n > MAX_TOP) {
        throw new BadQuery(400, "n must be 1.." + MAX_TOP + ", got '" + params.get("n") + "'");
      }
    }
    String store = QueryStores.LATEST_RATES_STORE;
    if (localOnly) {
      return localAnswer("top", store, local.top(metric, n));
    }
    int limit = n;
    Answer merged = fanOut("top", store, params, () -> local.top(metric, limit));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows = (List<Map<String, Object>>) merged.body().get("rows");
    merged.body().put("rows", Rows.top(rows, n));
    merged.body().put("by", metric);
    return merged;
  }

  private Answer alerts(Map<String, String> params, boolean localOnly) {
    AlertFilter filter =
        new AlertFilter(params.get("node"), params.get("kind"), params.get("severity"));
    String store = QueryStores.ACTIVE_ALERTS_STORE;
    if (localOnly) {
      return localAnswer("alerts", store, local.alerts(filter));
    }
    Answer merged = fanOut("alerts", store, params, () -> local.alerts(filter));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows = (List<Map<String, Object>>) merged.body().get("rows");
    rows.sort(Rows.BY_STARTED_AT);
    return merged;
  }

  private Answer nccl(Map<String, String> params, boolean localOnly) {
    String job = required(params, "job");
    String cluster = params.get("cluster");
    String store = NcclTransportDetector.VERDICT_STORE;
    if (localOnly) {
      return localAnswer("nccl", store, local.ncclJob(cluster, job));
    }
    Answer merged = fanOut("nccl", store, params, () -> local.ncclJob(cluster, job));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rows = (List<Map<String, Object>>) merged.body().get("rows");
    rows.sort(
        java.util.Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("host")))
            .thenComparing(r -> String.valueOf(r.get("comm_id"))));
    merged.body().put("job", job);
    return merged;
  }

  /** The rows of every instance hosting {@code store}, concatenated (each sorts its own part). */
  private Answer fanOut(
      String query,
      String store,
      Map<String, String> params,
      java.util.function.Supplier<List<Map<String, Object>>> localRows) {
    List<StreamsMetadata> hosts = new ArrayList<>(streams.get().streamsMetadataForStore(store));
    if (hosts.isEmpty()) {
      throw new BadQuery(503, "no instance hosts " + store + " now (rebalancing?)");
    }
    hosts.sort(java.util.Comparator.comparing(m -> name(m.hostInfo())));
    List<Map<String, Object>> rows = new ArrayList<>();
    List<Object> instances = new ArrayList<>();
    boolean complete = true;
    for (StreamsMetadata host : hosts) {
      if (isSelf(host.hostInfo())) {
        rows.addAll(localRows.get());
        instances.add(selfInstance(store));
        continue;
      }
      Map<String, Object> part = ask(host.hostInfo(), "/v1/" + query, params);
      if (part.get("rows") instanceof List<?> partRows) {
        for (Object row : partRows) {
          @SuppressWarnings("unchecked")
          Map<String, Object> r = (Map<String, Object>) row;
          rows.add(r);
        }
        if (part.get("instances") instanceof List<?> answered) {
          instances.addAll(answered);
        }
      } else {
        complete = false;
        instances.add(notAnswered(host.hostInfo(), part));
      }
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", query);
    body.put("complete", complete);
    body.put("instances", instances);
    body.put("rows", rows);
    return new Answer(200, body);
  }

  private Answer localAnswer(String query, String store, List<Map<String, Object>> rows) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", query);
    body.put("complete", true);
    body.put("instances", new ArrayList<>(List.of(selfInstance(store))));
    body.put("rows", new ArrayList<>(rows));
    return new Answer(200, body);
  }

  private static Map<String, Object> incomplete(String query, List<Object> instances) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("query", query);
    body.put("complete", false);
    body.put("instances", instances);
    body.put("rows", new ArrayList<>());
    return body;
  }

  private Map<String, Object> selfInstance(String store) {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("instance", api.applicationServerForPeers());
    instance.put("answered", true);
    instance.putAll(local.lag(store));
    return instance;
  }

  private static Map<String, Object> notAnswered(HostInfo host, Map<String, Object> reply) {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("instance", name(host));
    instance.put("answered", false);
    instance.put("error", String.valueOf(reply.getOrDefault("error", "no rows in the answer")));
    return instance;
  }

  /** GET {@code path} with {@code params} and scope=local from another instance. */
  private Map<String, Object> ask(HostInfo host, String path, Map<String, String> params) {
    Map<String, String> query = new TreeMap<>(params);
    query.put("scope", "local");
    StringBuilder uri = new StringBuilder("http://").append(name(host)).append(path).append('?');
    query.forEach(
        (k, v) ->
            uri.append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8))
                .append('&'));
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(uri.substring(0, uri.length() - 1)))
            .timeout(PEER_TIMEOUT)
            .GET();
    char[] token = api.token();
    if (token.length > 0) {
      request.header("Authorization", "Bearer " + new String(token));
    }
    try {
      HttpResponse<String> response =
          peers.send(request.build(), HttpResponse.BodyHandlers.ofString());
      Map<String, Object> body =
          JSON.readValue(response.body(), new TypeReference<LinkedHashMap<String, Object>>() {});
      if (response.statusCode() != 200) {
        Map<String, Object> failed = new LinkedHashMap<>();
        failed.put("error", "HTTP " + response.statusCode() + ": " + body.get("error"));
        return failed;
      }
      return body;
    } catch (IOException e) {
      return new LinkedHashMap<>(Map.of("error", "unreachable: " + e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new LinkedHashMap<>(Map.of("error", "interrupted"));
    }
  }

  private boolean isSelf(HostInfo host) {
    return name(host).equals(api.applicationServerForPeers());
  }

  private static String name(HostInfo host) {
    return host.host() + ":" + host.port();
  }

  private static String required(Map<String, String> params, String name) {
    String value = params.get(name);
    if (value == null || value.isBlank()) {
      throw new BadQuery(400, "parameter '" + name + "' is required");
    }
    return value;
  }
}
