package io.fabricpulse.collectors.core;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a parser needs besides the text it parses: who the node is, when the sample was taken, and
 * the per-source sequence counter that numbers published records.
 */
public final class SampleContext {
  private final NodeIdentity identity;
  private final Instant time;
  private final AtomicLong sequence;

  public SampleContext(NodeIdentity identity, Instant time, AtomicLong sequence) {
    this.identity = identity;
    this.time = time;
    this.sequence = sequence;
  }

  /** A context with its own counter starting at 0, for one-off parsing (tests, `parse`). */
  public static SampleContext of(NodeIdentity identity, Instant time) {
    return new SampleContext(identity, time, new AtomicLong());
  }

  public NodeIdentity identity() {
    return identity;
  }

  public String cluster() {
    return identity.cluster();
  }

  public String node() {
    return identity.node();
  }

  public String bootId() {
    return identity.bootId();
  }

  public Instant time() {
    return time;
  }

  /** The next sequence number for a record of this source. */
  public long nextSeq() {
    return sequence.getAndIncrement();
  }

  /** The same node and counter at another time (log lines carry their own timestamps). */
  public SampleContext at(Instant otherTime) {
    return new SampleContext(identity, otherTime, sequence);
  }
}
