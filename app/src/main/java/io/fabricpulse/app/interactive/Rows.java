package io.fabricpulse.app.interactive;

import com.google.protobuf.Timestamp;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The rows the query API answers with: plain JSON values, compared and merged the same way. */
final class Rows {

  /** Oldest first; alerts of one start by id, so merged lists have one order. */
  static final Comparator<Map<String, Object>> BY_STARTED_AT =
      Comparator.comparing((Map<String, Object> r) -> String.valueOf(r.get("started_at")))
          .thenComparing(r -> String.valueOf(r.get("alert_id")));

  /** Highest value first; ties by node and port, so a merged top-N is the same on every run. */
  static final Comparator<Map<String, Object>> BY_VALUE_DESCENDING =
      Comparator.comparingDouble(
              (Map<String, Object> r) -> -((Number) r.get("value")).doubleValue())
          .thenComparing(r -> String.valueOf(r.get("cluster")))
          .thenComparing(r -> String.valueOf(r.get("node")))
          .thenComparing(Rows::portName)
          .thenComparing(r -> String.valueOf(r.get("source")));

  private Rows() {}

  /** A CEL row with its timestamps as ISO-8601 text (what JSON carries). */
  static Map<String, Object> plain(Map<String, Object> row) {
    Map<String, Object> out = new LinkedHashMap<>();
    row.forEach(
        (k, v) ->
            out.put(
                k,
                v instanceof Timestamp t
                    ? Instant.ofEpochSecond(t.getSeconds(), t.getNanos()).toString()
                    : v));
    return out;
  }

  /** {@code device/port} of a rates row, or its netdev when it has no device. */
  static String portName(Map<String, Object> row) {
    Object device = row.get("device");
    if (device != null) {
      return device + "/" + row.get("port");
    }
    return String.valueOf(row.get("netdev"));
  }

  /** Whether {@code port} (device/port or netdev) names the port of this rates row. */
  static boolean isPort(Map<String, Object> row, String port) {
    return port.equals(portName(row)) || port.equals(row.get("netdev"));
  }

  /**
   * The value of {@code metric} on a rates row: {@code pause_ratio}, {@code rx_pause_ratio}, {@code
   * tx_pause_ratio} (0..1), or the per-second rate of the counter of that name; null when the port
   * does not have it.
   */
  static Double metric(Map<String, Object> row, String metric) {
    if (metric.endsWith("pause_ratio")) {
      return row.get(metric) instanceof Number n ? n.doubleValue() : null;
    }
    if (row.get("rates") instanceof Map<?, ?> rates && rates.get(metric) instanceof Number n) {
      return n.doubleValue();
    }
    return null;
  }

  /** The first {@code n} of {@code rows} by value, highest first. */
  static List<Map<String, Object>> top(List<Map<String, Object>> rows, int n) {
    return rows.stream().sorted(BY_VALUE_DESCENDING).limit(n).toList();
  }
}
