package io.fabricpulse.collectors.topology;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import java.util.List;

/**
 * What one sweep changes: the records to publish.
 *
 * @param upserts links to write to fabric.topology: new links and links with anything changed
 *     except their sweep number and time (a renegotiation, a new LID or description)
 * @param removed link_ids to tombstone on fabric.topology
 * @param changes the change log for fabric.topology.changes, in link_id order
 */
public record TopologyDiff(
    List<FabricLink> upserts, List<String> removed, List<FabricLinkChange> changes) {

  public TopologyDiff {
    upserts = List.copyOf(upserts);
    removed = List.copyOf(removed);
    changes = List.copyOf(changes);
  }
}
