package io.fabricpulse.streams.testing;

import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** The settings every TopologyTestDriver of these tests starts from. */
public final class DriverSettings {

  private DriverSettings() {}

  /**
   * Application id, state directory and the production topology's rule that every processor, store
   * and internal topic is named ({@code ensure.explicit.internal.resource.naming}: an unnamed one
   * fails the build, as it would the application). The bootstrap address is never dialled: the
   * driver runs without a broker.
   */
  public static Properties of(String applicationId, String stateDir) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    return props;
  }
}
