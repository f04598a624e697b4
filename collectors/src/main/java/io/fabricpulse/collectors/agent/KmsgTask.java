package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.kmsg.KernelLogSource;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** GpuXid events from the kernel log lines logged since the last cycle. */
public final class KmsgTask extends SourceTask {
  private final KernelLogSource source;
  private final KernelLogXidParser parser;
  private final String sourceName;
  private long linesRead;

  /**
   * @param sourceName what malformed-line reports name, e.g. /dev/kmsg
   */
  public KmsgTask(
      NodeIdentity identity,
      Duration interval,
      KernelLogSource source,
      KernelLogXidParser parser,
      String sourceName) {
    super(SourceKind.KMSG, identity, interval);
    this.source = source;
    this.parser = parser;
    this.sourceName = sourceName;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) throws Exception {
    List<String> lines = source.poll();
    long first = linesRead + 1;
    linesRead += lines.size();
    return widen(parser.parseLines(lines, first, context(now), sourceName));
  }

  @Override
  public void close() throws Exception {
    if (source instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }
}
