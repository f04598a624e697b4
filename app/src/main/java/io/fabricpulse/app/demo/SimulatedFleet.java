package io.fabricpulse.app.demo;

import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.agent.KafkaRecordOutput;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatedAgents;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.time.Instant;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;

/**
 * The node agents of every simulated host ({@link SimulatedAgents}: the collector's own source
 * tasks over the simulator's sources), publishing through the agent's Kafka output. One {@link
 * #collect(Instant)} is one simulated second of the whole fleet.
 */
public final class SimulatedFleet implements AutoCloseable {
  private final SimulatedAgents agents;
  private final KafkaRecordOutput output;
  private long published;
  private long portSamples;

  public SimulatedFleet(FabricSimulator simulator, Properties producerConfig, FabricTopics topics) {
    this.agents = new SimulatedAgents(simulator);
    this.output =
        new KafkaRecordOutput(RecordPublisher.createProducer(producerConfig), topics, 1_000_000);
    output.watchDelivery(); // as the agent does: a record put back is retried within a second
  }

  /** Advances the simulated fabric to {@code time} and publishes every task that is due. */
  public void collect(Instant time) {
    for (SimulatedAgents.HostRecords host : agents.collect(time)) {
      output.publish(host.identity(), host.records());
      published += host.records().size();
      for (SpecificRecord record : host.records()) {
        if (record instanceof NodeCounters node && node.getSource() == RateSource.PORT) {
          portSamples += node.getPorts().size();
        }
      }
    }
  }

  /** Raw records published (one per node cycle and source for the counter sources). */
  public long published() {
    return published;
  }

  /** IB/RoCE port samples inside the published NodeCounters of source PORT. */
  public long portSamples() {
    return portSamples;
  }

  long malformed() {
    return agents.malformed();
  }

  long failures() {
    return agents.failures();
  }

  long lost() {
    return output.lost();
  }

  /** Sends the producer refused before taking the record (retried): e.g. a topic's first record. */
  long refusedSends() {
    return output.refused();
  }

  public void flush() {
    output.flush();
  }

  @Override
  public void close() {
    output.close();
  }
}
