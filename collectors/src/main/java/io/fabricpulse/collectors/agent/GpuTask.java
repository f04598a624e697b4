package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCollector;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/** One GpuEcc record per GPU per cycle. */
public final class GpuTask extends SourceTask {
  private final NvidiaSmiCollector collector;

  public GpuTask(NodeIdentity identity, Duration interval, NvidiaSmiCollector collector) {
    super(SourceKind.GPU, identity, interval);
    this.collector = collector;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) throws InterruptedException {
    return widen(collector.collect(context(now)));
  }
}
