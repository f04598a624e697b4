package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/** One PortCounters record per IB/RoCE port per cycle. */
public final class SysfsTask extends SourceTask {
  private final SysfsPortCounterReader reader;

  public SysfsTask(NodeIdentity identity, Duration interval, SysfsPortCounterReader reader) {
    super(SourceKind.SYSFS, identity, interval);
    this.reader = reader;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) {
    return widen(reader.read(context(now)));
  }
}
