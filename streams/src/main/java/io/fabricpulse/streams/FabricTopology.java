package io.fabricpulse.streams;

import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rates.RateTopology;
import org.apache.kafka.streams.Topology;

/**
 * Every topology of the pipeline in one Kafka Streams application: the rate stage and the
 * detectors. {@code streams}, {@code demo}, {@code replay} and the tests all build it here, so they
 * run the same processors with the same names.
 */
public final class FabricTopology {
  /** Default application id (prefix of every internal topic and consumer group). */
  public static final String APPLICATION_ID = "fabricpulse-streams";

  private FabricTopology() {}

  public static Topology build(FabricTopics topics, ValueSerdes serdes, RateConfig rates) {
    return RateTopology.build(topics, serdes, rates);
  }
}
