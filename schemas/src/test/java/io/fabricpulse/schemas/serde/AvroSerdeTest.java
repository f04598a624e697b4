package io.fabricpulse.schemas.serde;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.SampleRecords;
import io.fabricpulse.schemas.registry.InMemorySchemaRegistry;
import io.fabricpulse.schemas.registry.SchemaRegistryException;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class AvroSerdeTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final String scope = "serde-test-" + System.nanoTime();
  private final String url = "mock://" + scope;
  private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

  @AfterEach
  void dropScope() {
    InMemorySchemaRegistry.dropScope(scope);
  }

  static List<SpecificRecord> everyRecordType() {
    return SampleRecords.all();
  }

  /** The subject of 0.1 PortCounters on fabric.raw.port-counters (TopicRecordNameStrategy). */
  static final String PORT_SUBJECT =
      FabricTopics.PORT_COUNTERS + "-" + PortCounters.getClassSchema().getFullName();

  static String topicOf(Class<?> type) {
    // the 0.1 per-port records still travel on the topics of their 0.2 node records
    if (type == PortCounters.class) {
      return FabricTopics.PORT_COUNTERS;
    }
    if (type == PfcPauseFrames.class) {
      return FabricTopics.PFC;
    }
    if (type == EcnMarks.class) {
      return FabricTopics.ECN;
    }
    if (type == CounterRates.class) {
      return FabricTopics.RATES;
    }
    return FabricTopics.defaults().all().stream()
        .filter(t -> t.valueType() == type)
        .map(TopicSpec::name)
        .findFirst()
        .orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private <T extends SpecificRecord> Serde<T> serdeFor(T record, Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>(extra);
    config.put(AvroSerdeConfig.SCHEMA_REGISTRY_URL, url);
    return AvroSerde.forValues((Class<T>) record.getClass(), config);
  }

  private static byte[] plainAvro(SpecificRecord record) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new SpecificDatumWriter<SpecificRecord>(record.getSchema()).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  @Test
  void samplesCoverEveryValueTypeOfEveryTopic() {
    Set<Class<?>> topicTypes =
        FabricTopics.defaults().all().stream()
            .map(TopicSpec::valueType)
            .collect(Collectors.toSet());
    Set<Class<?>> sampleTypes =
        SampleRecords.all().stream().map(Object::getClass).collect(Collectors.toSet());
    assertTrue(sampleTypes.containsAll(topicTypes), () -> topicTypes + " vs " + sampleTypes);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyRecordType")
  <T extends SpecificRecord> void roundTripInConfluentWireFormat(T record) throws IOException {
    String topic = topicOf(record.getClass());
    Serde<T> serde = serdeFor(record, Map.of());

    byte[] bytes = serde.serializer().serialize(topic, record);

    // Confluent wire format: magic 0, big-endian schema id of subject <topic>-<record name>, Avro
    // binary.
    assertEquals(0, bytes[0]);
    int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
    assertEquals(registry.latest(topic + "-" + record.getSchema().getFullName()).id(), id);
    assertEquals(record.getSchema(), registry.getById(id));
    byte[] payload = Arrays.copyOfRange(bytes, 5, bytes.length);
    assertArrayEquals(plainAvro(record), payload);

    // A plain Avro reader with the writer schema decodes the payload and consumes all of it.
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(payload, null);
    GenericRecord generic =
        new GenericDatumReader<GenericRecord>(registry.getById(id)).read(null, decoder);
    assertTrue(decoder.isEnd());
    assertEquals(record.getSchema().getFullName(), generic.getSchema().getFullName());
    assertEquals(plain(record), plain(generic));

    assertEquals(record, serde.deserializer().deserialize(topic, bytes));
  }

  @Test
  void nullCounterValueSurvivesTheRoundTrip() {
    PortCounters record = SampleRecords.portCounters();
    Serde<PortCounters> serde = serdeFor(record, Map.of());
    PortCounters back =
        serde
            .deserializer()
            .deserialize(
                FabricTopics.PORT_COUNTERS,
                serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record));
    Counter noPma = back.getCounters().get(5);
    assertEquals("port_rcv_data", noPma.getName());
    assertEquals(null, noPma.getValue());
    assertEquals("N/A (no PMA)", noPma.getUnavailable());
    assertEquals(-1L, back.getCounters().get(0).getValue()); // 2^64-1 as two's complement
  }

  @Test
  void valueSubjectsFollowTopicRecordNameStrategyAndKeySubjectsTopicNameStrategy() {
    PortCounters record = SampleRecords.portCounters();
    Serde<PortCounters> serde = serdeFor(record, Map.of());
    byte[] raw = serde.serializer().serialize("fabric.raw.port-counters", record);
    byte[] replay = serde.serializer().serialize("replay.inc42.fabric.raw.port-counters", record);

    assertEquals(1, registry.latest(PORT_SUBJECT).version());
    assertEquals(
        1,
        registry
            .latest("replay.inc42.fabric.raw.port-counters-io.fabricpulse.avro.PortCounters")
            .version());
    // Same schema under two subjects: one global id, as in Confluent's registry.
    assertArrayEquals(Arrays.copyOfRange(raw, 0, 5), Arrays.copyOfRange(replay, 0, 5));

    AvroSerializer<Counter> keySerializer = new AvroSerializer<>();
    keySerializer.configure(Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, url), true);
    keySerializer.serialize("fabric.keyed", SampleRecords.portCounters().getCounters().get(1));
    assertEquals(Counter.getClassSchema(), registry.latest("fabric.keyed-key").schema());
    SchemaRegistryException noValueSubject =
        assertThrows(SchemaRegistryException.class, () -> registry.latest("fabric.keyed-value"));
    assertEquals(40401, noValueSubject.errorCode());
  }

  @Test
  void aTopicCarriesTheRecordsOfTwoContractVersionsEachUnderItsOwnSubject() {
    PortCounters v01 = SampleRecords.portCounters();
    NodeCounters v02 = SampleRecords.nodeCounters();
    serdeFor(v01, Map.of()).serializer().serialize(FabricTopics.PORT_COUNTERS, v01);
    byte[] bytes = serdeFor(v02, Map.of()).serializer().serialize(FabricTopics.PORT_COUNTERS, v02);

    assertEquals(
        NodeCounters.getClassSchema(),
        registry.latest(FabricTopics.PORT_COUNTERS + "-io.fabricpulse.avro.NodeCounters").schema());
    AvroOneOfDeserializer reader =
        new AvroOneOfDeserializer(List.of(NodeCounters.class, PortCounters.class), registry);
    assertEquals(v02, reader.deserialize(FabricTopics.PORT_COUNTERS, bytes));
  }

  @Test
  void aRecordOfATypeTheTopicDoesNotCarryIsRefusedNamingWhatIsAccepted() {
    Alert alert = SampleRecords.alert();
    byte[] bytes =
        serdeFor(alert, Map.of()).serializer().serialize(FabricTopics.PORT_COUNTERS, alert);
    AvroOneOfDeserializer reader =
        new AvroOneOfDeserializer(List.of(NodeCounters.class, PortCounters.class), registry);

    SerializationException e =
        assertThrows(
            SerializationException.class,
            () -> reader.deserialize(FabricTopics.PORT_COUNTERS, bytes));
    assertTrue(e.getMessage().contains("io.fabricpulse.avro.Alert"), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains("io.fabricpulse.avro.NodeCounters, io.fabricpulse.avro.PortCounters"),
        e.getMessage());
    SerializationException notAvro =
        assertThrows(
            SerializationException.class,
            () -> reader.deserialize(FabricTopics.PORT_COUNTERS, new byte[] {'{', '}'}));
    assertTrue(
        notAvro.getMessage().contains("not Confluent Avro wire format"), notAvro.getMessage());
  }

  @Test
  void confluentsTopicNameStrategyCanBeChosenAndAnUnknownStrategyIsNamed() {
    PortCounters record = SampleRecords.portCounters();
    serdeFor(
            record,
            Map.of(
                AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY,
                "io.confluent.kafka.serializers.subject.TopicNameStrategy"))
        .serializer()
        .serialize(FabricTopics.PORT_COUNTERS, record);
    assertEquals(1, registry.latest(FabricTopics.PORT_COUNTERS + "-value").version());

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                serdeFor(
                    record, Map.of(AvroSerdeConfig.VALUE_SUBJECT_NAME_STRATEGY, "ByRackStrategy")));
    assertTrue(e.getMessage().contains("value.subject.name.strategy"), e.getMessage());
    assertTrue(e.getMessage().contains("ByRackStrategy"), e.getMessage());
  }

  @Test
  void withoutAutoRegisterAnUnregisteredSchemaFailsClearly() {
    PortCounters record = SampleRecords.portCounters();
    Serde<PortCounters> serde =
        serdeFor(record, Map.of(AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, "false"));

    SerializationException e =
        assertThrows(
            SerializationException.class,
            () -> serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record));
    assertTrue(e.getMessage().contains(PORT_SUBJECT), e.getMessage());
    assertTrue(e.getMessage().contains("auto.register.schemas=false"), e.getMessage());
    assertTrue(e.getMessage().contains("40401"), e.getMessage());

    int id = registry.register(PORT_SUBJECT, PortCounters.getClassSchema());
    byte[] bytes = serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record);
    assertEquals(id, ByteBuffer.wrap(bytes, 1, 4).getInt());
  }

  /** PortCounters as it was before read_errors (which has a default) was added. */
  static Schema portCountersWithoutReadErrors() throws IOException {
    ObjectNode json = (ObjectNode) JSON.readTree(PortCounters.getClassSchema().toString());
    ArrayNode fields = (ArrayNode) json.get("fields");
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).get("name").asText().equals("read_errors")) {
        fields.remove(i);
      }
    }
    return new Schema.Parser().parse(json.toString());
  }

  /** PortCounters plus a field with a default, as a later version of the contract might add. */
  static Schema portCountersWithFirmware() throws IOException {
    ObjectNode json = (ObjectNode) JSON.readTree(PortCounters.getClassSchema().toString());
    ObjectNode field = ((ArrayNode) json.get("fields")).addObject();
    field.put("name", "fw_ver");
    field.putArray("type").add("null").add("string");
    field.putNull("default");
    field.put("doc", "Firmware version of the device.");
    return new Schema.Parser().parse(json.toString());
  }

  @Test
  void readsRecordsWrittenWithAnOlderSchemaVersion() throws IOException {
    Schema older = portCountersWithoutReadErrors();
    String subject = PORT_SUBJECT;
    int olderId = registry.register(subject, older);
    int currentId = registry.register(subject, PortCounters.getClassSchema());
    assertNotEquals(olderId, currentId);

    // A producer still on the older version writes a record.
    PortCounters sample = SampleRecords.portCounters();
    GenericData.Record old = new GenericData.Record(older);
    for (Schema.Field f : older.getFields()) {
      old.put(f.name(), sample.get(f.name()));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(0);
    out.write(ByteBuffer.allocate(4).putInt(olderId).array());
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(older, SpecificData.getForClass(PortCounters.class))
        .write(old, encoder);
    encoder.flush();

    PortCounters read =
        new AvroDeserializer<>(PortCounters.class, registry)
            .deserialize(FabricTopics.PORT_COUNTERS, out.toByteArray());

    assertEquals(List.of(), read.getReadErrors()); // the default of the added field
    PortCounters expected = PortCounters.newBuilder(sample).setReadErrors(List.of()).build();
    assertEquals(expected, read);
  }

  @Test
  void useLatestVersionWritesWithTheLatestSchemaAndItsId() throws IOException {
    String subject = PORT_SUBJECT;
    registry.register(subject, PortCounters.getClassSchema());
    Schema newer = portCountersWithFirmware();
    int newerId = registry.register(subject, newer);

    PortCounters record = SampleRecords.portCounters();
    Serde<PortCounters> serde =
        serdeFor(
            record,
            Map.of(
                AvroSerdeConfig.AUTO_REGISTER_SCHEMAS, false,
                AvroSerdeConfig.USE_LATEST_VERSION, true));
    byte[] bytes = serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record);

    assertEquals(newerId, ByteBuffer.wrap(bytes, 1, 4).getInt());
    // The bytes really are the latest schema's encoding: a plain reader with it decodes them all.
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, 5, bytes.length - 5, null);
    GenericRecord generic = new GenericDatumReader<GenericRecord>(newer).read(null, decoder);
    assertTrue(decoder.isEnd());
    assertEquals(null, generic.get("fw_ver"));
    assertEquals("gpu017", generic.get("node").toString());
    assertEquals(record, serde.deserializer().deserialize(FabricTopics.PORT_COUNTERS, bytes));
    assertEquals(2, registry.latest(subject).version()); // nothing registered by the serializer
  }

  @Test
  void useLatestVersionRefusesALatestSchemaThatCannotHoldTheRecord() throws IOException {
    ObjectNode json = (ObjectNode) JSON.readTree(PortCounters.getClassSchema().toString());
    ObjectNode field = ((ArrayNode) json.get("fields")).addObject();
    field.put("name", "rack");
    field.put("type", "string"); // required, no default: PortCounters records lack it
    registry.register(PORT_SUBJECT, new Schema.Parser().parse(json.toString()));

    PortCounters record = SampleRecords.portCounters();
    Serde<PortCounters> serde = serdeFor(record, Map.of(AvroSerdeConfig.USE_LATEST_VERSION, true));
    SerializationException e =
        assertThrows(
            SerializationException.class,
            () -> serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record));
    assertTrue(e.getMessage().contains("latest version 1 of " + PORT_SUBJECT));
  }

  @Test
  void aRecordOfAnotherNameIsRefusedEvenWhenItsFieldsFit() throws IOException {
    // the same fields under another record name: Avro resolution alone would accept it
    ObjectNode json = (ObjectNode) JSON.readTree(PortCounters.getClassSchema().toString());
    json.put("name", "SomethingElse");
    Schema other = new Schema.Parser().parse(json.toString());
    int id = registry.register("fabric.raw.port-counters-io.fabricpulse.avro.SomethingElse", other);
    PortCounters record = SampleRecords.portCounters();
    byte[] bytes =
        serdeFor(record, Map.of()).serializer().serialize(FabricTopics.PORT_COUNTERS, record);
    ByteBuffer.wrap(bytes).putInt(1, id);

    Serde<PortCounters> serde = serdeFor(record, Map.of());
    SerializationException e =
        assertThrows(
            SerializationException.class,
            () -> serde.deserializer().deserialize(FabricTopics.PORT_COUNTERS, bytes));
    assertTrue(
        e.getMessage()
            .contains("io.fabricpulse.avro.SomethingElse, not io.fabricpulse.avro.PortCounters"),
        e.getMessage());
  }

  @Test
  void serdeSettingsAreTheRegistryKeysOfAClientConfig() {
    Map<String, Object> client =
        Map.of(
            "bootstrap.servers", "kafka:9092",
            "sasl.jaas.config", "...",
            "schema.registry.url", "http://registry:8081",
            "basic.auth.user.info", "fp:secret",
            "auto.register.schemas", "false",
            "use.latest.version", "true",
            "value.subject.name.strategy", "topic");
    assertEquals(
        java.util.Set.of(
            "schema.registry.url",
            "basic.auth.user.info",
            "auto.register.schemas",
            "use.latest.version",
            "value.subject.name.strategy"),
        AvroSerdeConfig.serdeSettings(client).keySet());
  }

  @Test
  void corruptInputNamesTheTopic() {
    PortCounters record = SampleRecords.portCounters();
    Serde<PortCounters> serde = serdeFor(record, Map.of());
    byte[] good = serde.serializer().serialize(FabricTopics.PORT_COUNTERS, record);
    String topic = FabricTopics.PORT_COUNTERS;

    byte[] wrongMagic = good.clone();
    wrongMagic[0] = 1;
    byte[] truncated = Arrays.copyOf(good, good.length - 20);
    byte[] tooShort = Arrays.copyOf(good, 3);
    byte[] unknownId = good.clone();
    unknownId[4] = 99;

    for (byte[] bad : List.of(wrongMagic, truncated, tooShort, unknownId)) {
      SerializationException e =
          assertThrows(
              SerializationException.class, () -> serde.deserializer().deserialize(topic, bad));
      assertTrue(e.getMessage().startsWith("topic " + topic + ": "), e.getMessage());
    }
    assertTrue(
        assertThrows(
                SerializationException.class,
                () -> serde.deserializer().deserialize(topic, wrongMagic))
            .getMessage()
            .contains("starting with 1"));
    assertEquals(null, serde.deserializer().deserialize(topic, null));
    assertEquals(null, serde.serializer().serialize(topic, null));
  }

  @Test
  void credentialsNeverAppearInConfigOrErrors() throws IOException {
    Map<String, Object> config =
        Map.of(
            AvroSerdeConfig.SCHEMA_REGISTRY_URL,
            List.of("http://sr-user:url-pass@127.0.0.1:1", "http://127.0.0.1:2"),
            AvroSerdeConfig.BASIC_AUTH_USER_INFO,
            "fabric:s3cret-pw");
    AvroSerdeConfig parsed = AvroSerdeConfig.from(config);
    assertEquals("http://sr-user:url-pass@127.0.0.1:1,http://127.0.0.1:2", parsed.registryUrl());
    assertFalse(parsed.toString().contains("s3cret-pw"), parsed.toString());
    assertFalse(parsed.toString().contains("url-pass"), parsed.toString());

    // Nothing listens on ports 1 and 2 of the loopback: both URLs fail, and the error says so.
    Serde<PortCounters> serde = AvroSerde.forValues(PortCounters.class, config);
    SerializationException e =
        assertThrows(
            SerializationException.class,
            () ->
                serde
                    .serializer()
                    .serialize(FabricTopics.PORT_COUNTERS, SampleRecords.portCounters()));
    String all = messages(e);
    assertTrue(all.contains("unreachable"), all);
    assertFalse(all.contains("s3cret-pw"), all);
    assertFalse(all.contains("url-pass"), all);
  }

  /** Generic and specific values as plain Java values, for comparing the two representations. */
  static Object plain(Object value) {
    if (value instanceof IndexedRecord r) {
      Map<String, Object> fields = new LinkedHashMap<>();
      r.getSchema().getFields().forEach(f -> fields.put(f.name(), plain(r.get(f.pos()))));
      return fields;
    }
    if (value instanceof Map<?, ?> m) {
      Map<String, Object> map = new HashMap<>();
      m.forEach((k, v) -> map.put(k.toString(), plain(v)));
      return map;
    }
    if (value instanceof Collection<?> c) {
      return c.stream().map(AvroSerdeTest::plain).toList();
    }
    if (value instanceof Instant i) {
      return i.toEpochMilli();
    }
    if (value instanceof CharSequence || value instanceof GenericEnumSymbol<?>) {
      return value.toString();
    }
    return value;
  }

  static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      all.append(t).append('\n');
    }
    return all.toString();
  }
}
