package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.opensm.SminfoParser;
import io.fabricpulse.collectors.opensm.SminfoSource;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/** One SmSweep poll (or SMINFO_FAILED, itself a signal) per cycle. */
public final class SminfoTask extends SourceTask {
  private final SminfoSource source;
  private final SminfoParser parser = new SminfoParser();

  public SminfoTask(NodeIdentity identity, Duration interval, SminfoSource source) {
    super(SourceKind.SMINFO, identity, interval);
    this.source = source;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) throws Exception {
    return widen(parser.parse(source.run(), context(now)));
  }
}
