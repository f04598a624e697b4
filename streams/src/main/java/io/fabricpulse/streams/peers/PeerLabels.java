package io.fabricpulse.streams.peers;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.streams.alerts.AlertIds;
import io.fabricpulse.streams.detect.capability.Subjects;
import java.util.LinkedHashMap;
import java.util.Map;

/** The labels of the topology join: the other end of the alert's port, the link's incident. */
public final class PeerLabels {

  private PeerLabels() {}

  /**
   * The incident key of an alert of {@code kind} on either end of link {@code linkId}: the first
   * 128 bits of SHA-256 over {@code incident/<kind>}, the link id and 0 ({@link AlertIds#of}), hex.
   * A function of the cable and the kind only, so both ends' alerts get it whichever arrives first.
   */
  public static String incident(AlertKind kind, String linkId) {
    return AlertIds.of("incident/" + kind, linkId, 0);
  }

  /**
   * {@code alert} with the labels naming the end of {@code link} that is not {@code portKey}; the
   * alert unchanged without a link. Labels the detector set itself are kept.
   */
  static Alert add(String portKey, Alert alert, FabricLink link) {
    if (link == null || alert == null) {
      return alert;
    }
    LinkPort peer =
        Subjects.of(link.getCluster(), link.getEndA()).key().equals(portKey)
            ? link.getEndB()
            : link.getEndA();
    Map<String, String> labels = new LinkedHashMap<>(alert.getLabels());
    labels.putIfAbsent(LinkPeers.PEER, Subjects.label(peer));
    if (peer.getNodeDescription() != null) {
      labels.putIfAbsent(LinkPeers.PEER_NODE, peer.getNodeDescription());
    }
    if (peer.getNodeType() != null) {
      labels.putIfAbsent(LinkPeers.PEER_TYPE, peer.getNodeType().name());
    }
    labels.putIfAbsent(LinkPeers.PEER_GUID, peer.getGuid());
    labels.putIfAbsent(LinkPeers.PEER_PORT, Integer.toString(peer.getPort()));
    labels.putIfAbsent(LinkPeers.LINK_ID, link.getLinkId());
    labels.putIfAbsent(LinkPeers.INCIDENT, incident(alert.getKind(), link.getLinkId()));
    return Alert.newBuilder(alert).setLabels(labels).build();
  }
}
