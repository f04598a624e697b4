package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.nccl.NcclLineParser;
import io.fabricpulse.collectors.nccl.NcclLineSource;
import io.fabricpulse.collectors.nccl.NcclLogLine;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.apache.avro.specific.SpecificRecord;

/** NcclLog records from the NCCL log lines written since the last cycle. */
public final class NcclTask extends SourceTask {
  private final NcclLineSource tailer;

  /** NCCL and PyTorch print local time: the node's zone reads the timestamps in its own logs. */
  private final NcclLineParser parser = new NcclLineParser(ZoneId.systemDefault());

  public NcclTask(NodeIdentity identity, Duration interval, NcclLineSource tailer) {
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
