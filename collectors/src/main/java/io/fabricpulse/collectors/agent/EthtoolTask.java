package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolCollector;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;

/**
 * Per cycle, one NodeCounters of source PFC with every RoCE netdev's ethtool counters and, when any
 * port has ECN/CNP counters, one of source ECN. Each of the two is numbered by its own sequence.
 */
public final class EthtoolTask extends SourceTask {
  private final EthtoolCollector collector;
  private final RoceNetdevs netdevs;
  private final AtomicLong ecnSequence = new AtomicLong();

  public EthtoolTask(
      NodeIdentity identity, Duration interval, EthtoolCollector collector, RoceNetdevs netdevs) {
    super(SourceKind.ETHTOOL, identity, interval);
    this.collector = collector;
    this.netdevs = netdevs;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) {
    SampleContext unnumbered = unnumbered(now);
    ParseResult<SpecificRecord> perPort = new ParseResult<>();
    for (RoceNetdevs.Port port : netdevs.ports(now)) {
      perPort.addAll(
          collector.collect(
              unnumbered, port.netdev(), port.device(), port.port(), netdevs.hwCongestion(port)));
    }
    List<PfcPauseFrames> pfc = new ArrayList<>();
    List<EcnMarks> ecn = new ArrayList<>();
    for (SpecificRecord record : perPort.records()) {
      if (record instanceof PfcPauseFrames p) {
        pfc.add(p);
      } else if (record instanceof EcnMarks e) {
        ecn.add(e);
      }
    }
    ParseResult<SpecificRecord> result = new ParseResult<>();
    result.skipAll(perPort);
    if (!pfc.isEmpty()) {
      result.add(NodeRecords.ofPfc(cycle(context(now)), pfc));
    }
    if (!ecn.isEmpty()) {
      result.add(NodeRecords.ofEcn(cycle(new SampleContext(identity(), now, ecnSequence)), ecn));
    }
    return result;
  }
}
