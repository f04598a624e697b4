package io.fabricpulse.streams.detect.pfc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.PfcRates;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Incident stories of a pause storm traced across the switches it crossed, on the cabling the
 * fabric collector's sweep published to fabric.topology: the NIC of gpu001 (mlx5_0, behind leaf01)
 * stops draining at 1 s and sends pause frames on prio 3; gpu002 is paused from 1 s, gpu003 from 2
 * s, and the incident opens on the third node.
 */
class PausePropagationSwitchHopsTest extends DetectorStories {

  private static final String NIC = "ens1f0np0";
  private static final Instant SWEEP = Instant.ofEpochMilli(PfcRates.T0);

  /**
   * gpu002 sits behind leaf02. leaf01 and leaf02 are both cabled to spine01 and spine02; spine03 is
   * cabled to leaf01 and leaf03 only. The pauses reached gpu002 through the spines the two leaves
   * share: three switch hops. gpu003's port is on no link the sweep showed: untraced.
   */
  @Test
  void aStormFromOneLeafToAnotherIsTracedThroughTheSpinesBothLeavesAreCabledTo(TestInfo info) {
    try (PfcDriver d = new PfcDriver(defaults, stateDir, "hops-" + info.getDisplayName())) {
      TestInputTopic<String, FabricLink> topology = d.input(d.topics.topology());
      for (FabricLink link :
          List.of(
              hostLink("gpu001", 0x11, "leaf01", 0x101, 1),
              hostLink("gpu002", 0x12, "leaf02", 0x102, 1),
              isl("leaf01", 0x101, 9, "spine01", 0x201, 1),
              isl("leaf01", 0x101, 10, "spine02", 0x202, 1),
              isl("leaf01", 0x101, 11, "spine03", 0x203, 1),
              isl("leaf02", 0x102, 9, "spine01", 0x201, 2),
              isl("leaf02", 0x102, 10, "spine02", 0x202, 2),
              isl("leaf03", 0x103, 11, "spine03", 0x203, 3))) {
        topology.pipeInput(link.getLinkId(), link, SWEEP);
      }
      storm(d);

      Alert incident = firingIncident(d);
      Map<String, String> evidence = incident.getEvidence();
      assertEquals("leaf01", evidence.get("origin_switches"));
      assertEquals("leaf02 (gpu002)", evidence.get("victim_switches"));
      assertEquals("spine01, spine02", evidence.get("spines"));
      assertEquals("leaf01 -> spine01, spine02 -> leaf02", evidence.get("path"));
      assertEquals("3", evidence.get("switch_hops"));
      assertEquals("gpu003 ens1f0np0", evidence.get("untraced"));
      assertEquals(
          "Pause storm spreading over 3 nodes of cluster c1: likely origin gpu001 ens1f0np0 prio 3;"
              + " through leaf01 -> spine01, spine02 -> leaf02;"
              + " victims gpu002 ens1f0np0 prio 3, gpu003 ens1f0np0 prio 3",
          incident.getSummary());
    }
  }

  /** Both victims are behind the origin's own leaf: the storm crossed one switch, no spine. */
  @Test
  void aStormBehindOneLeafIsOneSwitchHop(TestInfo info) {
    try (PfcDriver d = new PfcDriver(defaults, stateDir, "hops-" + info.getDisplayName())) {
      TestInputTopic<String, FabricLink> topology = d.input(d.topics.topology());
      for (FabricLink link :
          List.of(
              hostLink("gpu001", 0x11, "leaf01", 0x101, 1),
              hostLink("gpu002", 0x12, "leaf01", 0x101, 2),
              hostLink("gpu003", 0x13, "leaf01", 0x101, 3),
              isl("leaf01", 0x101, 9, "spine01", 0x201, 1))) {
        topology.pipeInput(link.getLinkId(), link, SWEEP);
      }
      storm(d);

      Map<String, String> evidence = firingIncident(d).getEvidence();
      assertEquals("leaf01", evidence.get("origin_switches"));
      assertEquals("leaf01 (gpu002, gpu003)", evidence.get("victim_switches"));
      assertEquals("", evidence.get("spines"));
      assertEquals("leaf01", evidence.get("path"));
      assertEquals("1", evidence.get("switch_hops"));
      assertFalse(evidence.containsKey("untraced"));
    }
  }

  /** Without a sweep of the fabric the incident names ports only, as before the trace. */
  @Test
  void withoutTheTopologyTheIncidentNamesItsPortsOnly(TestInfo info) {
    try (PfcDriver d = new PfcDriver(defaults, stateDir, "hops-" + info.getDisplayName())) {
      storm(d);
      Alert incident = firingIncident(d);
      assertFalse(incident.getEvidence().containsKey("path"), incident.getEvidence().toString());
      assertEquals(
          "Pause storm spreading over 3 nodes of cluster c1: likely origin gpu001 ens1f0np0 prio 3;"
              + " victims gpu002 ens1f0np0 prio 3, gpu003 ens1f0np0 prio 3",
          incident.getSummary());
    }
  }

  private static void storm(PfcDriver d) {
    String[] victims = {"gpu002", "gpu003"};
    for (int s = 0; s <= 40; s++) {
      boolean storm = s >= 1 && s < 20;
      PfcRates origin = PfcRates.at("gpu001", NIC, s);
      origin.txPausing(3, storm ? 0.95 : 0, storm ? 12_000 : 0).rxPaused(3, 0, 0);
      origin.counter("rx_prio3_bytes", 0, "bytes");
      d.pipe(origin);
      for (int v = 0; v < victims.length; v++) {
        boolean paused = storm && s >= 1 + v;
        d.pipe(
            PfcRates.at(victims[v], NIC, s)
                .rxPaused(3, paused ? 0.9 : 0, paused ? 11_000 : 0)
                .txPausing(3, 0, 0));
      }
    }
  }

  private static Alert firingIncident(PfcDriver d) {
    List<Alert> incidents =
        d.readAlerts().stream()
            .filter(a -> a.getKind() == AlertKind.PAUSE_PROPAGATION)
            .filter(a -> a.getState() == AlertState.FIRING)
            .toList();
    assertEquals(1, incidents.size(), incidents.toString());
    return incidents.get(0);
  }

  /** A host's HCA port (node description "gpu001 mlx5_0", as ibnetdiscover prints it). */
  private static FabricLink hostLink(
      String host, long hostGuid, String leaf, long leafGuid, int leafPort) {
    return link(
        end(FabricNodeType.CA, hostGuid, host + " mlx5_0", 1),
        end(FabricNodeType.SWITCH, leafGuid, leaf, leafPort));
  }

  private static FabricLink isl(
      String leaf, long leafGuid, int leafPort, String spine, long spineGuid, int spinePort) {
    return link(
        end(FabricNodeType.SWITCH, leafGuid, leaf, leafPort),
        end(FabricNodeType.SWITCH, spineGuid, spine, spinePort));
  }

  private static FabricLink link(LinkPort a, LinkPort b) {
    return FabricLink.newBuilder()
        .setCluster("c1")
        .setLinkId(
            "c1/" + a.getGuid() + ":" + a.getPort() + "<->" + b.getGuid() + ":" + b.getPort())
        .setObservedBy("sm01")
        .setSource(TopologySource.IBNETDISCOVER)
        .setSweepSeq(1)
        .setTime(SWEEP)
        .setEndA(a)
        .setEndB(b)
        .build();
  }

  private static LinkPort end(FabricNodeType type, long guid, String description, int port) {
    return LinkPort.newBuilder()
        .setGuid(String.format("0x%016x", guid))
        .setNodeType(type)
        .setNodeDescription(description)
        .setPort(port)
        .setWidth(4)
        .setSpeed(LinkSpeed.NDR)
        .build();
  }
}
