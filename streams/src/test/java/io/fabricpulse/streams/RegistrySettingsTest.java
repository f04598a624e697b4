package io.fabricpulse.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import io.fabricpulse.schemas.registry.LocalSchemaRegistryServer;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.avro.Schema;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every schema-registry setting given to {@link FabricTopology#build(FabricTopics, Map, RuleSet,
 * RateConfig, Properties)} reaches the serdes the topology writes with: an SM failover's alert is
 * written with basic auth to a REST registry that demands it, is refused without auto-registration
 * until its schema is registered, and carries the latest registered schema with {@code
 * use.latest.version}.
 */
class RegistrySettingsTest {

  private static final Instant T0 = Instant.parse("2025-03-10T06:00:00Z");
  private static final String ALERT_SUBJECT =
      FabricTopics.ALERTS + "-" + Alert.getClassSchema().getFullName();

  @TempDir Path stateDir;

  @Test
  void basicAuthReachesTheSerdesTheTopologyWritesWith() throws Exception {
    try (LocalSchemaRegistryServer server = new LocalSchemaRegistryServer("fabricpulse:s3cret")) {
      Map<String, Object> withAuth =
          Map.of(
              AvroSerdeConfig.SCHEMA_REGISTRY_URL,
              server.url(),
              AvroSerdeConfig.BASIC_AUTH_USER_INFO,
              "fabricpulse:s3cret");
      assertEquals(1, failover(withAuth, withAuth, "auth").size());
      assertTrue(
          server.requests().contains("POST /subjects/" + ALERT_SUBJECT + "/versions"),
          server.requests().toString());

      // without the credentials in the topology's settings, its serdes are refused (401): the
      // application stops on it (a retry), never dead-letters the good input
      Map<String, Object> noAuth = Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, server.url());
      StreamsException e =
          assertThrows(StreamsException.class, () -> failover(noAuth, withAuth, "no-auth"));
      assertTrue(causes(e).contains("HTTP 401"), causes(e));
    }
  }

  @Test
  void autoRegisterAndUseLatestVersionReachTheSerdes() throws Exception {
    try {
      // nothing registered and auto.register.schemas=false: the topology's serdes refuse to write
      Map<String, Object> empty = Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://settings-a");
      Map<String, Object> noAutoRegister = new HashMap<>(empty);
      noAutoRegister.put(AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, "false");
      StreamsException e =
          assertThrows(
              StreamsException.class, () -> failover(noAutoRegister, empty, "no-register"));
      assertTrue(causes(e).contains("auto.register.schemas=false"), causes(e));

      // a run with the defaults registers every subject; then a later Alert version is
      // registered by someone else: with use.latest.version the topology writes with it
      Map<String, Object> defaults =
          Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, "mock://settings-b");
      assertEquals(1, failover(defaults, defaults, "register").size());
      int latest =
          InMemorySchemaRegistry.forScope("settings-b")
              .register(ALERT_SUBJECT, alertWithOneMoreField());
      Map<String, Object> useLatest = new HashMap<>(defaults);
      useLatest.put(AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, "false");
      useLatest.put(AvroSerdeConfig.USE_LATEST_VERSION, "true");
      List<byte[]> written = failover(useLatest, defaults, "latest");
      assertEquals(1, written.size());
      assertEquals(latest, ByteBuffer.wrap(written.get(0), 1, 4).getInt());
    } finally {
      InMemorySchemaRegistry.dropScope("settings-a");
      InMemorySchemaRegistry.dropScope("settings-b");
    }
  }

  /** Pipes an SM failover; returns the alerts' raw values as written. */
  private List<byte[]> failover(
      Map<String, Object> topologySettings, Map<String, Object> inputSettings, String name)
      throws Exception {
    Properties props =
        DriverSettings.of("registry-settings-test", stateDir.resolve(name).toString());
    FabricTopics topics = FabricTopics.defaults();
    var topology =
        FabricTopology.build(
            topics,
            topologySettings,
            RuleSet.load(RepoPaths.alertRules()),
            RateConfig.defaults(),
            props);
    try (TopologyTestDriver driver = new TopologyTestDriver(topology, props, T0)) {
      var sm =
          driver.createInputTopic(
              topics.sm().name(),
              new StringSerializer(),
              AvroSerde.forValues(SmSweep.class, inputSettings).serializer());
      var alerts =
          driver.createOutputTopic(
              topics.alerts().name(), new StringDeserializer(), new ByteArrayDeserializer());
      sm.pipeInput("c1/gpu001", poll(T0, "0x1", 1), T0);
      sm.pipeInput("c1/gpu001", poll(T0.plusSeconds(10), "0x2", 2), T0.plusSeconds(10));
      return alerts.readValuesToList();
    }
  }

  /** The messages of {@code e} and its causes, one per line. */
  private static String causes(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      out.append(t).append('\n');
    }
    return out.toString();
  }

  /** Alert plus an optional field, as a later release might register it. */
  private static Schema alertWithOneMoreField() throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode schema = (ObjectNode) json.readTree(Alert.getClassSchema().toString());
    ObjectNode field = ((ArrayNode) schema.get("fields")).addObject();
    field.put("name", "ticket");
    field.putArray("type").add("null").add("string");
    field.putNull("default");
    return new Schema.Parser().parse(schema.toString());
  }

  private static SmSweep poll(Instant t, String guid, int lid) {
    return SmSweep.newBuilder()
        .setCluster("c1")
        .setNode("gpu001")
        .setBootId("b")
        .setSeq(lid)
        .setTime(t)
        .setSource(SmSource.SMINFO)
        .setEvent(SmEventKind.SMINFO_POLL)
        .setSmState("MASTER")
        .setSmGuid(guid)
        .setSmLid(lid)
        .setActivityCount(100L)
        .setRawLine("sminfo: sm lid " + lid + " sm guid " + guid + ", activity count 100")
        .build();
  }
}
