package io.fabricpulse.collectors.ethtool;

import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import java.io.IOException;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * One ethtool sample of one netdev: reads through an {@link EthtoolSource}, parses, and builds a
 * {@link PfcPauseFrames} and, when the port has any ECN/CNP counter, an {@link EcnMarks}. A read
 * failure is reported as one skipped input, never thrown.
 */
public final class EthtoolCollector {
  private final EthtoolSource source;
  private final EthtoolStatsParser parser = new EthtoolStatsParser();

  public EthtoolCollector(EthtoolSource source) {
    this.source = source;
  }

  /**
   * @param rdmaDevice RDMA device bound to the netdev (mlx5_0), null when unknown
   * @param port RDMA port number of the netdev, null when unknown
   * @param hwCounters the port's hw_counters by name (may be empty); only the congestion counters
   *     are used
   */
  public ParseResult<SpecificRecord> collect(
      SampleContext ctx,
      String netdev,
      String rdmaDevice,
      Integer port,
      Map<String, Long> hwCounters) {
    ParseResult<SpecificRecord> result = new ParseResult<>();
    String sourceName = "ethtool -S " + netdev;
    String text;
    try {
      text = source.stats(netdev);
    } catch (IOException | RuntimeException e) {
      result.skip(sourceName, 0, "read failed: " + e.getMessage());
      return result;
    }
    ParseResult<EthtoolStat> parsed = parser.parse(sourceName, text);
    parsed.malformed().forEach(m -> result.skip(m.source(), m.line(), m.reason()));
    if (parsed.records().isEmpty()) {
      result.skip(sourceName, 0, "no counters in output");
      return result;
    }
    String driver = source.driver(netdev);
    result.add(EthtoolRecords.pfcPauseFrames(ctx, netdev, driver, rdmaDevice, parsed.records()));
    // Build EcnMarks only when there is something to carry: every built record takes a seq.
    if (!EthtoolRecords.ecnCounters(parsed.records(), driver, hwCounters).isEmpty()) {
      result.add(
          EthtoolRecords.ecnMarks(
              ctx, netdev, driver, rdmaDevice, port, parsed.records(), hwCounters));
    }
    return result;
  }
}
