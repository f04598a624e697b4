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
    of(peer, link, alert.getKind()).forEach(labels::putIfAbsent);
    return Alert.newBuilder(alert).setLabels(labels).build();
  }

  /**
   * The join's labels for an alert of {@code kind} whose other end of {@code link} is {@code peer}:
   * peer, peer_node and peer_type (when the sweep says), peer_guid, peer_port, link_id, incident.
   */
  public static Map<String, String> of(LinkPort peer, FabricLink link, AlertKind kind) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(LinkPeers.PEER, Subjects.label(peer));
    if (peer.getNodeDescription() != null) {
      labels.put(LinkPeers.PEER_NODE, peer.getNodeDescription());
    }
    if (peer.getNodeType() != null) {
      labels.put(LinkPeers.PEER_TYPE, peer.getNodeType().name());
    }
    labels.put(LinkPeers.PEER_GUID, peer.getGuid());
    labels.put(LinkPeers.PEER_PORT, Integer.toString(peer.getPort()));
    labels.put(LinkPeers.LINK_ID, link.getLinkId());
    labels.put(LinkPeers.INCIDENT, incident(kind, link.getLinkId()));
    return labels;
  }
}
