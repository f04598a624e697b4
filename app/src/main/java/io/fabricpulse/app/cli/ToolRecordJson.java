package io.fabricpulse.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/**
 * The JSON-lines form of what the fabric tools' parsers return (Java records such as {@code
 * PortLink} or {@code IbdiagnetFinding}, not pipeline records): {@code "type"} = the record's
 * simple name, then its components in declaration order. Null components are omitted, instants are
 * ISO-8601 strings, enums their names, nested records objects, lists arrays and maps objects, as
 * {@code JsonRecords} writes Avro records.
 */
final class ToolRecordJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ToolRecordJson() {}

  static String toJson(Record record) {
    ObjectNode object = NODES.objectNode();
    object.put("type", record.getClass().getSimpleName());
    writeComponents(record, object);
    try {
      return JSON.writeValueAsString(object);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + record.getClass().getSimpleName(), e);
    }
  }

  private static void writeComponents(Record record, ObjectNode object) {
    for (RecordComponent component : record.getClass().getRecordComponents()) {
      Object value;
      try {
        value = component.getAccessor().invoke(record);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException("cannot read " + component.getName(), e);
      }
      if (value != null) {
        object.set(component.getName(), node(value));
      }
    }
  }

  private static JsonNode node(Object value) {
    if (value instanceof String text) {
      return NODES.textNode(text);
    }
    if (value instanceof Integer number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Long number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Double number) {
      return NODES.numberNode(number);
    }
    if (value instanceof Boolean flag) {
      return NODES.booleanNode(flag);
    }
    if (value instanceof Instant instant) {
      return NODES.textNode(instant.toString());
    }
    if (value instanceof Enum<?> symbol) {
      return NODES.textNode(symbol.name());
    }
    if (value instanceof Record nested) {
      ObjectNode object = NODES.objectNode();
      writeComponents(nested, object);
      return object;
    }
    if (value instanceof Collection<?> items) {
      ArrayNode array = NODES.arrayNode();
      items.forEach(item -> array.add(node(item)));
      return array;
    }
    if (value instanceof Map<?, ?> map) {
      ObjectNode object = NODES.objectNode();
      map.forEach((key, item) -> object.set(String.valueOf(key), node(item)));
      return object;
    }
    throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
  }
}
