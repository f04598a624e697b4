package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.nccl.NcclLineParser;
import io.fabricpulse.collectors.nccl.NcclLogLine;
import io.fabricpulse.collectors.nccl.NcclLogTailer;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/** NcclLog records from the NCCL log lines written since the last cycle. */
public final class NcclTask extends SourceTask {
  private final NcclLogTailer tailer;
  private final NcclLineParser parser = new NcclLineParser();

  public NcclTask(NodeIdentity identity, Duration interval, NcclLogTailer tailer) {
    super(SourceKind.NCCL, identity, interval);
    this.tailer = tailer;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) {
    SampleContext ctx = context(now);
    ParseResult<NcclLog> result = new ParseResult<>();
    for (NcclLogLine line : tailer.poll()) {
      parser.parse(line, ctx, result);
    }
    parser.flush(result);
    return widen(result);
  }
}
