package io.fabricpulse.streams.testing;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.streams.ValueSerdes;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;

/** Readers of fabric.rates output for tests that feed the rate stage one port per raw record. */
public final class RatesOutput {

  private RatesOutput() {}

  /**
   * Reads each NodeRates on fabric.rates as the view of its one port; a record with more or fewer
   * ports fails the test (use {@link #views} for node records).
   */
  public static Deserializer<CounterRates> singlePort(ValueSerdes serdes) {
    Deserializer<NodeRates> nodes = serdes.forValues(NodeRates.class).deserializer();
    return (topic, bytes) -> {
      NodeRates node = nodes.deserialize(topic, bytes);
      if (node == null) {
        return null;
      }
      List<CounterRates> views = NodeRecords.views(node);
      if (views.size() != 1) {
        throw new AssertionError(
            "expected one port in the NodeRates of " + node.getNode() + ", got " + views.size());
      }
      return views.get(0);
    };
  }

  /** The per-port views of one NodeRates. */
  public static List<CounterRates> views(NodeRates node) {
    return NodeRecords.views(node);
  }
}
