package io.fabricpulse.schemas.topics;

import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import org.apache.avro.specific.SpecificRecord;

/**
 * The Kafka key a raw record is published with: a link of the topology (and its changes) by its
 * link id, so fabric.topology compacts to the latest record of each cable; an ibdiagnet run by
 * {@code cluster/observed_by}; every other record by {@code cluster/node} (a switch's counters by
 * the switch), so one node's records stay in order on one partition.
 */
public final class RecordKeys {
  private RecordKeys() {}

  public static String keyOf(SpecificRecord record) {
    if (record instanceof FabricLink link) {
      return link.getLinkId();
    }
    if (record instanceof FabricLinkChange change) {
      return change.getLinkId();
    }
    if (record instanceof FabricFindings run) {
      return run.getCluster() + "/" + run.getObservedBy();
    }
    return field(record, "cluster") + "/" + field(record, "node");
  }

  private static Object field(SpecificRecord record, String name) {
    var field = record.getSchema().getField(name);
    return field == null ? null : record.get(field.pos());
  }
}
