package io.fabricpulse.streams.rates;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * One raw sample (port, PFC or ECN) reduced to what the rate stage needs, with its subject: the
 * thing whose counters these are, and the key of its last-sample state (the rates record keeps the
 * raw key, {@code cluster/node}).
 *
 * <p>Subjects: {@code cluster/node/device/port} for port counters, {@code cluster/node/netdev} for
 * PFC, and for ECN {@code cluster/node} followed by whichever of netdev, device and port the sample
 * names. Raw topics are keyed by {@code cluster/node}, so every subject of a node lives in the same
 * partition and the per-subject state needs no repartition.
 */
public record RateSample(
    RateSource source,
    String subject,
    String cluster,
    String node,
    String bootId,
    long seq,
    String device,
    Integer port,
    String netdev,
    PortCounters link,
    List<Counter> counters) {

  /** Key in the last-sample store: the source keeps an ECN subject apart from its port's. */
  public String storeKey() {
    return source.name() + "|" + subject;
  }

  /** The same sample rated as {@code other} (a switch port's PortCounters view: PERFQUERY). */
  public RateSample withSource(RateSource other) {
    return new RateSample(
        other, subject, cluster, node, bootId, seq, device, port, netdev, link, counters);
  }

  /** The sample of a per-port view: PortCounters, PfcPauseFrames or EcnMarks. */
  public static RateSample of(SpecificRecord view) {
    if (view instanceof PortCounters p) {
      return of(p);
    }
    if (view instanceof PfcPauseFrames p) {
      return of(p);
    }
    if (view instanceof EcnMarks e) {
      return of(e);
    }
    throw new InvalidSampleException("not a counter sample: " + view.getSchema().getFullName());
  }

  public static RateSample of(PortCounters p) {
    require(p.getCluster(), "cluster");
    require(p.getNode(), "node");
    require(p.getDevice(), "device");
    String subject = p.getCluster() + "/" + p.getNode() + "/" + p.getDevice() + "/" + p.getPort();
    return new RateSample(
        RateSource.PORT,
        subject,
        p.getCluster(),
        p.getNode(),
        p.getBootId(),
        p.getSeq(),
        p.getDevice(),
        p.getPort(),
        p.getNetdev(),
        p,
        p.getCounters());
  }

  public static RateSample of(PfcPauseFrames p) {
    require(p.getCluster(), "cluster");
    require(p.getNode(), "node");
    require(p.getNetdev(), "netdev");
    String subject = p.getCluster() + "/" + p.getNode() + "/" + p.getNetdev();
    return new RateSample(
        RateSource.PFC,
        subject,
        p.getCluster(),
        p.getNode(),
        p.getBootId(),
        p.getSeq(),
        p.getDevice(),
        null,
        p.getNetdev(),
        null,
        p.getCounters());
  }

  public static RateSample of(EcnMarks e) {
    require(e.getCluster(), "cluster");
    require(e.getNode(), "node");
    boolean hasNetdev = e.getNetdev() != null && !e.getNetdev().isBlank();
    boolean hasDevice = e.getDevice() != null && !e.getDevice().isBlank();
    if (!hasNetdev && !hasDevice) {
      throw new InvalidSampleException("ECN sample names neither netdev nor device");
    }
    StringBuilder subject = new StringBuilder(e.getCluster()).append('/').append(e.getNode());
    if (hasNetdev) {
      subject.append('/').append(e.getNetdev());
    }
    if (hasDevice) {
      subject.append('/').append(e.getDevice());
      if (e.getPort() != null) {
        subject.append('/').append(e.getPort());
      }
    }
    return new RateSample(
        RateSource.ECN,
        subject.toString(),
        e.getCluster(),
        e.getNode(),
        e.getBootId(),
        e.getSeq(),
        e.getDevice(),
        e.getPort(),
        e.getNetdev(),
        null,
        e.getCounters());
  }

  private static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new InvalidSampleException("sample has an empty " + field);
    }
  }

  /** A sample that decodes but cannot be rated (its subject is incomplete). */
  public static final class InvalidSampleException extends RuntimeException {
    public InvalidSampleException(String message) {
      super(message);
    }
  }
}
