package io.fabricpulse.schemas.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * The JSON lines form of fabricpulse records (docs/design.md section 7), used by {@code parse},
 * {@code detect}, {@code export} and {@code collect --output json}.
 *
 * <p>One object per record: first {@code "type"} = the Avro record's simple name, then the fields
 * by their Avro names in schema order. timestamp-millis fields are ISO-8601 UTC strings ({@link
 * Instant#toString()}), enums their symbols, bytes base64, nested records, arrays and maps plain
 * JSON; null fields are omitted. Reading accepts exactly that: a missing field takes its default
 * (null for a nullable field without one); keys that are not fields of the record are ignored, as
 * Avro schema resolution ignores fields the reader does not know.
 */
public final class JsonRecords {

  /** Package of the generated record classes that {@link #fromJson(String)} may instantiate. */
  public static final String RECORD_PACKAGE = "io.fabricpulse.avro";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private JsonRecords() {}

  /** One JSON object on one line (no trailing newline). */
  public static String toJson(SpecificRecord record) {
    ObjectNode object = NODES.objectNode();
    object.put("type", record.getSchema().getName());
    writeFields(record, object);
    try {
      return JSON.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + record.getSchema().getName(), e);
    }
  }

  /** The record of the class named by {@code "type"}, among the generated fabricpulse records. */
  public static SpecificRecord fromJson(String line) {
    ObjectNode object = parseObject(line);
    JsonNode type = object.get("type");
    if (type == null || !type.isTextual()) {
      throw new IllegalArgumentException("type: missing; expected the record name, e.g. \"Alert\"");
    }
    return fromJson(object, recordClass(type.textValue()));
  }

  /** The record of class {@code type}; a {@code "type"} key, if present, must name that class. */
  public static <T extends SpecificRecord> T fromJson(String line, Class<T> type) {
    ObjectNode object = parseObject(line);
    JsonNode name = object.get("type");
    if (name != null && !type.getSimpleName().equals(name.asText())) {
      throw new IllegalArgumentException(
          "type: expected \"" + type.getSimpleName() + "\", got " + name);
    }
    return fromJson(object, type);
  }

  private static <T extends SpecificRecord> T fromJson(ObjectNode object, Class<T> type) {
    Schema schema = SpecificData.get().getSchema(type);
    return type.cast(readRecord(schema, object, schema.getName()));
  }

  private static ObjectNode parseObject(String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("expected one JSON object per line");
    }
    return (ObjectNode) node;
  }

  private static Class<? extends SpecificRecord> recordClass(String name) {
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new IllegalArgumentException("type: not a record name: \"" + name + "\"");
    }
    try {
      Class<?> found = Class.forName(RECORD_PACKAGE + "." + name);
      if (SpecificRecord.class.isAssignableFrom(found)) {
        return found.asSubclass(SpecificRecord.class);
      }
    } catch (ClassNotFoundException e) {
      // reported below
    }
    throw new IllegalArgumentException("type: unknown record type \"" + name + "\"");
  }

  // ---- writing

  private static void writeFields(IndexedRecord record, ObjectNode object) {
    for (Schema.Field field : record.getSchema().getFields()) {
      Object value = record.get(field.pos());
      if (value != null) {
        object.set(field.name(), toNode(field.schema(), value));
      }
    }
  }

  private static JsonNode toNode(Schema schema, Object value) {
    switch (schema.getType()) {
      case UNION:
        return toNode(branchOf(schema, value), value);
      case RECORD:
        ObjectNode object = NODES.objectNode();
        writeFields((IndexedRecord) value, object);
        return object;
      case ARRAY:
        ArrayNode array = NODES.arrayNode();
        for (Object item : (Collection<?>) value) {
          array.add(item == null ? NODES.nullNode() : toNode(schema.getElementType(), item));
        }
        return array;
      case MAP:
        ObjectNode map = NODES.objectNode();
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
          Object v = e.getValue();
          map.set(
              e.getKey().toString(),
              v == null ? NODES.nullNode() : toNode(schema.getValueType(), v));
        }
        return map;
      case LONG:
        if (isTimestampMillis(schema)) {
          Instant instant = value instanceof Instant i ? i : Instant.ofEpochMilli((Long) value);
          return NODES.textNode(instant.toString());
        }
        return NODES.numberNode((Long) value);
      case INT:
        return NODES.numberNode((Integer) value);
      case FLOAT:
        return NODES.numberNode((Float) value);
      case DOUBLE:
        return NODES.numberNode((Double) value);
      case BOOLEAN:
        return NODES.booleanNode((Boolean) value);
      case STRING:
      case ENUM:
        return NODES.textNode(value.toString());
      case BYTES:
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return NODES.textNode(Base64.getEncoder().encodeToString(bytes));
      case FIXED:
        return NODES.textNode(Base64.getEncoder().encodeToString(((GenericFixed) value).bytes()));
      default:
        throw new IllegalArgumentException("cannot write " + schema.getType() + " as JSON");
    }
  }

  /** The branch of a union that a Java value belongs to. */
  private static Schema branchOf(Schema union, Object value) {
    for (Schema branch : union.getTypes()) {
      if (isInstance(branch, value)) {
        return branch;
      }
    }
    throw new IllegalArgumentException(
        "value of " + value.getClass().getName() + " matches no branch of " + union);
  }

  private static boolean isInstance(Schema schema, Object value) {
    return switch (schema.getType()) {
      case NULL -> value == null;
      case BOOLEAN -> value instanceof Boolean;
      case INT -> value instanceof Integer;
      case LONG -> value instanceof Long || (value instanceof Instant && isTimestampMillis(schema));
      case FLOAT -> value instanceof Float;
      case DOUBLE -> value instanceof Double;
      case STRING -> value instanceof CharSequence;
      case BYTES -> value instanceof ByteBuffer;
      case ENUM -> value instanceof Enum<?> || value instanceof GenericEnumSymbol<?>;
      case FIXED -> value instanceof GenericFixed;
      case ARRAY -> value instanceof Collection<?>;
      case MAP -> value instanceof Map<?, ?>;
      case RECORD ->
          value instanceof IndexedRecord r
              && r.getSchema().getFullName().equals(schema.getFullName());
      default -> false;
    };
  }

  private static boolean isTimestampMillis(Schema schema) {
    return schema.getLogicalType() instanceof LogicalTypes.TimestampMillis;
  }

  // ---- reading; path names the field in errors, e.g. PortCounters.counters[3].value

  private static SpecificRecord readRecord(Schema schema, JsonNode node, String path) {
    if (!node.isObject()) {
      throw bad(path, "a JSON object", node);
    }
    SpecificData model =
        SpecificData.getForSchema(schema); // the generated class's, with conversions
    SpecificRecord record = (SpecificRecord) model.newRecord(null, schema);
    for (Schema.Field field : schema.getFields()) {
      JsonNode value = node.get(field.name());
      String fieldPath = path + "." + field.name();
      if (value == null && field.hasDefaultValue()) {
        // getDefaultValue returns a shared cached instance: copy it, as generated builders do.
        record.put(field.pos(), model.deepCopy(field.schema(), model.getDefaultValue(field)));
      } else if (value == null || value.isNull()) {
        if (!field.schema().isNullable()) {
          throw new IllegalArgumentException(
              fieldPath + ": " + (value == null ? "missing" : "null") + ", but it is required");
        }
        record.put(field.pos(), null);
      } else {
        record.put(field.pos(), read(field.schema(), value, fieldPath));
      }
    }
    return record;
  }

  private static Object read(Schema schema, JsonNode node, String path) {
    switch (schema.getType()) {
      case UNION:
        return readUnion(schema, node, path);
      case RECORD:
        return readRecord(schema, node, path);
      case ARRAY:
        if (!node.isArray()) {
          throw bad(path, "a JSON array", node);
        }
        List<Object> list = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
          list.add(read(schema.getElementType(), node.get(i), path + "[" + i + "]"));
        }
        return list;
      case MAP:
        if (!node.isObject()) {
          throw bad(path, "a JSON object", node);
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          map.put(e.getKey(), read(schema.getValueType(), e.getValue(), path + "." + e.getKey()));
        }
        return map;
      case LONG:
        if (isTimestampMillis(schema)) {
          return readInstant(node, path);
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
          throw bad(path, "a 64-bit integer", node);
        }
        return node.longValue();
      case INT:
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
          throw bad(path, "a 32-bit integer", node);
        }
        return node.intValue();
      case DOUBLE:
        return readDouble(node, path);
      case FLOAT:
        return (float) readDouble(node, path);
      case BOOLEAN:
        if (!node.isBoolean()) {
          throw bad(path, "true or false", node);
        }
        return node.booleanValue();
      case STRING:
        if (!node.isTextual()) {
          throw bad(path, "a string", node);
        }
        return node.textValue();
      case ENUM:
        if (!node.isTextual() || !schema.hasEnumSymbol(node.textValue())) {
          throw bad(path, "one of " + schema.getEnumSymbols(), node);
        }
        return SpecificData.get().createEnum(node.textValue(), schema);
      case BYTES:
        return ByteBuffer.wrap(readBase64(node, path));
      case FIXED:
        byte[] bytes = readBase64(node, path);
        if (bytes.length != schema.getFixedSize()) {
          throw bad(path, schema.getFixedSize() + " bytes (base64)", node);
        }
        return SpecificData.get().createFixed(null, bytes, schema);
      case NULL:
        throw bad(path, "null", node);
      default:
        throw new IllegalArgumentException(path + ": cannot read " + schema.getType());
    }
  }

  /** JSON null is the null branch; other values go to the first branch that accepts them. */
  private static Object readUnion(Schema union, JsonNode node, String path) {
    if (node.isNull() && union.isNullable()) {
      return null;
    }
    IllegalArgumentException lastFailure = null;
    for (Schema branch : union.getTypes()) {
      if (branch.getType() == Schema.Type.NULL) {
        continue;
      }
      try {
        return read(branch, node, path);
      } catch (IllegalArgumentException e) {
        lastFailure = e;
      }
    }
    throw lastFailure != null ? lastFailure : bad(path, "null", node);
  }

  private static Instant readInstant(JsonNode node, String path) {
    if (!node.isTextual()) {
      throw bad(path, "an ISO-8601 UTC timestamp such as \"2025-01-31T12:00:00.250Z\"", node);
    }
    try {
      return Instant.parse(node.textValue());
    } catch (DateTimeParseException e) {
      throw bad(path, "an ISO-8601 UTC timestamp such as \"2025-01-31T12:00:00.250Z\"", node);
    }
  }

  /** Numbers, and the strings Jackson writes for non-finite doubles ("NaN", "Infinity"). */
  private static double readDouble(JsonNode node, String path) {
    if (node.isNumber()) {
      return node.doubleValue();
    }
    if (node.isTextual()) {
      switch (node.textValue()) {
        case "NaN":
          return Double.NaN;
        case "Infinity":
          return Double.POSITIVE_INFINITY;
        case "-Infinity":
          return Double.NEGATIVE_INFINITY;
        default:
          break;
      }
    }
    throw bad(path, "a number", node);
  }

  private static byte[] readBase64(JsonNode node, String path) {
    if (node.isTextual()) {
      try {
        return Base64.getDecoder().decode(node.textValue());
      } catch (IllegalArgumentException e) {
        // reported below
      }
    }
    throw bad(path, "base64 bytes", node);
  }

  private static IllegalArgumentException bad(String path, String expected, JsonNode got) {
    String shown = got.toString();
    if (shown.length() > 80) {
      shown = shown.substring(0, 77) + "...";
    }
    return new IllegalArgumentException(path + ": expected " + expected + ", got " + shown);
  }
}
