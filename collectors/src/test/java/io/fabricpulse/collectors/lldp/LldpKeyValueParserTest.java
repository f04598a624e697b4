package io.fabricpulse.collectors.lldp;

import static io.fabricpulse.collectors.testing.Samples.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.ParseResult;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LldpKeyValueParserTest {
  private static final String HOST = "lldp/lldpd-1.0.16-host-two-tors-neighbors.txt";
  private static final String LEAF = "lldp/lldpd-1.0.16-leaf-neighbors.txt";
  private static final String CHASSIS = "lldp/lldpd-1.0.16-leaf-chassis.txt";
  private final LldpKeyValueParser parser = new LldpKeyValueParser();

  @Test
  void aHostHearsTheTorOfEachRoceNetdev() {
    ParseResult<LldpNeighbor> result = parser.neighbors(HOST, read(HOST));

    assertEquals(List.of(), result.malformed());
    assertEquals(
        List.of(
            new LldpNeighbor(
                "ens9f0np0",
                "mac",
                "1c:34:da:71:0c:0c",
                "leaf-r01",
                Set.of("Bridge", "Router"),
                "ifname",
                "swp12",
                "swp12",
                1),
            new LldpNeighbor(
                "ens9f1np1",
                "mac",
                "1c:34:da:72:0c:0c",
                "leaf-r02",
                Set.of("Bridge", "Router"),
                "ifname",
                "swp12",
                "swp12",
                19)),
        result.records());
    assertTrue(result.records().get(0).isSwitch());
    assertEquals("swp12", result.records().get(0).portName());
  }

  @Test
  void aLeafHearsItsHostByMacAndItsSpineByName() {
    ParseResult<LldpNeighbor> result = parser.neighbors(LEAF, read(LEAF));

    assertEquals(List.of(), result.malformed());
    LldpNeighbor host = result.records().get(0);
    assertEquals("swp12", host.localInterface());
    assertEquals("gpu007", host.systemName());
    assertTrue(host.isStation());
    assertFalse(host.isSwitch());
    // lldpd's default on a Linux host: the port ID is the MAC, the description the netdev.
    assertEquals("mac", host.portIdType());
    assertEquals("b8:3f:d2:4a:10:70", host.portId());
    assertEquals("ens9f0np0", host.portName());
    LldpNeighbor spine = result.records().get(1);
    assertEquals("swp51", spine.localInterface());
    assertEquals("spine01", spine.systemName());
    assertEquals("swp1", spine.portName());
    assertTrue(spine.isSwitch());
  }

  @Test
  void theLocalChassisIsWhatTheNeighboursSee() {
    ParseResult<LldpChassis> result = parser.chassis(CHASSIS, read(CHASSIS));

    assertEquals(List.of(), result.malformed());
    assertEquals(
        List.of(
            new LldpChassis("mac", "1c:34:da:71:0c:0c", "leaf-r01", Set.of("Bridge", "Router"))),
        result.records());
  }

  @Test
  void dottedInterfacesSecondNeighboursAndContinuedValues() {
    String text =
        String.join(
            "\n",
            "lldp.bond0.100.via=LLDP",
            "lldp.bond0.100.chassis.mac=00:11:22:33:44:55",
            "lldp.bond0.100.chassis.name=tor-a",
            "lldp.bond0.100.port.ifname=Ethernet48",
            "lldp.bond0.100.port.descr=uplink to",
            "gpu rack 7",
            "lldp.bond0.100.via=LLDP",
            "lldp.bond0.100.chassis.mac=00:11:22:33:44:66",
            "lldp.bond0.100.port.local=7",
            "");

    ParseResult<LldpNeighbor> result = parser.neighbors("synthetic", text);

    assertEquals(List.of(), result.malformed());
    assertEquals(2, result.records().size());
    assertEquals("bond0.100", result.records().get(0).localInterface());
    assertEquals("uplink to\ngpu rack 7", result.records().get(0).portDescription());
    assertEquals("00:11:22:33:44:66", result.records().get(1).chassisId());
    assertEquals("7", result.records().get(1).portName());
    assertEquals(7, result.records().get(1).line());
  }

  @Test
  void badLinesAndIncompleteNeighboursAreCountedAndSkipped() {
    String text =
        String.join(
            "\n",
            "lldpcli: unable to connect to socket /run/lldpd.socket",
            "lldp.eth0.via=LLDP",
            "lldp.eth0.chassis.mac=00:11:22:33:44:55",
            "lldp.eth1.via=LLDP",
            "lldp.eth1.chassis.mac=00:11:22:33:44:77",
            "lldp.eth1.port.ifname=swp3",
            "");

    ParseResult<LldpNeighbor> result = parser.neighbors("synthetic", text);

    assertEquals(
        List.of(
            new Malformed(
                "synthetic",
                1,
                "not an lldpcli keyvalue line: lldpcli: unable to connect to socket /run/lldpd.socket"),
            new Malformed("synthetic", 2, "neighbour on eth0 without a port ID")),
        result.malformed());
    assertEquals(
        List.of("eth1"), result.records().stream().map(LldpNeighbor::localInterface).toList());
  }

  @Test
  void noNeighboursIsNoLinkAndNoError() {
    ParseResult<LldpNeighbor> result = parser.neighbors("synthetic", "");

    assertEquals(List.of(), result.malformed());
    assertEquals(List.of(), result.records());
  }
}
