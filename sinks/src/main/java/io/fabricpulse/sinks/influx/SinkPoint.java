package io.fabricpulse.sinks.influx;

import com.influxdb.client.domain.WritePrecision;
import com.influxdb.client.write.Point;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One time-series point before it becomes line protocol: measurement, tags, typed fields (Double,
 * Long or String) and the event time in ms. Kept separate from the client's {@link Point}, which
 * cannot be read back, so the sink can split fields by resolution and aggregate them.
 */
public record SinkPoint(
    String measurement, SortedMap<String, String> tags, Map<String, Object> fields, long timeMs) {

  public SinkPoint {
    tags = Collections.unmodifiableSortedMap(new TreeMap<>(tags));
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    for (Map.Entry<String, Object> field : fields.entrySet()) {
      Object v = field.getValue();
      if (!(v instanceof Double || v instanceof Long || v instanceof String)) {
        throw new IllegalArgumentException(
            "field " + field.getKey() + " must be Double, Long or String, got " + v);
      }
    }
  }

  /** Identity of the series: measurement plus every tag, in tag-name order. */
  public String seriesKey() {
    return measurement + tags;
  }

  /** The point for influxdb-client-java, millisecond precision. */
  public Point toInfluxPoint() {
    Point point = Point.measurement(measurement).time(timeMs, WritePrecision.MS);
    tags.forEach(point::addTag);
    fields.forEach(
        (name, value) -> {
          if (value instanceof Double d) {
            point.addField(name, d);
          } else if (value instanceof Long l) {
            point.addField(name, l);
          } else {
            point.addField(name, (String) value);
          }
        });
    return point;
  }
}
