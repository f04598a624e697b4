package io.fabricpulse.streams.peers;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.TopologySource;
import java.time.Instant;

/** fabric.topology records as the fabric role's sweep of cluster c1 on sm01 writes them. */
final class TopologyRecords {
  private TopologyRecords() {}

  static FabricLink link(String linkId, LinkPort a, LinkPort b, long t) {
    return FabricLink.newBuilder()
        .setCluster("c1")
        .setLinkId(linkId)
        .setObservedBy("sm01")
        .setSource(TopologySource.IBNETDISCOVER)
        .setSweepSeq(0)
        .setTime(Instant.ofEpochMilli(t))
        .setEndA(a)
        .setEndB(b)
        .build();
  }

  /** One end at 4X {@code speed}. */
  static LinkPort end(
      String guid, FabricNodeType type, String description, int port, LinkSpeed speed) {
    return LinkPort.newBuilder()
        .setGuid(guid)
        .setNodeType(type)
        .setNodeDescription(description)
        .setPort(port)
        .setWidth(4)
        .setSpeed(speed)
        .build();
  }
}
