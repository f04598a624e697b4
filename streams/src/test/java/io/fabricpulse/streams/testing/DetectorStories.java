package io.fabricpulse.streams.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.rules.RuleSet;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the incident-story tests of every detector family share: the shipped alert-rules/ defaults,
 * a fresh state directory per test, and the check that a topology names everything it creates.
 */
public abstract class DetectorStories {

  /** The rules of alert-rules/, as shipped. */
  protected static RuleSet defaults;

  /** The test's own state directory (stores of its TopologyTestDriver). */
  @TempDir protected Path stateDir;

  @BeforeAll
  static void loadDefaultRules() throws Exception {
    defaults = RuleSet.load(RepoPaths.alertRules());
  }

  /**
   * Asserts that {@code topology} has every one of {@code names} (processors, stores, internal
   * topics) and no generated name ({@code KSTREAM-...-0000000001}), which would change whenever the
   * topology does and orphan its state.
   */
  protected static String assertNamed(Topology topology, List<String> names) {
    String described = topology.describe().toString();
    for (String name : names) {
      assertTrue(described.contains(name), name + " missing in\n" + described);
    }
    assertFalse(described.matches("(?s).*KSTREAM-[A-Z]+-\\d+.*"), described);
    return described;
  }

  /**
   * The names the topology join by netdev adds to a family ({@link
   * io.fabricpulse.streams.peers.LinkPeers#joinByNetdev}): its two repartitions and joins, the
   * netdev index and the links' table.
   */
  protected static List<String> netdevPeerJoinNames(String family) {
    return List.of(
        family + "-alerts-by-netdev-repartition",
        family + "-netdev-join",
        family + "-alerts-by-port-repartition",
        family + "-peer-join",
        LinkPeers.NETDEV_INDEXER,
        LinkPeers.NETDEV_PORTS_STORE,
        LinkPeers.NETDEV_BY_NETDEV_TOPIC + "-repartition",
        LinkPeers.NETDEV_TABLE_STORE,
        LinkPeers.INDEXER,
        LinkPeers.BY_PORT_TOPIC + "-repartition",
        LinkPeers.TABLE_STORE);
  }

  /** {@code first} followed by {@code then}. */
  protected static List<String> concat(List<String> first, List<String> then) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(then);
    return all;
  }
}
