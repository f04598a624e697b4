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
    int id = requiredInt(response, "id", "POST subjects/" + subject + "/versions");
    idBySubjectAndSchema.put(cacheKey, id);
    schemaById.putIfAbsent(id, schema);
    return id;
  }

  @Override
  public Schema getById(int id) {
    Schema cached = schemaById.get(id);
    if (cached != null) {
      return cached;
    }
    JsonNode response = call("GET", "schemas/ids/" + id, null);
    Schema schema = parseSchema(response, "GET schemas/ids/" + id);
    schemaById.putIfAbsent(id, schema);
    return schema;
  }

  @Override
  public RegisteredSchema latest(String subject) {
    JsonNode response = call("GET", "subjects/" + encode(subject) + "/versions/latest", null);
    String what = "GET subjects/" + subject + "/versions/latest";
    Schema schema = parseSchema(response, what);
    int id = requiredInt(response, "id", what);
    schemaById.putIfAbsent(id, schema);
    return new RegisteredSchema(subject, requiredInt(response, "version", what), id, schema);
  }

  @Override
  public int lookup(String subject, Schema schema) {
    String cacheKey = subject + '\0' + schema;
    Integer cached = idBySubjectAndSchema.get(cacheKey);
    if (cached != null) {
      return cached;
    }
    JsonNode response = call("POST", "subjects/" + encode(subject), schemaBody(schema));
    int id = requiredInt(response, "id", "POST subjects/" + subject);
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
      JsonNode verdict = response.path("is_compatible");
      if (!verdict.isBoolean()) {
        throw new SchemaRegistryException(
            -1, "POST compatibility/subjects/" + subject + ": no is_compatible in the response");
      }
      return verdict.booleanValue();
    } catch (SchemaRegistryException e) {
      if (e.errorCode() == 40401 || e.errorCode() == 40402) {
        return true; // subject or version not found: nothing to be compatible with
      }
      throw e;
    }
  }

  private static int requiredInt(JsonNode response, String field, String what) {
    JsonNode value = response.path(field);
    if (!value.canConvertToInt()) {
      throw new SchemaRegistryException(-1, what + ": response has no integer '" + field + "'");
    }
    return value.intValue();
  }

  private static Schema parseSchema(JsonNode response, String what) {
    JsonNode text = response.path("schema");
    if (!text.isTextual()) {
      throw new SchemaRegistryException(-1, what + ": response has no 'schema' string");
    }
    try {
      return new Schema.Parser().parse(text.textValue());
    } catch (RuntimeException e) {
      throw new SchemaRegistryException(what + ": registry returned an unparsable schema", e);
    }
  }

  /** A base URL for messages, without any user:password@ part. */
  private static String display(URI base) {
    return base.getScheme()
        + "://"
        + base.getHost()
        + (base.getPort() < 0 ? "" : ":" + base.getPort())
        + base.getPath();
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
        "schema registry unreachable at "
            + baseUrls.stream().map(RestSchemaRegistryClient::display).toList()
            + ": "
            + lastFailure,
        lastFailure);
  }

  private static JsonNode parse(String method, URI base, String path, HttpResponse<String> r) {
    JsonNode json;
    try {
      json = r.body() == null || r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
    } catch (IOException e) {
      throw new SchemaRegistryException(
          r.statusCode(),
          method
              + " "
              + display(base)
              + path
              + ": HTTP "
              + r.statusCode()
              + ", response is not JSON");
    }
    if (r.statusCode() / 100 != 2) {
      int code = json.path("error_code").asInt(r.statusCode());
      String message = json.path("message").asText("HTTP " + r.statusCode());
      throw new SchemaRegistryException(
          code, method + " " + display(base) + path + ": HTTP " + r.statusCode() + ", " + message);
    }
    return json;
  }
}
