package io.fabricpulse.streams.peers;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.streams.detect.capability.Subjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Re-keys fabric.topology (key link_id) by the alert name of each end: a link record goes out
 * twice, once per end, at the record's time; a tombstone (the link is gone) deletes the ends the
 * link had, unless a newer link holds that port by then (a re-cabled port keeps its new peer
 * whatever order the old link's tombstone and the new link came in).
 *
 * <p>Store {@link LinkPeers#ENDS_STORE}: {@code link:<link_id>} -> its port keys (tab-separated),
 * {@code port:<port key>} -> the link that holds the port.
 */
final class LinkEndsIndexer implements Processor<String, FabricLink, String, FabricLink> {

  private ProcessorContext<String, FabricLink> context;
  private KeyValueStore<String, String> ends;

  @Override
  public void init(ProcessorContext<String, FabricLink> context) {
    this.context = context;
    this.ends = context.getStateStore(LinkPeers.ENDS_STORE);
  }

  @Override
  public void process(Record<String, FabricLink> record) {
    String linkId = record.key();
    if (linkId == null) {
      return;
    }
    FabricLink link = record.value();
    List<String> now = link == null ? List.of() : portKeys(link);
    String before = ends.get("link:" + linkId);
    if (before != null) {
      for (String port : before.split("\t")) {
        if (!now.contains(port) && linkId.equals(ends.get("port:" + port))) {
          ends.delete("port:" + port);
          context.forward(record.withKey(port).withValue(null));
        }
      }
    }
    for (String port : now) {
      ends.put("port:" + port, linkId);
      context.forward(record.withKey(port));
    }
    if (now.isEmpty()) {
      ends.delete("link:" + linkId);
    } else {
      ends.put("link:" + linkId, String.join("\t", now));
    }
  }

  static List<String> portKeys(FabricLink link) {
    List<String> keys = new ArrayList<>(2);
    for (LinkPort end : List.of(link.getEndA(), link.getEndB())) {
      String key = Subjects.of(link.getCluster(), end).key();
      if (!keys.contains(key)) {
        keys.add(key);
      }
    }
    return keys;
  }
}
