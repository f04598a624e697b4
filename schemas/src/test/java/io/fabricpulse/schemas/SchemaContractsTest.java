package io.fabricpulse.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.junit.jupiter.api.Test;

/**
 * The Avro contracts: every schema in src/main/avro can read data written with its last released
 * version (docs/design.md section 3), and every field is documented. When a release ships, copy
 * src/main/avro to src/test/resources/released/&lt;version&gt;/ and point RELEASED at it.
 */
class SchemaContractsTest {

  static final Path CURRENT = Path.of("src/main/avro");
  static final Path RELEASED = Path.of("src/test/resources/released/0.1.0");

  /**
   * Records added since release 0.1.0, with their contract version; they have no released version
   * to be checked against until the next release copies them to src/test/resources/released.
   */
  static final Map<String, Integer> NEW_SINCE_RELEASE =
      Map.of(
          "io.fabricpulse.avro.BridgeCounters", 1,
          "io.fabricpulse.avro.FabricLink", 1,
          "io.fabricpulse.avro.FabricLinkChange", 1,
          "io.fabricpulse.avro.FabricFindings", 1,
          "io.fabricpulse.avro.NodeCounters", 1,
          "io.fabricpulse.avro.NodeRates", 1);

  /** Top-level schemas of a directory by full name; Counter.avsc first, the others use it. */
  static Map<String, Schema> load(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files =
          list.filter(p -> p.toString().endsWith(".avsc"))
              .sorted((a, b) -> isCounter(a) ? -1 : isCounter(b) ? 1 : a.compareTo(b))
              .toList();
    }
    Schema.Parser parser = new Schema.Parser();
    Map<String, Schema> schemas = new LinkedHashMap<>();
    for (Path file : files) {
      Schema schema = parser.parse(file.toFile());
      schemas.put(schema.getFullName(), schema);
    }
    return schemas;
  }

  private static boolean isCounter(Path p) {
    return p.getFileName().toString().equals("Counter.avsc");
  }

  /** Why {@code reader} cannot read data written with {@code writer}, one line per field. */
  static List<String> backwardViolations(Schema reader, Schema writer) {
    List<String> violations = new ArrayList<>();
    for (SchemaCompatibility.Incompatibility i :
        SchemaCompatibility.checkReaderWriterCompatibility(reader, writer)
            .getResult()
            .getIncompatibilities()) {
      violations.add(
          fieldPath(reader, i.getLocation()) + ": " + i.getType() + ": " + i.getMessage());
    }
    return violations;
  }

  /** A JSON pointer into the reader schema (/fields/16/type/items/fields/2) as field names. */
  static String fieldPath(Schema schema, String pointer) {
    StringBuilder path = new StringBuilder(schema.getName());
    String[] tokens = pointer.split("/");
    for (int i = 1; i < tokens.length; i++) {
      String token = tokens[i];
      if (token.equals("fields") && i + 1 < tokens.length) {
        Schema.Field field = schema.getFields().get(Integer.parseInt(tokens[++i]));
        path.append('.').append(field.name());
        schema = field.schema();
      } else if (token.equals("items")) {
        path.append("[]");
        schema = schema.getElementType();
      } else if (token.equals("values")) {
        path.append("{}");
        schema = schema.getValueType();
      } else if (token.matches("\\d+") && schema.getType() == Schema.Type.UNION) {
        schema = schema.getTypes().get(Integer.parseInt(token));
      } else if (!token.equals("type")) {
        path.append(" (").append(token).append(')');
      }
    }
    return path.toString();
  }

  @Test
  void everyCurrentSchemaReadsDataWrittenWithItsReleasedVersion() throws IOException {
    Map<String, Schema> current = load(CURRENT);
    Map<String, Schema> released = load(RELEASED);
    // 9 topic value types of 0.1, the 2 node records of 0.2, the 2 topology records, the bridges'
    // counters, the ibdiagnet findings, and Counter; the 4 per-port records of 0.1 are still read
    // during an upgrade and are the views parse prints
    assertEquals(18, current.size(), current.keySet().toString());

    List<String> violations = new ArrayList<>();
    for (Map.Entry<String, Schema> old : released.entrySet()) {
      Schema now = current.get(old.getKey());
      if (now == null) {
        violations.add(old.getKey() + ": removed since release 0.1.0");
      } else {
        violations.addAll(backwardViolations(now, old.getValue()));
      }
    }
    assertTrue(violations.isEmpty(), String.join("\n", violations));
  }

  @Test
  void everySchemaIsReleasedOrListedAsNewWithItsVersion() throws IOException {
    Map<String, Schema> current = load(CURRENT);
    Map<String, Schema> released = load(RELEASED);
    List<String> unlisted = new ArrayList<>();
    for (Map.Entry<String, Schema> schema : current.entrySet()) {
      String name = schema.getKey();
      if (released.containsKey(name)) {
        assertTrue(!NEW_SINCE_RELEASE.containsKey(name), name + " is released, not new");
        continue;
      }
      Integer version = NEW_SINCE_RELEASE.get(name);
      if (version == null) {
        unlisted.add(name);
      } else {
        String doc = schema.getValue().getDoc();
        assertTrue(
            doc.startsWith("Version " + version + " of "),
            name + " doc should start with its contract version: " + doc);
      }
    }
    assertTrue(unlisted.isEmpty(), "new schemas not in NEW_SINCE_RELEASE: " + unlisted);
  }

  @Test
  void theTopologyTopicReadsLinksWrittenBeforeAnOptionalFieldWasAdded() throws IOException {
    // fabric.topology is compacted: a link record can stay on the topic for years, so every later
    // FabricLink must read it. A future optional field is the allowed kind of change.
    Schema current = load(CURRENT).get("io.fabricpulse.avro.FabricLink");
    Schema withExtraOptional =
        new Schema.Parser()
            .parse(
                current
                    .toString()
                    .replace(
                        "{\"name\":\"possible_width\"",
                        "{\"name\":\"cable\",\"type\":[\"null\",\"string\"],\"default\":null,"
                            + "\"doc\":\"x\"},{\"name\":\"possible_width\""));
    assertTrue(withExtraOptional.getField("cable") != null);
    assertEquals(List.of(), backwardViolations(withExtraOptional, current));
    Schema withExtraRequired =
        new Schema.Parser()
            .parse(
                current
                    .toString()
                    .replace(
                        "{\"name\":\"possible_width\"",
                        "{\"name\":\"cable\",\"type\":\"string\"},{\"name\":\"possible_width\""));
    assertEquals(1, backwardViolations(withExtraRequired, current).size());
  }

  @Test
  void anAlertKindOfALaterReleaseReadsAsUnknown() throws IOException {
    // a later release adds a kind: this release must not read it as another kind (0.1.0's enum
    // default was PAUSE_STORM, so 0.1.0 consumers page a pause storm for it)
    Schema current = load(CURRENT).get("io.fabricpulse.avro.Alert");
    Schema later =
        new Schema.Parser()
            .parse(current.toString().replace("\"UNKNOWN\"]", "\"UNKNOWN\",\"RAIL_IMBALANCE\"]"));
    assertEquals(List.of(), backwardViolations(current, later));
    GenericRecord alert = new GenericData.Record(later);
    for (Schema.Field f : later.getFields()) {
      if (f.hasDefaultValue()) {
        alert.put(f.name(), GenericData.get().getDefaultValue(f));
      }
    }
    io.fabricpulse.avro.Alert sample = SampleRecords.alert();
    for (Schema.Field f : sample.getSchema().getFields()) {
      Object value = sample.get(f.pos());
      alert.put(
          f.name(),
          value instanceof Enum<?> e
              ? new GenericData.EnumSymbol(later.getField(f.name()).schema(), e.name())
              : value);
    }
    alert.put(
        "kind", new GenericData.EnumSymbol(later.getField("kind").schema(), "RAIL_IMBALANCE"));
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    org.apache.avro.io.BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
    GenericData withTimes = new GenericData();
    withTimes.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    new GenericDatumWriter<GenericRecord>(later, withTimes).write(alert, encoder);
    encoder.flush();
    io.fabricpulse.avro.Alert read =
        new SpecificDatumReader<io.fabricpulse.avro.Alert>(later, current)
            .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    assertEquals(io.fabricpulse.avro.AlertKind.UNKNOWN, read.getKind());
    assertEquals(sample.getAlertId(), read.getAlertId());
  }

  @Test
  void violationsNameTheFieldPath() throws IOException {
    Schema released = load(RELEASED).get("io.fabricpulse.avro.PortCounters");
    // A nested field changing type, and a new required field without a default.
    Schema broken =
        new Schema.Parser()
            .parse(
                released
                    .toString()
                    .replace(
                        "{\"name\":\"width\",\"type\":\"int\"",
                        "{\"name\":\"width\",\"type\":\"string\"")
                    .replace(
                        "{\"name\":\"read_errors\"",
                        "{\"name\":\"rack\",\"type\":\"string\"},{\"name\":\"read_errors\""));

    List<String> violations = backwardViolations(broken, released);

    assertEquals(2, violations.size(), violations.toString());
    assertTrue(
        violations.get(0).startsWith("PortCounters.counters[].width: TYPE_MISMATCH"),
        violations.toString());
    assertTrue(
        violations.get(1).startsWith("PortCounters.rack: READER_FIELD_MISSING_DEFAULT_VALUE"),
        violations.toString());
  }

  @Test
  void everyFieldOfEverySchemaHasADoc() throws IOException {
    List<String> undocumented = new ArrayList<>();
    int fields = 0;
    for (Schema schema : load(CURRENT).values()) {
      fields += collectUndocumented(schema, schema.getName(), undocumented, new ArrayList<>());
    }
    assertTrue(fields > 150, "only " + fields + " fields seen");
    assertTrue(undocumented.isEmpty(), "fields without doc: " + undocumented);
  }

  /** Walks records, arrays, maps and unions; returns the number of fields visited. */
  private static int collectUndocumented(
      Schema schema, String path, List<String> undocumented, List<String> seen) {
    switch (schema.getType()) {
      case RECORD:
        if (seen.contains(schema.getFullName())) {
          return 0;
        }
        seen.add(schema.getFullName());
        int count = 0;
        for (Schema.Field field : schema.getFields()) {
          String fieldPath = path + "." + field.name();
          if (field.doc() == null || field.doc().isBlank()) {
            undocumented.add(fieldPath);
          }
          count += 1 + collectUndocumented(field.schema(), fieldPath, undocumented, seen);
        }
        return count;
      case ARRAY:
        return collectUndocumented(schema.getElementType(), path + "[]", undocumented, seen);
      case MAP:
        return collectUndocumented(schema.getValueType(), path + "{}", undocumented, seen);
      case UNION:
        return schema.getTypes().stream()
            .mapToInt(t -> collectUndocumented(t, path, undocumented, seen))
            .sum();
      default:
        return 0;
    }
  }
}
