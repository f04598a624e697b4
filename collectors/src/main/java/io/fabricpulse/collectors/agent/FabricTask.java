package io.fabricpulse.collectors.agent;

import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.fabric.PortLink;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetFinding;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetFindingRecords;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetLogParser;
import io.fabricpulse.collectors.iblinkinfo.IblinkinfoParser;
import io.fabricpulse.collectors.ibnetdiscover.IbnetdiscoverOutput;
import io.fabricpulse.collectors.switchports.SwitchCounterSweep;
import io.fabricpulse.collectors.topology.FabricSweepSource;
import io.fabricpulse.collectors.topology.IbdiagnetRunDirectory;
import io.fabricpulse.collectors.topology.TopologySnapshot;
import java.time.Duration;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;

/**
 * The fabric collector role: each cycle one topology sweep (ibnetdiscover -p or iblinkinfo -l), and
 * the topology of a new ibdiagnet run if one appeared (with the findings of its ibdiagnet2.log, one
 * FabricFindings per run), each compared with its own previous snapshot. A cycle gives the
 * FabricLinks to (re)publish and the FabricLinkChanges; the output turns a DISAPPEARED change into
 * the tombstone of its link on fabric.topology. After a topology sweep that gave links, the
 * switch-port counter sweep (when configured) reads every switch's ports with perfquery, one switch
 * at a time, and gives one NodeCounters of source PERFQUERY per switch.
 */
public final class FabricTask extends SourceTask {
  private final String tool;
  private final FabricSweepSource sweeps;
  private final IbdiagnetRunDirectory ibdiagnet;
  private final SwitchCounterSweep switchCounters;
  private final TopologySweeps sweepsSeen;
  private TopologySnapshot lastSweep;
  private TopologySnapshot lastIbdiagnet;

  /**
   * @param tool {@code ibnetdiscover} or {@code iblinkinfo}: how {@code sweeps}' text is parsed
   * @param sweeps the sweep command; null to only ingest ibdiagnet runs
   * @param ibdiagnet the ibdiagnet output directory; null when not configured
   */
  public FabricTask(
      NodeIdentity identity,
      Duration interval,
      String tool,
      FabricSweepSource sweeps,
      IbdiagnetRunDirectory ibdiagnet) {
    this(identity, interval, tool, sweeps, ibdiagnet, null);
  }

  /**
   * @param switchCounters reads the switches' port counters after each topology sweep; null for
   *     topology only
   */
  public FabricTask(
      NodeIdentity identity,
      Duration interval,
      String tool,
      FabricSweepSource sweeps,
      IbdiagnetRunDirectory ibdiagnet,
      SwitchCounterSweep switchCounters) {
    super(SourceKind.FABRIC, identity, interval);
    this.tool = tool;
    this.sweeps = sweeps;
    this.ibdiagnet = ibdiagnet;
    this.switchCounters = switchCounters;
    this.sweepsSeen = new TopologySweeps(identity);
  }

  @Override
  public ParseResult<SpecificRecord> collect(Instant now) throws Exception {
    ParseResult<SpecificRecord> result = new ParseResult<>();
    if (sweeps != null) {
      String text = sweeps.sweep();
      ParseResult<PortLink> ports =
          tool.equals("iblinkinfo")
              ? new IblinkinfoParser().parse(tool, text)
              : IbnetdiscoverOutput.parse(tool, text);
      TopologySource source =
          tool.equals("iblinkinfo") ? TopologySource.IBLINKINFO : TopologySource.IBNETDISCOVER;
      lastSweep =
          TopologySweeps.compare(
              lastSweep, sweepsSeen.snapshot(source, now, tool, ports, result), result);
      if (switchCounters != null && ports.records().stream().anyMatch(PortLink::connected)) {
        ParseResult<NodeCounters> counters =
            switchCounters.sweep(identity().cluster(), now, ports.records());
        counters.records().forEach(result::add);
        result.skipAll(counters);
      }
    }
    if (ibdiagnet != null) {
      IbdiagnetRunDirectory.Run run = ibdiagnet.newRun();
      if (run != null) {
        String name = run.file().toString();
        ParseResult<PortLink> ports = IbnetdiscoverOutput.parse(name, run.text());
        TopologySnapshot snapshot =
            sweepsSeen.snapshot(TopologySource.IBDIAGNET, run.written(), name, ports, result);
        lastIbdiagnet = TopologySweeps.compare(lastIbdiagnet, snapshot, result);
        if (run.log() != null) {
          String log = run.log().toString();
          ParseResult<IbdiagnetFinding> findings =
              new IbdiagnetLogParser().parse(log, run.logText());
          result.skipAll(findings);
          result.add(
              IbdiagnetFindingRecords.of(
                  identity().cluster(),
                  identity().node(),
                  log,
                  run.logWritten(),
                  findings.records()));
        }
      }
    }
    return result;
  }
}
