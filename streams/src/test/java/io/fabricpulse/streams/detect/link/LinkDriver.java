package io.fabricpulse.streams.detect.link;

import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DetectorDriver;
import java.nio.file.Path;

/** The link detector topology, built as production builds it, under a TopologyTestDriver. */
final class LinkDriver extends DetectorDriver {

  static final String APP_ID = "link-test";

  LinkDriver(RuleSet rules, Path stateDir, String registryScope) {
    super(APP_ID, LinkHealthDetector::addTo, rules, stateDir, registryScope);
  }
}
