package io.fabricpulse.schemas.topics;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * One topic of the pipeline: its name, the Avro record type of its values, and how it is created.
 * Keys are always UTF-8 strings: {@code cluster/node} for the raw topics and fabric.rates
 * (co-partitioned, see README "Contract changes"), {@code alert_id} for the alert topics, {@code
 * cluster/host/job} for fabric.nccl.transport, {@code link_id} for fabric.topology and
 * fabric.topology.changes.
 *
 * @param retention null for the broker default; ignored for compacted topics
 */
public record TopicSpec(
    String name,
    Class<? extends SpecificRecord> valueType,
    int partitions,
    Duration retention,
    boolean compacted) {

  /** Topic-level configs for Admin.createTopics. */
  public Map<String, String> configs() {
    Map<String, String> configs = new LinkedHashMap<>();
    if (compacted) {
      configs.put("cleanup.policy", "compact");
      configs.put("min.compaction.lag.ms", "0");
    } else {
      configs.put("cleanup.policy", "delete");
      if (retention != null) {
        configs.put("retention.ms", Long.toString(retention.toMillis()));
      }
    }
    configs.put("message.timestamp.type", "CreateTime");
    return configs;
  }

  public TopicSpec withName(String newName) {
    return new TopicSpec(newName, valueType, partitions, retention, compacted);
  }

  public TopicSpec withPartitions(int count) {
    return new TopicSpec(name, valueType, count, retention, compacted);
  }
}
