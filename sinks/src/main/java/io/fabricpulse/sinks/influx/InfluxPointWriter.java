package io.fabricpulse.sinks.influx;

import com.influxdb.client.InfluxDBClient;
import com.influxdb.client.InfluxDBClientFactory;
import com.influxdb.client.InfluxDBClientOptions;
import com.influxdb.client.WriteApiBlocking;
import com.influxdb.client.domain.WritePrecision;
import com.influxdb.client.write.Point;
import com.influxdb.exceptions.InfluxException;
import java.util.List;
import okhttp3.OkHttpClient;

/**
 * {@link PointWriter} on influxdb-client-java's {@link WriteApiBlocking}: one HTTP request to
 * {@code /api/v2/write} per batch, answered before {@code write} returns, so the caller knows
 * exactly which points the server has. The asynchronous {@code WriteApi} is not used: its default
 * back-pressure drops the oldest points silently, and the blocking call makes the sink's own
 * back-pressure (pausing the Kafka consumer) explicit. Every attempt is bounded by the configured
 * write timeout (OkHttp call timeout).
 */
public final class InfluxPointWriter implements PointWriter {

  private final InfluxDBClient client;
  private final WriteApiBlocking writeApi;
  private final String org;
  private final String bucket;
  private final String url;
  private final boolean hasToken;

  public InfluxPointWriter(InfluxSinkConfig config) {
    this.url = config.url();
    this.hasToken = config.hasToken();
    OkHttpClient.Builder http =
        new OkHttpClient.Builder()
            .connectTimeout(config.writeTimeout())
            .readTimeout(config.writeTimeout())
            .writeTimeout(config.writeTimeout())
            .callTimeout(config.writeTimeout())
            .retryOnConnectionFailure(false);
    InfluxDBClientOptions.Builder options =
        InfluxDBClientOptions.builder()
            .url(config.url())
            .org(config.org())
            .bucket(config.bucket())
            .precision(WritePrecision.MS)
            .okHttpClient(http);
    if (config.hasToken()) {
      // The client keeps this array for every request's Authorization header: do not clear it.
      options.authenticateToken(config.token());
    }
    this.client = InfluxDBClientFactory.create(options.build());
    this.writeApi = client.getWriteApiBlocking();
    this.org = config.org();
    this.bucket = config.bucket();
  }

  @Override
  public void write(List<SinkPoint> points) {
    if (points.isEmpty()) {
      return;
    }
    List<Point> influxPoints = points.stream().map(SinkPoint::toInfluxPoint).toList();
    try {
      writeApi.writePoints(bucket, org, influxPoints);
    } catch (InfluxException e) {
      if (e.status() == 413 && points.size() > 1) {
        // Request too large for this server: halve until it fits.
        int half = points.size() / 2;
        write(points.subList(0, half));
        write(points.subList(half, points.size()));
        return;
      }
      if ((e.status() == 401 || e.status() == 403) && !hasToken) {
        throw new TokenRequiredException(
            url
                + " requires a token (HTTP "
                + e.status()
                + "): set INFLUX_TOKEN, or INFLUX_TOKEN_FILE to a file holding it",
            e);
      }
      if (e.status() == 401 || e.status() == 403) {
        // retried like an outage (a rotated token may be put right); the message never holds it
        throw new IllegalStateException(
            "the store refused the token (HTTP "
                + e.status()
                + "; INFLUX_TOKEN or INFLUX_TOKEN_FILE): "
                + e.getMessage(),
            e);
      }
      if (e.status() == 400 || e.status() == 422) {
        throw new PointsRejectedException(
            "server refused "
                + points.size()
                + " points: HTTP "
                + e.status()
                + " "
                + e.getMessage(),
            e);
      }
      throw e;
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
