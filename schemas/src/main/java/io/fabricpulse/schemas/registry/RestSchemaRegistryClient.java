package io.fabricpulse.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * Client for the Confluent Schema Registry REST API (also served by Apicurio's ccompat API,
 * Karapace and Redpanda). Only the calls serializers need, with the same caching as Confluent's
 * CachedSchemaRegistryClient: ids and registrations are immutable, so they are cached forever.
 *
 * <p>API reference: docs.confluent.io/platform/current/schema-registry/develop/api.html. Requests
 * carry {@code Content-Type: application/vnd.schemaregistry.v1+json}; errors come back as {@code
 * {"error_code": 40401, "message": "..."}}.
 */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {

  static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<URI> baseUrls;
  private final String authorization;
  private final HttpClient http;
  private final Duration timeout;
  private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();
  private final Map<String, Integer> idBySubjectAndSchema = new ConcurrentHashMap<>();

  /**
   * @param urls one or more base URLs (comma separated in config); tried in order
   * @param basicAuthUserInfo {@code user:password} or null; never logged
   */
  public RestSchemaRegistryClient(List<String> urls, String basicAuthUserInfo, Duration timeout) {
    if (urls.isEmpty()) {
      throw new IllegalArgumentException("schema.registry.url is empty");
    }
    this.baseUrls = urls.stream().map(u -> URI.create(u.endsWith("/") ? u : u + "/")).toList();
    this.authorization =
        basicAuthUserInfo == null || basicAuthUserInfo.isEmpty()
            ? null
            : "Basic "
                + Base64.getEncoder()
                    .encodeToString(basicAuthUserInfo.getBytes(StandardCharsets.UTF_8));
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public int register(String subject, Schema schema) {
    String cacheKey = subject + '\0' + schema;
    Integer cached = idBySubjectAndSchema.get(cacheKey);
    if (cached != null) {
      return cached;
    }
    JsonNode response =
        call("POST", "subjects/" + encode(subject) + "/versions", schemaBody(schema));
    int id = response.path("id").asInt();
    idBySubjectAndSchema.put(cacheKey, id);
    schemaById.putIfAbsent(id, schema);
    return id;
  }

  @Override
  public Schema getById(int id) {
    return schemaById.computeIfAbsent(
        id,
        key -> {
          JsonNode response = call("GET", "schemas/ids/" + key, null);
          return new Schema.Parser().parse(response.path("schema").asText());
        });
  }

  @Override
  public RegisteredSchema latest(String subject) {
    JsonNode response = call("GET", "subjects/" + encode(subject) + "/versions/latest", null);
    Schema schema = new Schema.Parser().parse(response.path("schema").asText());
    int id = response.path("id").asInt();
    schemaById.putIfAbsent(id, schema);
    return new RegisteredSchema(subject, response.path("version").asInt(), id, schema);
  }

  @Override
  public int lookup(String subject, Schema schema) {
    String cacheKey = subject + '\0' + schema;
    Integer cached = idBySubjectAndSchema.get(cacheKey);
    if (cached != null) {
      return cached;
    }
    JsonNode response = call("POST", "subjects/" + encode(subject), schemaBody(schema));
    int id = response.path("id").asInt();
    idBySubjectAndSchema.put(cacheKey, id);
    return id;
  }

  @Override
  public boolean isCompatible(String subject, Schema schema) {
    try {
      JsonNode response =
          call(
              "POST",
              "compatibility/subjects/" + encode(subject) + "/versions/latest",
              schemaBody(schema));
      return response.path("is_compatible").asBoolean(false);
    } catch (SchemaRegistryException e) {
      if (e.errorCode() == 40401) {
        return true; // no version yet: anything is compatible
      }
      throw e;
    }
  }

  private static String schemaBody(Schema schema) {
    ObjectNode body = JSON.createObjectNode();
    body.put("schema", schema.toString());
    return body.toString();
  }

  private static String encode(String subject) {
    return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** One call, trying each base URL in turn on connection failure (not on an API error). */
  private JsonNode call(String method, String path, String body) {
    IOException lastFailure = null;
    for (URI base : baseUrls) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(base.resolve(path))
              .timeout(timeout)
              .header("Accept", CONTENT_TYPE + ", application/json");
      if (authorization != null) {
        request.header("Authorization", authorization);
      }
      if (body != null) {
        request.header("Content-Type", CONTENT_TYPE);
        request.method(method, HttpRequest.BodyPublishers.ofString(body));
      } else {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      }
      try {
        HttpResponse<String> response =
            http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return parse(method, base, path, response);
      } catch (IOException e) {
        lastFailure = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SchemaRegistryException("interrupted calling schema registry", e);
      }
    }
    throw new SchemaRegistryException(
        "schema registry unreachable at " + baseUrls + ": " + lastFailure, lastFailure);
  }

  private static JsonNode parse(String method, URI base, String path, HttpResponse<String> r) {
    JsonNode json;
    try {
      json = r.body() == null || r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
    } catch (IOException e) {
      throw new SchemaRegistryException(
          r.statusCode(), method + " " + base + path + ": response is not JSON");
    }
    if (r.statusCode() / 100 != 2) {
      int code = json.path("error_code").asInt(r.statusCode());
      String message = json.path("message").asText("HTTP " + r.statusCode());
      throw new SchemaRegistryException(code, method + " " + base + path + ": " + message);
    }
    return json;
  }
}
