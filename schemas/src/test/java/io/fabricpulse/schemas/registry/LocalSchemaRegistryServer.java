package io.fabricpulse.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;

/**
 * The Confluent Schema Registry REST endpoints that serializers use, served on 127.0.0.1 for tests.
 * Shapes and error codes follow the API reference
 * (https://docs.confluent.io/5.4.11/schema-registry/develop/api.html, and for register/lookup the
 * current pages https://docs.confluent.io/cloud/current/ccloud/register/ and
 * https://docs.confluent.io/cloud/current/ccloud/look-up-schema-under-subject/):
 *
 * <ul>
 *   <li>POST /subjects/{s}/versions {"schema": "..."} -> {"id": n}; 409 incompatible (BACKWARD, the
 *       default level); 422 error_code 42201 invalid schema
 *   <li>POST /subjects/{s} -> {"subject","version","id","schema"}; 404 40401 subject not found,
 *       40403 schema not found
 *   <li>GET /subjects/{s}/versions/latest -> {"subject","version","id","schema"}; 404 40401
 *   <li>GET /schemas/ids/{id} -> {"schema": "..."}; 404 40403
 *   <li>POST /compatibility/subjects/{s}/versions/latest -> {"is_compatible": bool}; 404 40401
 * </ul>
 *
 * Requests with a body must be JSON in one of the content types the registry accepts
 * (application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json),
 * otherwise 415. With credentials set, every request needs matching HTTP Basic auth, otherwise 401.
 */
public final class LocalSchemaRegistryServer implements AutoCloseable {

  static final List<String> ACCEPTED_CONTENT_TYPES =
      List.of(
          "application/vnd.schemaregistry.v1+json",
          "application/vnd.schemaregistry+json",
          "application/json");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final String expectedAuthorization;
  private final List<Schema> schemasById = new ArrayList<>(); // id = index + 1
  private final Map<String, List<Integer>> idsBySubject = new HashMap<>();
  private final List<String> requests = new ArrayList<>();
  private final List<String> contentTypes = new ArrayList<>();

  /**
   * @param userInfo {@code user:password} required as Basic auth, or null for no auth
   */
  public LocalSchemaRegistryServer(String userInfo) throws IOException {
    this.expectedAuthorization =
        userInfo == null
            ? null
            : "Basic "
                + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Every request so far as "METHOD /raw/path". */
  public synchronized List<String> requests() {
    return List.copyOf(requests);
  }

  /** Content-Type header of every request that had a body. */
  public synchronized List<String> contentTypes() {
    return List.copyOf(contentTypes);
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private synchronized void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      String rawPath = exchange.getRequestURI().getRawPath();
      requests.add(method + " " + rawPath);
      byte[] body = exchange.getRequestBody().readAllBytes();
      if (expectedAuthorization != null
          && !expectedAuthorization.equals(
              exchange.getRequestHeaders().getFirst("Authorization"))) {
        respond(exchange, 401, error(401, "Unauthorized"));
        return;
      }
      JsonNode request = null;
      if (method.equals("POST")) {
        String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
        contentTypes.add(contentType);
        String mediaType = contentType == null ? "" : contentType.split(";")[0].trim();
        if (!ACCEPTED_CONTENT_TYPES.contains(mediaType)) {
          respond(exchange, 415, error(415, "HTTP 415 Unsupported Media Type"));
          return;
        }
        try {
          request = JSON.readTree(body);
        } catch (IOException e) {
          respond(exchange, 400, error(400, "Unrecognized request body"));
          return;
        }
      }
      List<String> path = new ArrayList<>();
      for (String segment : rawPath.substring(1).split("/")) {
        path.add(URLDecoder.decode(segment, StandardCharsets.UTF_8));
      }
      route(exchange, method, path, request);
    }
  }

  private void route(HttpExchange exchange, String method, List<String> p, JsonNode request)
      throws IOException {
    int n = p.size();
    if (method.equals("POST")
        && n == 3
        && p.get(0).equals("subjects")
        && p.get(2).equals("versions")) {
      register(exchange, p.get(1), request);
    } else if (method.equals("POST") && n == 2 && p.get(0).equals("subjects")) {
      lookup(exchange, p.get(1), request);
    } else if (method.equals("GET")
        && n == 4
        && p.get(0).equals("subjects")
        && p.get(2).equals("versions")
        && p.get(3).equals("latest")) {
      latest(exchange, p.get(1));
    } else if (method.equals("GET")
        && n == 3
        && p.get(0).equals("schemas")
        && p.get(1).equals("ids")) {
      byId(exchange, p.get(2));
    } else if (method.equals("POST")
        && n == 5
        && p.get(0).equals("compatibility")
        && p.get(1).equals("subjects")
        && p.get(3).equals("versions")
        && p.get(4).equals("latest")) {
      compatibility(exchange, p.get(2), request);
    } else {
      respond(exchange, 404, error(404, "HTTP 404 Not Found"));
    }
  }

  private void register(HttpExchange exchange, String subject, JsonNode request)
      throws IOException {
    Schema schema = parse(exchange, request);
    if (schema == null) {
      return;
    }
    List<Integer> versions = idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
    Integer existing = idOf(schema);
    if (existing != null && versions.contains(existing)) {
      respond(exchange, 200, JSON.createObjectNode().put("id", existing));
      return;
    }
    if (!versions.isEmpty()
        && !canRead(schema, schemasById.get(versions.get(versions.size() - 1) - 1))) {
      respond(
          exchange,
          409,
          error(
              409,
              "Schema being registered is incompatible with an earlier schema for subject \""
                  + subject
                  + "\""));
      return;
    }
    int id = existing != null ? existing : addSchema(schema);
    versions.add(id);
    respond(exchange, 200, JSON.createObjectNode().put("id", id));
  }

  private void lookup(HttpExchange exchange, String subject, JsonNode request) throws IOException {
    Schema schema = parse(exchange, request);
    if (schema == null) {
      return;
    }
    List<Integer> versions = idsBySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      respond(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
      return;
    }
    Integer id = idOf(schema);
    if (id == null || !versions.contains(id)) {
      respond(exchange, 404, error(40403, "Schema not found"));
      return;
    }
    respond(exchange, 200, version(subject, versions.indexOf(id) + 1, id));
  }

  private void latest(HttpExchange exchange, String subject) throws IOException {
    List<Integer> versions = idsBySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      respond(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
      return;
    }
    respond(exchange, 200, version(subject, versions.size(), versions.get(versions.size() - 1)));
  }

  private void byId(HttpExchange exchange, String idText) throws IOException {
    int id;
    try {
      id = Integer.parseInt(idText);
    } catch (NumberFormatException e) {
      respond(exchange, 404, error(404, "HTTP 404 Not Found"));
      return;
    }
    if (id < 1 || id > schemasById.size()) {
      respond(exchange, 404, error(40403, "Schema " + id + " not found"));
      return;
    }
    respond(
        exchange, 200, JSON.createObjectNode().put("schema", schemasById.get(id - 1).toString()));
  }

  private void compatibility(HttpExchange exchange, String subject, JsonNode request)
      throws IOException {
    Schema schema = parse(exchange, request);
    if (schema == null) {
      return;
    }
    List<Integer> versions = idsBySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      respond(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
      return;
    }
    boolean compatible = canRead(schema, schemasById.get(versions.get(versions.size() - 1) - 1));
    respond(exchange, 200, JSON.createObjectNode().put("is_compatible", compatible));
  }

  /** The schema of a request body, or null after answering 422 / 42201. */
  private static Schema parse(HttpExchange exchange, JsonNode request) throws IOException {
    JsonNode text = request == null ? null : request.get("schema");
    if (text == null || !text.isTextual()) {
      respond(exchange, 422, error(42201, "Invalid schema: no \"schema\" string"));
      return null;
    }
    try {
      return new Schema.Parser().parse(text.textValue());
    } catch (RuntimeException e) {
      respond(exchange, 422, error(42201, "Invalid schema " + e.getMessage()));
      return null;
    }
  }

  private Integer idOf(Schema schema) {
    int index = schemasById.indexOf(schema);
    return index < 0 ? null : index + 1;
  }

  private int addSchema(Schema schema) {
    schemasById.add(schema);
    return schemasById.size();
  }

  private ObjectNode version(String subject, int version, int id) {
    return JSON.createObjectNode()
        .put("subject", subject)
        .put("version", version)
        .put("id", id)
        .put("schema", schemasById.get(id - 1).toString());
  }

  /** BACKWARD: the new schema can read data written with the latest one. */
  private static boolean canRead(Schema reader, Schema writer) {
    return SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
        == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
  }

  private static ObjectNode error(int code, String message) {
    return JSON.createObjectNode().put("error_code", code).put("message", message);
  }

  private static void respond(HttpExchange exchange, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
