package io.fabricpulse.app.demo;

import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.publish.RecordPublisher;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The collectors of every simulated node, running the real parsers over the simulator's output and
 * publishing through the real publisher. One {@link #collect(Instant)} is one collection cycle of
 * the whole fleet at one simulated second.
 */
final class SimulatedFleet implements AutoCloseable {
  private final FabricSimulator simulator;
  private final Map<String, SysfsPortCounterReader> portReaders = new LinkedHashMap<>();
  private final Map<String, AtomicLong> portSeq = new LinkedHashMap<>();
  private final RecordPublisher portPublisher;
  private long published;
  private long malformed;

  SimulatedFleet(FabricSimulator simulator, Properties producerConfig, String portTopic) {
    this.simulator = simulator;
    for (String node : simulator.nodes()) {
      portReaders.put(node, new SysfsPortCounterReader(simulator.nodeTree(node)));
      portSeq.put(node, new AtomicLong());
    }
    this.portPublisher = new RecordPublisher(producerConfig, portTopic, 1_000_000);
  }

  /** Advances the simulated fabric to {@code time} and publishes one sample of every source. */
  void collect(Instant time) {
    simulator.advanceTo(time);
    for (Map.Entry<String, SysfsPortCounterReader> e : portReaders.entrySet()) {
      NodeIdentity identity = simulator.identity(e.getKey());
      ParseResult<PortCounters> result =
          e.getValue().read(new SampleContext(identity, time, portSeq.get(e.getKey())));
      portPublisher.publishAll(identity, result);
      published += result.records().size();
      malformed += result.malformed().size();
    }
  }

  long published() {
    return published;
  }

  long malformed() {
    return malformed;
  }

  long dropped() {
    return portPublisher.dropped() + portPublisher.rejected();
  }

  void flush() {
    portPublisher.flush();
  }

  @Override
  public void close() {
    portPublisher.close();
  }
}
