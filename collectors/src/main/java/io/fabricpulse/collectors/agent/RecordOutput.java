package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** Where the agent's records go: Kafka in production ({@link KafkaRecordOutput}). */
public interface RecordOutput extends AutoCloseable {

  /** Hands over one cycle's records; must not block on an unreachable broker for long. */
  void publish(NodeIdentity identity, List<SpecificRecord> records);

  /** Waits until what was handed over has been sent (or buffered, if Kafka is unreachable). */
  void flush();

  @Override
  void close();
}
