package io.fabricpulse.schemas.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.SampleRecords;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RestSchemaRegistryClientTest {

  private static final String USER_INFO = "fabric:s3cret-pw";

  /** TopicRecordNameStrategy, fabricpulse's default for values. */
  private static final String SUBJECT =
      FabricTopics.PORT_COUNTERS + "-io.fabricpulse.avro.PortCounters";

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private LocalSchemaRegistryServer server;

  @BeforeEach
  void start() throws IOException {
    server = new LocalSchemaRegistryServer(USER_INFO);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private RestSchemaRegistryClient client(String... urls) {
    return new RestSchemaRegistryClient(List.of(urls), USER_INFO, TIMEOUT);
  }

  private Serde<PortCounters> serde(String url, String userInfo) {
    return AvroSerde.forValues(
        PortCounters.class,
        Map.of(
            AvroSerdeConfig.SCHEMA_REGISTRY_URL, url,
            AvroSerdeConfig.BASIC_AUTH_USER_INFO, userInfo));
  }

  /** A loopback port nobody listens on (bound, then released). */
  private static int deadPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Test
  void serdeEndToEndThroughTheRestClient() {
    Serde<PortCounters> serde = serde(server.url(), USER_INFO);
    PortCounters record = SampleRecords.portCounters();

    byte[] bytes = serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record);
    PortCounters back = serde.deserializer().deserialize(FabricTopics.PORT_COUNTERS, bytes);

    assertEquals(record, back);
    assertEquals(0, bytes[0]);
    int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
    assertEquals(id, client(server.url()).latest(SUBJECT).id());
    assertEquals(PortCounters.getClassSchema(), client(server.url()).getById(id));
    assertEquals(
        List.of(
            "POST /subjects/" + SUBJECT + "/versions",
            "GET /schemas/ids/" + id,
            "GET /subjects/" + SUBJECT + "/versions/latest",
            "GET /schemas/ids/" + id),
        server.requests());
    assertEquals(List.of("application/vnd.schemaregistry.v1+json"), server.contentTypes());
  }

  @Test
  void secondSerializeAndDeserializeAreServedFromCache() {
    Serde<PortCounters> serde = serde(server.url(), USER_INFO);
    PortCounters record = SampleRecords.portCounters();
    for (int i = 0; i < 3; i++) {
      byte[] bytes = serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record);
      serde.deserializer().deserialize(FabricTopics.PORT_COUNTERS, bytes);
    }
    assertEquals(2, server.requests().size(), server.requests().toString());

    RestSchemaRegistryClient client = client(server.url());
    int id = client.register("fabric.alerts-value", Alert.getClassSchema());
    assertEquals(id, client.register("fabric.alerts-value", Alert.getClassSchema()));
    assertEquals(id, client.lookup("fabric.alerts-value", Alert.getClassSchema()));
    assertEquals(Alert.getClassSchema(), client.getById(id)); // known from the registration
    assertEquals(3, server.requests().size(), server.requests().toString());
  }

  @Test
  void failsOverToTheNextUrlWhenTheFirstIsDown() throws IOException {
    String down = "http://127.0.0.1:" + deadPort();
    Serde<PortCounters> serde = serde(down + "," + server.url(), USER_INFO);
    PortCounters record = SampleRecords.portCounters();

    byte[] bytes = serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record);

    assertEquals(record, serde.deserializer().deserialize(FabricTopics.PORT_COUNTERS, bytes));
    assertEquals(2, server.requests().size());
  }

  @Test
  void allUrlsDownIsAClearError() throws IOException {
    RestSchemaRegistryClient client =
        client("http://127.0.0.1:" + deadPort(), "http://127.0.0.1:" + deadPort());
    SchemaRegistryException e =
        assertThrows(SchemaRegistryException.class, () -> client.getById(1));
    assertTrue(e.getMessage().startsWith("schema registry unreachable at [http://127.0.0.1:"));
    assertEquals(-1, e.errorCode());
  }

  @Test
  void registryErrorCodesSurface() {
    RestSchemaRegistryClient client = client(server.url());

    assertEquals(40401, codeOf(() -> client.latest("nope-value")));
    assertEquals(40401, codeOf(() -> client.lookup("nope-value", PortCounters.getClassSchema())));
    assertEquals(40403, codeOf(() -> client.getById(999)));
    assertTrue(client.isCompatible("nope-value", PortCounters.getClassSchema()));

    int id = client.register(SUBJECT, PortCounters.getClassSchema());
    assertEquals(40403, codeOf(() -> client.lookup(SUBJECT, Alert.getClassSchema())));
    assertEquals(id, client.lookup(SUBJECT, PortCounters.getClassSchema()));

    // A required field without a default cannot read the data already written: 409.
    Schema incompatible =
        new Schema.Parser()
            .parse(
                PortCounters.getClassSchema()
                    .toString()
                    .replace(
                        "\"fields\":[", "\"fields\":[{\"name\":\"rack\",\"type\":\"string\"},"));
    assertFalse(client.isCompatible(SUBJECT, incompatible));
    SchemaRegistryException conflict =
        assertThrows(SchemaRegistryException.class, () -> client.register(SUBJECT, incompatible));
    assertEquals(409, conflict.errorCode());
    assertTrue(conflict.getMessage().contains("HTTP 409"), conflict.getMessage());
    assertTrue(client.isCompatible(SUBJECT, PortCounters.getClassSchema()));

    SchemaRegistryClient.RegisteredSchema latest = client.latest(SUBJECT);
    assertEquals(
        new SchemaRegistryClient.RegisteredSchema(SUBJECT, 1, id, PortCounters.getClassSchema()),
        latest);
  }

  @Test
  void wrongCredentialsGive401WithoutLeakingThePassword() {
    Serde<PortCounters> serde = serde(server.url(), "fabric:wrong-pw");
    SerializationException e =
        assertThrows(
            SerializationException.class,
            () ->
                serde
                    .serializer()
                    .serialize(FabricTopics.PORT_COUNTERS, SampleRecords.portCounters()));
    SchemaRegistryException cause = assertInstanceOf(SchemaRegistryException.class, e.getCause());
    assertEquals(401, cause.errorCode());
    for (Throwable t = e; t != null; t = t.getCause()) {
      assertFalse(t.getMessage().contains("wrong-pw"), t.getMessage());
      assertFalse(t.getMessage().contains("s3cret-pw"), t.getMessage());
    }
    assertEquals(1, server.requests().size());
  }

  @Test
  void localServerChecksContentTypeAndAuthLikeTheRegistry() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String body = "{\"schema\":" + quote(PortCounters.getClassSchema().toString()) + "}";
    String basic =
        "Basic " + java.util.Base64.getEncoder().encodeToString(USER_INFO.getBytes("UTF-8"));
    URI register = URI.create(server.url() + "/subjects/" + SUBJECT + "/versions");

    HttpResponse<String> textPlain =
        http.send(
            HttpRequest.newBuilder(register)
                .header("Authorization", basic)
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(415, textPlain.statusCode());

    HttpResponse<String> noAuth =
        http.send(
            HttpRequest.newBuilder(register)
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(401, noAuth.statusCode());

    HttpResponse<String> ok =
        http.send(
            HttpRequest.newBuilder(register)
                .header("Authorization", basic)
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ok.statusCode());
    assertEquals("{\"id\":1}", ok.body());
    assertEquals(
        Collections.nCopies(1, "application/vnd.schemaregistry.v1+json"),
        ok.headers().allValues("Content-Type"));
  }

  private static String quote(String text) throws IOException {
    return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(text);
  }

  private static int codeOf(Runnable call) {
    return assertThrows(SchemaRegistryException.class, call::run).errorCode();
  }
}
