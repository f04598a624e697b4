package io.fabricpulse.streams.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.streams.detect.ecn.LosslessHealthDetector;
import io.fabricpulse.streams.detect.pfc.PauseStormDetector;
import io.fabricpulse.streams.testing.DetectorDriver;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.RoceRates;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The topology join on the RoCE families: gpu007's NIC mlx5_8 (netdev ens9np0; its sysfs port
 * samples name the two together) is cabled to leaf-07 port 30 in fabric.topology; gpu008's ens9np0
 * has no link the topology knows. A pause storm and a lossless drop page as always; the alerts of
 * gpu007's netdev also name the switch port at the other end, with the labels the link family's
 * alerts carry, and gpu008's pass unchanged.
 *
 * <p>The IB tools (ibnetdiscover, iblinkinfo, ibdiagnet) do not see Ethernet links: these labels
 * appear where a topology source names the hosts' RoCE ports as FabricLinks (none ships yet).
 */
class RocePeersStoriesTest extends DetectorStories {
  private static final String HOST_GUID = "0x7cfe9003003b4b08";
  private static final String LEAF_GUID = "0x7cfe9003009ce5b0";
  private static final String LINK = "c1/" + HOST_GUID + ":1<->" + LEAF_GUID + ":30";
  private static final String NIC = "ens9np0"; // RoceRates: ens9np0 is mlx5_8

  private static long at(int second) {
    return RoceRates.T0 + second * 1000L;
  }

  private static FabricLink link(long t) {
    return TopologyRecords.link(
        LINK,
        TopologyRecords.end(HOST_GUID, FabricNodeType.CA, "gpu007 mlx5_8", 1, LinkSpeed.HDR),
        TopologyRecords.end(LEAF_GUID, FabricNodeType.SWITCH, "leaf-07", 30, LinkSpeed.HDR),
        t);
  }

  private static void sweep(DetectorDriver d, FabricLink link) {
    d.<FabricLink>input(d.topics.topology())
        .pipeInput(link.getLinkId(), link, link.getTime().toEpochMilli());
  }

  private static void assertNamesLeaf07Port30(Alert a) {
    assertEquals("leaf-07 port 30", a.getLabels().get("peer"), a.toString());
    assertEquals("leaf-07", a.getLabels().get("peer_node"));
    assertEquals(LEAF_GUID, a.getLabels().get("peer_guid"));
    assertEquals("30", a.getLabels().get("peer_port"));
    assertEquals(LINK, a.getLabels().get("link_id"));
    assertEquals(PeerLabels.incident(a.getKind(), LINK), a.getLabels().get("incident"));
    assertFalse(a.getLabels().containsKey(LinkPeers.PORT_KEY_LABEL), "internal label left");
  }

  /**
   * gpu007 and gpu008 are paused 90 % on priority 3 from 10 s to 20 s (both ports' sysfs samples
   * every 10 s from 0 s, their ethtool samples every second); two nodes are no propagation
   * incident, so each victim's storm is published after its hold.
   */
  @Test
  void aPauseStormOnARocePortNamesTheLeafPortAtTheOtherEnd(TestInfo info) {
    try (DetectorDriver d =
        new DetectorDriver(
            "roce-peers-test",
            PauseStormDetector::addTo,
            defaults,
            stateDir.resolve("pfc"),
            "roce-peers-pfc-" + info.getDisplayName())) {
      sweep(d, link(at(-300)));
      for (int s = 0; s <= 100; s++) {
        for (String node : List.of("gpu007", "gpu008")) {
          if (s % 10 == 0) {
            d.pipe(RoceRates.port(node, NIC, s).every(10));
          }
          d.pipe(RoceRates.pfc(node, NIC, s).rxPaused(3, s >= 10 && s <= 20 ? 0.9 : 0.0));
        }
      }
      List<Alert> alerts = d.readAlerts();
      List<Alert> gpu007 =
          alerts.stream()
              .filter(a -> a.getKind() == AlertKind.PAUSE_STORM && "gpu007".equals(a.getNode()))
              .toList();
      List<Alert> gpu008 =
          alerts.stream()
              .filter(a -> a.getKind() == AlertKind.PAUSE_STORM && "gpu008".equals(a.getNode()))
              .toList();
      assertEquals(
          List.of(AlertState.FIRING, AlertState.RESOLVED),
          gpu007.stream().map(Alert::getState).toList(),
          alerts.toString());
      gpu007.forEach(RocePeersStoriesTest::assertNamesLeaf07Port30);
      assertEquals(NIC, gpu007.get(0).getNetdev());
      assertEquals(2, gpu008.size(), alerts.toString());
      for (Alert a : gpu008) {
        assertNull(a.getLabels().get("peer"), "gpu008's port has no link: " + a);
        assertFalse(a.getLabels().containsKey(LinkPeers.PORT_KEY_LABEL), a.toString());
      }
    }
  }

  @Test
  void aLosslessDropOnARocePortNamesTheLeafPortAtTheOtherEnd(TestInfo info) {
    try (DetectorDriver d =
        new DetectorDriver(
            "roce-peers-test",
            LosslessHealthDetector::addTo,
            defaults,
            stateDir.resolve("ecn"),
            "roce-peers-ecn-" + info.getDisplayName())) {
      sweep(d, link(at(-300)));
      for (int s = 0; s <= 80; s++) {
        if (s % 10 == 0) {
          d.pipe(RoceRates.port("gpu007", NIC, s).every(10));
        }
        d.pipe(
            RoceRates.pfc("gpu007", NIC, s)
                .counter("rx_prio3_buf_discard", s == 10 ? 5 : 0, "packets")
                .counter("rx_prio3_cong_discard", 0, "packets")
                .counter("rx_out_of_buffer", 0, "packets"));
      }
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      for (Alert a : alerts) {
        assertEquals(AlertKind.LOSSLESS_DROP, a.getKind());
        assertNamesLeaf07Port30(a);
        assertEquals("lossless-drop", a.getLabels().get("runbook"), "the rule's labels stay");
      }
    }
  }

  /**
   * The sweep comes after the storm: the FIRING went out without labels (the join reads the
   * topology at the alert's time) and later records of the same alert still have none, since the
   * link is younger than them too; a storm after the sweep is labelled.
   */
  @Test
  void aLinkSweptAfterTheAlertDoesNotRelabelIt(TestInfo info) {
    try (DetectorDriver d =
        new DetectorDriver(
            "roce-peers-test",
            PauseStormDetector::addTo,
            defaults,
            stateDir.resolve("late"),
            "roce-peers-late-" + info.getDisplayName())) {
      for (int s = 0; s <= 240; s++) {
        if (s == 120) {
          sweep(d, link(at(120)));
        }
        if (s % 10 == 0) {
          d.pipe(RoceRates.port("gpu007", NIC, s).every(10));
        }
        boolean paused = (s >= 10 && s <= 20) || (s >= 130 && s <= 140);
        d.pipe(RoceRates.pfc("gpu007", NIC, s).rxPaused(3, paused ? 0.9 : 0.0));
      }
      List<Alert> storms =
          d.readAlerts().stream().filter(a -> a.getKind() == AlertKind.PAUSE_STORM).toList();
      assertEquals(4, storms.size(), storms.toString());
      assertNull(storms.get(0).getLabels().get("peer"));
      assertNull(storms.get(1).getLabels().get("peer"));
      assertNamesLeaf07Port30(storms.get(2));
      assertNamesLeaf07Port30(storms.get(3));
    }
  }
}
