package io.fabricpulse.sinks.influx;

import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Settings of the time-series sink, validated at construction without touching the network. The
 * token is kept as a char array, copied in and out, and never printed ({@link #toString()} masks
 * it); an empty token sends no Authorization header (QuestDB and VictoriaMetrics need none).
 *
 * @param url base URL of the server, e.g. {@code http://influxdb:8086}
 * @param org InfluxDB organisation (ignored by QuestDB and VictoriaMetrics)
 * @param bucket InfluxDB bucket (ignored by QuestDB)
 * @param token API token; may be empty
 * @param batchSize points per write request; a full batch is written at once
 * @param flushInterval longest time a point waits in a partial batch (wall clock: it bounds write
 *     latency only, aggregation uses event time)
 * @param writeTimeout upper bound of one write attempt (connect, send, answer)
 * @param retryInitialBackoff wait before the first retry of a failed write; doubles per failure
 * @param retryMaxBackoff cap of that wait; retries never give up
 * @param ratesTopic topic of CounterRates
 * @param alertsTopic topic of Alert
 * @param gpuTopic topic of GpuEcc (nvidia-smi samples, written as they are)
 * @param xidTopic topic of GpuXid (Xid events)
 * @param transportTopic topic of NcclTransport (NCCL transport verdicts)
 * @param healthTopics topics whose end offsets the sink reports about the pipeline (records in and
 *     out of every stage, the dead-letter count)
 * @param healthInterval how often the sink writes its own health points (wall clock: they describe
 *     the running pipeline, not the fabric); also written at start and at close
 * @param resolution which fields are written at full resolution and which as 10 s aggregates
 * @param aggregateIdleClose processing time without a sample of a series after which its open 10 s
 *     bucket is closed (wall clock while consuming; bucket boundaries stay event time); a series
 *     silent for 20 times this is forgotten
 * @param closeTimeout how long {@code close()} keeps trying to write the last points
 */
public record InfluxSinkConfig(
    String url,
    String org,
    String bucket,
    char[] token,
    int batchSize,
    Duration flushInterval,
    Duration writeTimeout,
    Duration retryInitialBackoff,
    Duration retryMaxBackoff,
    String ratesTopic,
    String alertsTopic,
    String gpuTopic,
    String xidTopic,
    String transportTopic,
    List<String> healthTopics,
    Duration healthInterval,
    SinkResolution resolution,
    Duration aggregateIdleClose,
    Duration closeTimeout) {

  public static final int DEFAULT_BATCH_SIZE = 5_000;
  public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RETRY_INITIAL = Duration.ofMillis(200);
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofSeconds(30);
  public static final Duration DEFAULT_IDLE_CLOSE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_HEALTH_INTERVAL = Duration.ofSeconds(10);

  /** Every topic of the default layout: its end offsets are the pipeline's record counts. */
  public static final List<String> DEFAULT_HEALTH_TOPICS =
      FabricTopics.defaults().all().stream().map(TopicSpec::name).toList();

  public InfluxSinkConfig {
    requireText(url, "url");
    URI uri = URI.create(url.trim());
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
      throw new IllegalArgumentException("url must be http:// or https://, got " + url);
    }
    requireText(org, "org");
    requireText(bucket, "bucket");
    token = token == null ? new char[0] : token.clone();
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, got " + batchSize);
    }
    requirePositive(flushInterval, "flushInterval");
    requirePositive(writeTimeout, "writeTimeout");
    requirePositive(retryInitialBackoff, "retryInitialBackoff");
    requirePositive(retryMaxBackoff, "retryMaxBackoff");
    if (retryMaxBackoff.compareTo(retryInitialBackoff) < 0) {
      throw new IllegalArgumentException("retryMaxBackoff must not be below retryInitialBackoff");
    }
    requireText(ratesTopic, "ratesTopic");
    requireText(alertsTopic, "alertsTopic");
    requireText(gpuTopic, "gpuTopic");
    requireText(xidTopic, "xidTopic");
    requireText(transportTopic, "transportTopic");
    healthTopics = healthTopics == null ? List.of() : List.copyOf(healthTopics);
    requirePositive(healthInterval, "healthInterval");
    if (resolution == null) {
      throw new IllegalArgumentException("resolution is required");
    }
    requirePositive(aggregateIdleClose, "aggregateIdleClose");
    requirePositive(closeTimeout, "closeTimeout");
  }

  /** Defaults for everything but the server coordinates. */
  public static InfluxSinkConfig of(String url, String org, String bucket, char[] token) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        DEFAULT_BATCH_SIZE,
        DEFAULT_FLUSH_INTERVAL,
        DEFAULT_WRITE_TIMEOUT,
        DEFAULT_RETRY_INITIAL,
        DEFAULT_RETRY_MAX,
        FabricTopics.RATES,
        FabricTopics.ALERTS,
        FabricTopics.GPU,
        FabricTopics.XID,
        FabricTopics.NCCL_TRANSPORT,
        DEFAULT_HEALTH_TOPICS,
        DEFAULT_HEALTH_INTERVAL,
        SinkResolution.defaults(),
        DEFAULT_IDLE_CLOSE,
        DEFAULT_CLOSE_TIMEOUT);
  }

  /** A copy of the token; the caller should clear it after use. */
  @Override
  public char[] token() {
    return token.clone();
  }

  public boolean hasToken() {
    return token.length > 0;
  }

  public InfluxSinkConfig withBatch(int size, Duration interval) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        size,
        interval,
        writeTimeout,
        retryInitialBackoff,
        retryMaxBackoff,
        ratesTopic,
        alertsTopic,
        gpuTopic,
        xidTopic,
        transportTopic,
        healthTopics,
        healthInterval,
        resolution,
        aggregateIdleClose,
        closeTimeout);
  }

  public InfluxSinkConfig withRetry(
      Duration timeout, Duration initialBackoff, Duration maxBackoff) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        batchSize,
        flushInterval,
        timeout,
        initialBackoff,
        maxBackoff,
        ratesTopic,
        alertsTopic,
        gpuTopic,
        xidTopic,
        transportTopic,
        healthTopics,
        healthInterval,
        resolution,
        aggregateIdleClose,
        closeTimeout);
  }

  public InfluxSinkConfig withTopics(String rates, String alerts) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        batchSize,
        flushInterval,
        writeTimeout,
        retryInitialBackoff,
        retryMaxBackoff,
        rates,
        alerts,
        gpuTopic,
        xidTopic,
        transportTopic,
        healthTopics,
        healthInterval,
        resolution,
        aggregateIdleClose,
        closeTimeout);
  }

  /** The same settings with the health points written every {@code interval}. */
  public InfluxSinkConfig withHealthInterval(Duration interval) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        batchSize,
        flushInterval,
        writeTimeout,
        retryInitialBackoff,
        retryMaxBackoff,
        ratesTopic,
        alertsTopic,
        gpuTopic,
        xidTopic,
        transportTopic,
        healthTopics,
        interval,
        resolution,
        aggregateIdleClose,
        closeTimeout);
  }

  public InfluxSinkConfig withResolution(SinkResolution newResolution) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        batchSize,
        flushInterval,
        writeTimeout,
        retryInitialBackoff,
        retryMaxBackoff,
        ratesTopic,
        alertsTopic,
        gpuTopic,
        xidTopic,
        transportTopic,
        healthTopics,
        healthInterval,
        newResolution,
        aggregateIdleClose,
        closeTimeout);
  }

  public InfluxSinkConfig withCloseTimeout(Duration timeout) {
    return new InfluxSinkConfig(
        url,
        org,
        bucket,
        token,
        batchSize,
        flushInterval,
        writeTimeout,
        retryInitialBackoff,
        retryMaxBackoff,
        ratesTopic,
        alertsTopic,
        gpuTopic,
        xidTopic,
        transportTopic,
        healthTopics,
        healthInterval,
        resolution,
        aggregateIdleClose,
        timeout);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof InfluxSinkConfig that
        && toString().equals(that.toString())
        && Arrays.equals(token, that.token);
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  /** Never prints the token. */
  @Override
  public String toString() {
    return "InfluxSinkConfig[url="
        + url
        + ", org="
        + org
        + ", bucket="
        + bucket
        + ", token="
        + (token.length == 0 ? "none" : "***")
        + ", batchSize="
        + batchSize
        + ", flushInterval="
        + flushInterval
        + ", writeTimeout="
        + writeTimeout
        + ", retryBackoff="
        + retryInitialBackoff
        + ".."
        + retryMaxBackoff
        + ", topics="
        + ratesTopic
        + ","
        + alertsTopic
        + ","
        + gpuTopic
        + ","
        + xidTopic
        + ","
        + transportTopic
        + ", healthTopics="
        + healthTopics
        + ", healthInterval="
        + healthInterval
        + ", resolution="
        + resolution
        + ", aggregateIdleClose="
        + aggregateIdleClose
        + ", closeTimeout="
        + closeTimeout
        + "]";
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
  }

  private static void requirePositive(Duration value, String name) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, got " + value);
    }
  }
}
