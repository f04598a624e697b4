package io.fabricpulse.app.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Timestamp;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One matching row as a JSON line: the chosen fields in order (timestamps ISO-8601 UTC). */
public final class RowJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RowJson() {}

  public static String of(Map<String, Object> row, List<String> fields) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String field : fields.isEmpty() ? List.copyOf(row.keySet()) : fields) {
      Object value = row.get(field);
      out.put(
          field,
          value instanceof Timestamp t
              ? Instant.ofEpochSecond(t.getSeconds(), t.getNanos()).toString()
              : value);
    }
    try {
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a row", e);
    }
  }
}
