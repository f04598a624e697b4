package io.fabricpulse.app.query;

import com.google.protobuf.Timestamp;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * The CEL variables of a topic's rows, typed from the Avro schema of the row record, and the rows
 * of a record. A row is one record, except on the counter topics and fabric.rates, whose
 * NodeCounters/NodeRates become one row per port: the per-port view (PortCounters, PfcPauseFrames,
 * EcnMarks, CounterRates) with the node's header. Every top-level field is a variable of the same
 * name: string and enum as {@code string}, int and long as {@code int}, float and double as {@code
 * double}, boolean as {@code bool}, timestamp-millis as {@code timestamp}, a map of strings as
 * {@code map(string, string)}, an array of strings as {@code list(string)}. Arrays of counters
 * become maps by counter name: {@code counters} (raw value, {@code int}) on the counter topics;
 * {@code rates} (per second, {@code double}) and {@code deltas} ({@code int}) on fabric.rates,
 * which also has {@code pause_ratio}, {@code rx_pause_ratio} and {@code tx_pause_ratio} (the
 * highest share of the interval any priority was paused, 0..1, from the pause-duration counters;
 * absent on ports without them). Bytes fields are not variables. A null field is absent from its
 * row, and a row where the expression needs an absent variable does not match.
 */
public final class QueryVariables {

  /** The rows of a topic whose records are {@code type}, and how they are typed. */
  private final Class<? extends SpecificRecord> rowType;

  private final Map<String, CelType> variables = new LinkedHashMap<>();

  private QueryVariables(Class<? extends SpecificRecord> rowType) {
    this.rowType = rowType;
    Schema schema = SpecificData.get().getSchema(rowType);
    for (Schema.Field field : schema.getFields()) {
      CelType type = celType(field.name(), field.schema());
      if (type != null) {
        variables.put(field.name(), type);
      }
    }
    if (rowType == CounterRates.class) {
      variables.put("deltas", MapType.create(SimpleType.STRING, SimpleType.INT));
      variables.put("pause_ratio", SimpleType.DOUBLE);
      variables.put("rx_pause_ratio", SimpleType.DOUBLE);
      variables.put("tx_pause_ratio", SimpleType.DOUBLE);
    }
  }

  /** The variables of the rows of {@code topic}. */
  public static QueryVariables forTopic(TopicSpec topic) {
    return new QueryVariables(rowType(topic));
  }

  /** The record type of one row of the topic (the per-port view for the node records). */
  static Class<? extends SpecificRecord> rowType(TopicSpec topic) {
    if (topic.valueType() == NodeRates.class) {
      return CounterRates.class;
    }
    if (topic.valueType() == NodeCounters.class) {
      if (topic.name().endsWith(FabricTopics.PFC)) {
        return PfcPauseFrames.class;
      }
      return topic.name().endsWith(FabricTopics.ECN) ? EcnMarks.class : PortCounters.class;
    }
    return topic.valueType();
  }

  public Map<String, CelType> variables() {
    return variables;
  }

  public Class<? extends SpecificRecord> rowType() {
    return rowType;
  }

  /** The rows of one record of the topic. */
  public List<Map<String, Object>> rows(SpecificRecord record) {
    List<SpecificRecord> views = new ArrayList<>();
    if (record instanceof NodeCounters node) {
      views.addAll(NodeRecords.views(node));
    } else if (record instanceof NodeRates node) {
      views.addAll(NodeRecords.views(node));
    } else {
      views.add(record);
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    for (SpecificRecord view : views) {
      rows.add(row(view));
    }
    return rows;
  }

  private Map<String, Object> row(SpecificRecord view) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (Schema.Field field : view.getSchema().getFields()) {
      if (!variables.containsKey(field.name())) {
        continue;
      }
      Object value = celValue(field.name(), field.schema(), view.get(field.pos()));
      if (value != null) {
        row.put(field.name(), value);
      }
    }
    if (view instanceof CounterRates rates) {
      Map<String, Long> deltas = new TreeMap<>();
      double rx = -1;
      double tx = -1;
      for (CounterRate r : rates.getRates()) {
        if (r.getDelta() != null) {
          deltas.put(r.getName(), r.getDelta());
        }
        if (r.getKind() == CounterKind.PFC_PAUSE_DURATION && r.getPerSecond() != null) {
          double ratio = r.getPerSecond() / 1e6;
          if (r.getDirection() == io.fabricpulse.avro.CounterDirection.TX) {
            tx = Math.max(tx, ratio);
          } else {
            rx = Math.max(rx, ratio);
          }
        }
      }
      row.put("deltas", deltas);
      if (rx >= 0) {
        row.put("rx_pause_ratio", rx);
      }
      if (tx >= 0) {
        row.put("tx_pause_ratio", tx);
      }
      if (rx >= 0 || tx >= 0) {
        row.put("pause_ratio", Math.max(rx, tx));
      }
    }
    return row;
  }

  private static CelType celType(String name, Schema schema) {
    Schema s = nonNull(schema);
    LogicalType logical = s.getLogicalType();
    if (logical instanceof LogicalTypes.TimestampMillis) {
      return SimpleType.TIMESTAMP;
    }
    return switch (s.getType()) {
      case STRING, ENUM -> SimpleType.STRING;
      case INT, LONG -> SimpleType.INT;
      case FLOAT, DOUBLE -> SimpleType.DOUBLE;
      case BOOLEAN -> SimpleType.BOOL;
      case MAP ->
          nonNull(s.getValueType()).getType() == Schema.Type.STRING
              ? MapType.create(SimpleType.STRING, SimpleType.STRING)
              : null;
      case ARRAY -> arrayType(nonNull(s.getElementType()));
      default -> null;
    };
  }

  /** Arrays of strings as lists; arrays of counters as maps by their name. */
  private static CelType arrayType(Schema element) {
    if (element.getType() == Schema.Type.STRING) {
      return ListType.create(SimpleType.STRING);
    }
    if (element.getType() == Schema.Type.RECORD && element.getField("name") != null) {
      if (element.getField("per_second") != null) {
        return MapType.create(SimpleType.STRING, SimpleType.DOUBLE);
      }
      if (element.getField("value") != null) {
        return MapType.create(SimpleType.STRING, SimpleType.INT);
      }
    }
    return null;
  }

  private static Object celValue(String name, Schema schema, Object value) {
    if (value == null) {
      return null;
    }
    Schema s = nonNull(schema);
    if (value instanceof Instant t) {
      return Timestamp.newBuilder().setSeconds(t.getEpochSecond()).setNanos(t.getNano()).build();
    }
    return switch (s.getType()) {
      case STRING, ENUM -> value.toString();
      case INT, LONG -> ((Number) value).longValue();
      case FLOAT, DOUBLE -> ((Number) value).doubleValue();
      case BOOLEAN -> value;
      case MAP -> {
        Map<String, String> map = new TreeMap<>();
        ((Map<?, ?>) value).forEach((k, v) -> map.put(k.toString(), String.valueOf(v)));
        yield map;
      }
      case ARRAY -> arrayValue(nonNull(s.getElementType()), (Collection<?>) value);
      default -> null;
    };
  }

  /** A list of strings, or a map by counter name of an array of counters (never null). */
  private static Object arrayValue(Schema element, Collection<?> items) {
    if (element.getType() == Schema.Type.STRING) {
      List<String> strings = new ArrayList<>();
      items.forEach(item -> strings.add(String.valueOf(item)));
      return strings;
    }
    boolean rates = element.getField("per_second") != null;
    Map<String, Object> byName = new TreeMap<>();
    for (Object item : items) {
      IndexedRecord r = (IndexedRecord) item;
      Object v = r.get(r.getSchema().getField(rates ? "per_second" : "value").pos());
      if (v != null) {
        byName.put(
            r.get(r.getSchema().getField("name").pos()).toString(),
            rates ? (Object) ((Number) v).doubleValue() : (Object) ((Number) v).longValue());
      }
    }
    return byName;
  }

  private static Schema nonNull(Schema schema) {
    if (schema.getType() != Schema.Type.UNION) {
      return schema;
    }
    for (Schema branch : schema.getTypes()) {
      if (branch.getType() != Schema.Type.NULL) {
        return branch;
      }
    }
    return schema;
  }
}
