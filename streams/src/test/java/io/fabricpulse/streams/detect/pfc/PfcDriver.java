package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.alerts.TrackerState;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.PfcRates;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;

/** The PFC detector topology, built as production builds it, under a TopologyTestDriver. */
final class PfcDriver extends DetectorDriver {

  static final String APP_ID = "pfc-test";

  /** The PFC detectors alone. */
  PfcDriver(RuleSet rules, Path stateDir, String registryScope) {
    super(APP_ID, PauseStormDetector::addTo, rules, stateDir, registryScope);
  }

  private PfcDriver(Path stateDir, String registryScope, TopologyFactory factory) {
    super(APP_ID, stateDir, registryScope, Instant.ofEpochMilli(PfcRates.T0), factory);
  }

  /** The whole pipeline topology (every detector and the rate stage), as production builds it. */
  static PfcDriver inFabricTopology(RuleSet rules, Path stateDir, String registryScope) {
    return new PfcDriver(
        stateDir,
        registryScope,
        (props, serdes) ->
            FabricTopology.build(
                FabricTopics.defaults(),
                "mock://" + registryScope,
                rules,
                RateConfig.defaults(),
                props));
  }

  /** The tracker store's changelog records, as a restore would replay them. */
  List<KeyValue<String, TrackerState>> trackerChangelog() {
    return changelog(PauseStormDetector.TRACKER_STORE, new TrackerStateSerde().deserializer());
  }

  /** Every PFC store's changelog, by store name, as a restart would restore them. */
  Map<String, List<KeyValue<String, Object>>> pfcChangelogs() {
    Deserializer<TrackerState> trackers = new TrackerStateSerde().deserializer();
    var alerts = serdes.alert().deserializer();
    Map<String, Deserializer<?>> stores = new LinkedHashMap<>();
    stores.put(PauseStormDetector.TRACKER_STORE, trackers);
    stores.put(PauseStormDetector.HELD_STORMS_STORE, alerts);
    stores.put(PauseStormDetector.PROPAGATION_STORMS_STORE, alerts);
    stores.put(PauseStormDetector.PROPAGATION_TRACKER_STORE, trackers);
    stores.put(PauseStormDetector.PROPAGATION_VICTIMS_STORE, Serdes.String().deserializer());
    stores.put(PauseStormDetector.PROPAGATION_PENDING_STORE, alerts);
    stores.put(PauseStormDetector.PROPAGATION_PROGRESS_STORE, Serdes.Long().deserializer());
    return changelogs(stores);
  }
}
