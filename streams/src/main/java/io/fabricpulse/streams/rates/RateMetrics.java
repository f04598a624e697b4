package io.fabricpulse.streams.rates;

import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Names of the rate stage's own Streams metrics, and a reader that sums them over tasks. They are
 * ordinary Kafka Streams metrics (JMX, {@code KafkaStreams.metrics()}, {@code
 * TopologyTestDriver.metrics()}), registered with {@code StreamsMetrics.addRateTotalSensor}: group
 * {@value #GROUP}, one {@code <operation>-total} and {@code <operation>-rate} per task.
 */
public final class RateMetrics {

  /** Scope passed to addRateTotalSensor; Streams names the group {@code stream-<scope>-metrics}. */
  public static final String SCOPE = "fabricpulse-rates";

  public static final String GROUP = "stream-" + SCOPE + "-metrics";

  /** Samples dropped because the same sample (boot id, seq, time) was already rated. */
  public static final String DROPPED_DUPLICATE = "dropped-duplicate";

  /** Samples dropped because their event time is not after the subject's last accepted sample. */
  public static final String DROPPED_OUT_OF_ORDER = "dropped-out-of-order";

  /** Records routed to the dead-letter topic. */
  public static final String DEAD_LETTERS = "dead-letters";

  private RateMetrics() {}

  /** The {@code <operation>-total} of the rate stage, summed over every task in {@code metrics}. */
  public static double total(Map<MetricName, ? extends Metric> metrics, String operation) {
    String name = operation + "-total";
    double sum = 0;
    for (Map.Entry<MetricName, ? extends Metric> entry : metrics.entrySet()) {
      MetricName metric = entry.getKey();
      if (GROUP.equals(metric.group()) && name.equals(metric.name())) {
        sum += ((Number) entry.getValue().metricValue()).doubleValue();
      }
    }
    return sum;
  }
}
