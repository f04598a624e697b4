package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;

/**
 * One source of the node agent: what one cycle reads and parses. Each source numbers its records
 * with its own sequence (the rate stage detects gaps and duplicates per source). A cycle reports
 * bad input in the result's malformed list and never throws for it; it may throw for a source that
 * cannot be read at all, which the agent logs and retries next cycle.
 */
public abstract class SourceTask implements AutoCloseable {
  private final SourceKind kind;
  private final NodeIdentity identity;
  private final Duration interval;
  private final AtomicLong sequence = new AtomicLong();

  protected SourceTask(SourceKind kind, NodeIdentity identity, Duration interval) {
    this.kind = kind;
    this.identity = identity;
    this.interval = interval;
  }

  public SourceKind kind() {
    return kind;
  }

  public Duration interval() {
    return interval;
  }

  public NodeIdentity identity() {
    return identity;
  }

  /** A context for a sample taken at {@code now}, numbered from this source's sequence. */
  protected SampleContext context(Instant now) {
    return new SampleContext(identity, now, sequence);
  }

  /**
   * A context whose records are numbered apart from this source's sequence: for readers whose
   * per-port records are folded into one node record, which alone takes a number ({@link #cycle}).
   */
  protected SampleContext unnumbered(Instant now) {
    return SampleContext.of(identity, now);
  }

  /** The header of this cycle's node record, numbered from this source's sequence. */
  protected static NodeRecords.Cycle cycle(SampleContext ctx) {
    return new NodeRecords.Cycle(
        ctx.cluster(), ctx.node(), ctx.bootId(), ctx.nextSeq(), ctx.time());
  }

  /** One cycle at {@code now}. */
  public abstract ParseResult<SpecificRecord> collect(Instant now) throws Exception;

  /** Releases files, threads and processes the source holds. */
  @Override
  public void close() throws Exception {}

  /** Widens a parser's result to the agent's record type. */
  protected static ParseResult<SpecificRecord> widen(ParseResult<? extends SpecificRecord> result) {
    ParseResult<SpecificRecord> wide = new ParseResult<>();
    wide.addAll(result);
    return wide;
  }
}
