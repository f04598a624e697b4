package io.fabricpulse.streams.peers;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.streams.detect.capability.Subjects;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Re-keys fabric.topology (key link_id) by the alert name of each end: a link record goes out
 * twice, once per end, at the record's time.
 *
 * <p>A tombstone goes nowhere: the port keeps the last cable a sweep showed on it until a sweep
 * shows another link there (a re-cabled port). iblinkinfo and ibnetdiscover stop showing a cable
 * while its port is down (no remote end to report), and the collector then tombstones the link;
 * that is exactly when a flap or link-down alert must still name the other end of the cable.
 */
final class LinkEndsIndexer implements Processor<String, FabricLink, String, FabricLink> {

  private ProcessorContext<String, FabricLink> context;

  @Override
  public void init(ProcessorContext<String, FabricLink> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, FabricLink> record) {
    FabricLink link = record.value();
    if (record.key() == null || link == null) {
      return;
    }
    for (String port : portKeys(link)) {
      context.forward(record.withKey(port));
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
