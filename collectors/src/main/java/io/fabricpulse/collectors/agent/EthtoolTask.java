package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolCollector;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/** A PfcPauseFrames (and, when there are ECN/CNP counters, an EcnMarks) per netdev per cycle. */
public final class EthtoolTask extends SourceTask {
  private final EthtoolCollector collector;
  private final RoceNetdevs netdevs;

  public EthtoolTask(
      NodeIdentity identity, Duration interval, EthtoolCollector collector, RoceNetdevs netdevs) {
    super(SourceKind.ETHTOOL, identity, interval);
    this.collector = collector;
    this.netdevs = netdevs;
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) {
    SampleContext ctx = context(now);
    ParseResult<SpecificRecord> result = new ParseResult<>();
    for (RoceNetdevs.Port port : netdevs.ports(now)) {
      result.addAll(
          collector.collect(
              ctx, port.netdev(), port.device(), port.port(), netdevs.hwCongestion(port)));
    }
    return result;
  }
}
