package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/** One NodeCounters (source PORT) per cycle, carrying every IB/RoCE port of the node. */
public final class SysfsTask extends SourceTask {
  private final SysfsPortCounterReader reader;

  public SysfsTask(NodeIdentity identity, Duration interval, SysfsPortCounterReader reader) {
    super(SourceKind.SYSFS, identity, interval);
    this.reader = reader;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) {
    ParseResult<PortCounters> ports = reader.read(unnumbered(now));
    ParseResult<SpecificRecord> result = new ParseResult<>();
    result.skipAll(ports);
    if (!ports.records().isEmpty()) {
      result.add(NodeRecords.ofPorts(cycle(context(now)), RateSource.PORT, ports.records()));
    }
    return result;
  }
}
