package io.fabricpulse.app.dashboards;

import io.fabricpulse.sinks.influx.PointWriter;
import io.fabricpulse.sinks.influx.SinkPoint;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The sink's points into InfluxDB 1.x through {@code /write}, which has no {@code /api/v2/write}
 * for the sink's own writer: each {@link SinkPoint} becomes line protocol with the same client code
 * the sink uses ({@link SinkPoint#toInfluxPoint()}, millisecond precision). Keeps every point
 * written, so a test can compare the dashboards' names with what the sink really wrote.
 */
final class InfluxDb1PointWriter implements PointWriter {

  private final InfluxDb1Server server;
  private final String db;
  private final List<SinkPoint> written = Collections.synchronizedList(new ArrayList<>());

  InfluxDb1PointWriter(InfluxDb1Server server, String db) {
    this.server = server;
    this.db = db;
  }

  @Override
  public void write(List<SinkPoint> points) {
    List<String> lines = points.stream().map(p -> p.toInfluxPoint().toLineProtocol()).toList();
    HttpResponse<String> answer;
    try {
      answer = server.write(db, lines);
    } catch (IOException e) {
      throw new IllegalStateException("write to influxd failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
    if (answer.statusCode() == 400) {
      throw new PointsRejectedException("influxd refused the points: " + answer.body(), null);
    }
    if (answer.statusCode() != 204) {
      throw new IllegalStateException(
          "influxd answered " + answer.statusCode() + ": " + answer.body());
    }
    written.addAll(points);
  }

  List<SinkPoint> written() {
    synchronized (written) {
      return List.copyOf(written);
    }
  }

  @Override
  public void close() {}
}
