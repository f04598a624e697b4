package io.fabricpulse.collectors.lldp;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.LinkEnd;
import io.fabricpulse.collectors.fabric.NodeType;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.topology.TopologySnapshot;
import io.fabricpulse.collectors.topology.TopologySweep;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LldpLinksTest {
  private static final String HOST = "lldp/lldpd-1.0.16-host-two-tors-neighbors.txt";
  private static final String LEAF = "lldp/lldpd-1.0.16-leaf-neighbors.txt";
  private static final String CHASSIS = "lldp/lldpd-1.0.16-leaf-chassis.txt";
  private static final Instant T = Instant.parse("2026-12-03T19:00:00Z");
  private final LldpKeyValueParser parser = new LldpKeyValueParser();

  private static final Map<String, LldpLinks.HostPort> GPU007 =
      Map.of(
          "ens9f0np0", new LldpLinks.HostPort("ens9f0np0", "mlx5_8", 1, "b8:3f:d2:4a:10:70"),
          "ens9f1np1", new LldpLinks.HostPort("ens9f1np1", "mlx5_9", 1, "b8:3f:d2:4a:10:71"));

  @Test
  void eachRoceNetdevIsCabledToItsTorPortAsTheRdmaPortIsNamed() {
    ParseResult<PortLink> links =
        LldpLinks.ofHost(HOST, "gpu007", parser.neighbors(HOST, read(HOST)).records(), GPU007);

    assertEquals(List.of(), links.malformed());
    PortLink first = links.records().get(0);
    assertEquals(
        new LinkEnd(NodeType.CA, "0x0000b83fd24a1070", "gpu007 mlx5_8", null, 1, "ens9f0np0"),
        first.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x00001c34da710c0c", "leaf-r01", null, 12, "swp12"),
        first.remote());
    assertEquals("leaf-r01 swp12", first.remote().label());
    assertEquals("leaf-r02", links.records().get(1).remote().nodeDescription());
  }

  @Test
  void theSnapshotKeysEthernetEndsByPortName() {
    ParseResult<PortLink> ports =
        LldpLinks.ofHost(HOST, "gpu007", parser.neighbors(HOST, read(HOST)).records(), GPU007);
    TopologySweep sweep = new TopologySweep("c1", "gpu007", TopologySource.LLDP, 1, T);

    TopologySnapshot snapshot = TopologySnapshot.of(sweep, HOST, ports.records()).records().get(0);

    assertEquals(
        List.of(
            "c1/0x00001c34da710c0c:swp12<->0x0000b83fd24a1070:ens9f0np0",
            "c1/0x00001c34da720c0c:swp12<->0x0000b83fd24a1071:ens9f1np1"),
        List.copyOf(snapshot.links().keySet()));
    FabricLink link = snapshot.links().values().iterator().next();
    assertEquals(TopologySource.LLDP, link.getSource());
    assertEquals("swp12", link.getEndA().getPortName());
    assertEquals("gpu007 mlx5_8", link.getEndB().getNodeDescription());
    assertEquals(null, link.getEndB().getWidth());
  }

  @Test
  void aNetdevWithoutAnRdmaPortIsNoPartOfTheFabric() {
    ParseResult<PortLink> links =
        LldpLinks.ofHost(
            HOST,
            "gpu007",
            parser.neighbors(HOST, read(HOST)).records(),
            Map.of("ens9f1np1", GPU007.get("ens9f1np1")));

    assertEquals(List.of(), links.malformed());
    assertEquals(
        List.of("ens9f1np1"), links.records().stream().map(l -> l.local().portName()).toList());
  }

  @Test
  void aLeafReportsItsSpineCableAndLeavesItsHostToTheHost() {
    LldpChassis self = parser.chassis(CHASSIS, read(CHASSIS)).records().get(0);

    ParseResult<PortLink> links =
        LldpLinks.ofSwitch(LEAF, self, parser.neighbors(LEAF, read(LEAF)).records());

    assertEquals(List.of(), links.malformed());
    assertEquals(1, links.records().size());
    PortLink uplink = links.records().get(0);
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x00001c34da710c0c", "leaf-r01", null, 51, "swp51"),
        uplink.local());
    assertEquals(
        new LinkEnd(NodeType.SWITCH, "0x00001c34da810001", "spine01", null, 1, "swp1"),
        uplink.remote());
  }

  @Test
  void aChassisIdThatIsNoMacIsReported() {
    LldpNeighbor byName =
        new LldpNeighbor(
            "ens9f0np0",
            "local",
            "FDO2105A0XY",
            "tor-9",
            java.util.Set.of("Bridge"),
            "ifname",
            "Ethernet1/12",
            null,
            4);

    ParseResult<PortLink> links = LldpLinks.ofHost("show", "gpu007", List.of(byName), GPU007);

    assertEquals(
        List.of(
            new Malformed(
                "show",
                4,
                "chassis ID of the neighbour on ens9f0np0 is a local, not a MAC: FDO2105A0XY")),
        links.malformed());
    assertEquals(12, LldpLinks.portNumber("Ethernet1/12"));
    assertEquals(0, LldpLinks.portNumber("mgmt"));
  }
}
