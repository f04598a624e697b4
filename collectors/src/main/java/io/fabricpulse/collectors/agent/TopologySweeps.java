package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.topology.TopologyDiff;
import io.fabricpulse.collectors.topology.TopologyDiffer;
import io.fabricpulse.collectors.topology.TopologySnapshot;
import io.fabricpulse.collectors.topology.TopologySweep;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/**
 * The topology sweeps of one collector, numbered from 1, and what each changed since the one
 * before: shared by the fabric role (InfiniBand tools) and the LLDP source (Ethernet).
 */
final class TopologySweeps {
  private final NodeIdentity identity;
  private long sweepSeq;

  TopologySweeps(NodeIdentity identity) {
    this.identity = identity;
  }

  /** The next sweep's snapshot of {@code ports}; what gives no link goes to the malformed list. */
  TopologySnapshot snapshot(
      TopologySource source,
      Instant time,
      String name,
      ParseResult<PortLink> ports,
      ParseResult<SpecificRecord> result) {
    ports.malformed().forEach(m -> result.skip(m.source(), m.line(), m.reason()));
    TopologySweep sweep =
        new TopologySweep(identity.cluster(), identity.node(), source, ++sweepSeq, time);
    ParseResult<TopologySnapshot> snapshot = TopologySnapshot.of(sweep, name, ports.records());
    snapshot.malformed().forEach(m -> result.skip(m.source(), m.line(), m.reason()));
    return snapshot.records().get(0);
  }

  /**
   * Adds what changed since {@code previous} to {@code result}; returns {@code current}. A sweep
   * that gave no link at all (a tool printing only errors) is not compared: it would read as every
   * link of the fabric disappearing.
   */
  static TopologySnapshot compare(
      TopologySnapshot previous, TopologySnapshot current, ParseResult<SpecificRecord> result) {
    if (current.links().isEmpty() && previous != null && !previous.links().isEmpty()) {
      result.skip(current.sweep().source().name(), 0, "sweep gave no link; kept the previous one");
      return previous;
    }
    TopologyDiff diff =
        previous == null
            ? TopologyDiffer.baseline(current)
            : TopologyDiffer.diff(previous, current);
    diff.upserts().forEach(result::add);
    diff.changes().forEach(result::add);
    return current;
  }
}
