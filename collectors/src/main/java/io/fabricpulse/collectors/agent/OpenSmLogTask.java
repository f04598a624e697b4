package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.opensm.OpenSmLogParser;
import io.fabricpulse.collectors.opensm.OpenSmLogTailer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** SmSweep events from the OpenSM log lines written since the last cycle. */
public final class OpenSmLogTask extends SourceTask {
  private final OpenSmLogTailer tailer;
  private final OpenSmLogParser parser;
  private final String sourceName;
  private long linesRead;

  public OpenSmLogTask(
      NodeIdentity identity,
      Duration interval,
      OpenSmLogTailer tailer,
      OpenSmLogParser parser,
      String sourceName) {
    super(SourceKind.OPENSM, identity, interval);
    this.tailer = tailer;
    this.parser = parser;
    this.sourceName = sourceName;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) throws Exception {
    List<String> lines = tailer.poll();
    long first = linesRead + 1;
    linesRead += lines.size();
    return widen(parser.parseLines(lines, first, context(now), sourceName));
  }

  @Override
  public void close() throws Exception {
    tailer.close();
  }
}
