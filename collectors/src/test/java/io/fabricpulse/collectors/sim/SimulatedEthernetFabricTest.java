package io.fabricpulse.collectors.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.lldp.LldpKeyValueParser;
import io.fabricpulse.collectors.lldp.LldpNeighbor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The simulated Ethernet switches under the nodes' RoCE netdevs, as the nodes' and the switches'
 * LLDP sources publish them: the cabling the pause-propagation trace reads.
 */
class SimulatedEthernetFabricTest {
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");

  private static Map<String, List<FabricLink>> linksByObserver(FabricSimulator simulator) {
    SimulatedAgents agents = new SimulatedAgents(simulator);
    List<SimulatedAgents.HostRecords> hosts = agents.collect(T0);
    assertEquals(0, agents.malformed() + agents.failures());
    return hosts.stream()
        .collect(
            Collectors.toMap(
                h -> h.identity().node(),
                h ->
                    h.records().stream()
                        .filter(FabricLink.class::isInstance)
                        .map(FabricLink.class::cast)
                        .filter(l -> l.getSource() == TopologySource.LLDP)
                        .toList()));
  }

  private static String end(LinkPort p) {
    return p.getNodeDescription() + " " + p.getPortName() + " (" + p.getPort() + ")";
  }

  private static Set<String> cable(FabricLink link) {
    return new TreeSet<>(List.of(end(link.getEndA()), end(link.getEndB())));
  }

  @Test
  void onAnInfinibandFleetEachStorageNicIsCabledToItsRacksLeafAndEveryLeafToBothSpines() {
    FabricSimulator simulator = new FabricSimulator(SimulatorConfig.infiniband("c1", 16, 7, T0));
    Map<String, List<FabricLink>> links = linksByObserver(simulator);

    assertEquals(
        List.of("roce-leaf01", "roce-leaf02", "roce-spine01", "roce-spine02"),
        simulator.ethernet().switches());
    List<FabricLink> gpu007 = links.get("gpu007");
    assertEquals(1, gpu007.size());
    assertEquals(
        Set.of("gpu007 mlx5_8 ens9f0np0 (1)", "roce-leaf01 swp7 (7)"), cable(gpu007.get(0)));
    // gpu010's storage NIC is the E810, its RDMA device irdma0, behind the second rack's leaf
    assertEquals(
        Set.of("gpu010 irdma0 ens9f0 (1)", "roce-leaf02 swp2 (2)"),
        cable(links.get("gpu010").get(0)));
    assertEquals("roce-leaf02 swp1", simulator.ethernet().switchPortOf("gpu009", "ens9f0np0"));

    // a switch reports its cables to other switches only; both ends of an ISL give one link id
    assertEquals(
        Set.of(
            Set.of("roce-leaf01 swp49 (49)", "roce-spine01 swp1 (1)"),
            Set.of("roce-leaf01 swp50 (50)", "roce-spine02 swp1 (1)")),
        links.get("roce-leaf01").stream()
            .map(SimulatedEthernetFabricTest::cable)
            .collect(Collectors.toSet()));
    Set<String> leafIsls =
        links.get("roce-leaf01").stream()
            .map(FabricLink::getLinkId)
            .map(Object::toString)
            .collect(Collectors.toSet());
    Set<String> spineIsls =
        links.get("roce-spine01").stream()
            .map(FabricLink::getLinkId)
            .map(Object::toString)
            .collect(Collectors.toSet());
    assertEquals(2, spineIsls.size());
    assertTrue(spineIsls.stream().anyMatch(leafIsls::contains), leafIsls + " vs " + spineIsls);
  }

  @Test
  void onARoceFleetEachRailHasItsOwnLeafPerRack() {
    FabricSimulator simulator = new FabricSimulator(SimulatorConfig.roce("c1", 16, 7, T0));
    Map<String, List<FabricLink>> links = linksByObserver(simulator);

    assertEquals(16 + 2, simulator.ethernet().switches().size(), "2 racks x 8 rails + 2 spines");
    assertEquals(8, links.get("gpu009").size());
    assertEquals(
        Set.of("gpu009 mlx5_0 ens1np0 (1)", "roce-leaf09 swp1 (1)"),
        links.get("gpu009").stream()
            .map(SimulatedEthernetFabricTest::cable)
            .filter(c -> c.contains("gpu009 mlx5_0 ens1np0 (1)"))
            .findFirst()
            .orElseThrow());
    assertEquals("roce-leaf16 swp8", simulator.ethernet().switchPortOf("gpu016", "ens8np0"));
  }

  @Test
  void aHostPortThatIsDownShowsNoNeighbourAsLldpdDropsIt() throws Exception {
    FabricSimulator simulator = new FabricSimulator(SimulatorConfig.infiniband("c1", 16, 7, T0));
    simulator.linkDown("gpu003", "mlx5_8", T0.plusSeconds(5), Duration.ofSeconds(60));
    simulator.advanceTo(T0.plusSeconds(10));

    ParseResult<LldpNeighbor> host =
        new LldpKeyValueParser()
            .neighbors("gpu003", simulator.ethernet().lldp("gpu003").neighbors());
    ParseResult<LldpNeighbor> leaf =
        new LldpKeyValueParser()
            .neighbors("roce-leaf01", simulator.ethernet().lldp("roce-leaf01").neighbors());

    assertEquals(List.of(), host.records());
    assertEquals(List.of(), leaf.malformed());
    // 8 hosts less the one that is down, 2 spines
    assertEquals(7 + 2, leaf.records().size());
    assertTrue(leaf.records().stream().noneMatch(n -> n.localInterface().equals("swp3")));
  }
}
