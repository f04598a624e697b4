package io.fabricpulse.app.cli;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import io.fabricpulse.collectors.ethtool.EthtoolStat;
import io.fabricpulse.collectors.ethtool.EthtoolStatsParser;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetLogParser;
import io.fabricpulse.collectors.ibdiagnet.IbdiagnetPmParser;
import io.fabricpulse.collectors.iblinkinfo.IblinkinfoParser;
import io.fabricpulse.collectors.ibnetdiscover.IbnetdiscoverOutput;
import io.fabricpulse.collectors.ibstat.IbstatParser;
import io.fabricpulse.collectors.ibstatus.IbstatusParser;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import io.fabricpulse.collectors.lldp.LldpKeyValueParser;
import io.fabricpulse.collectors.nccl.NcclLineParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCsvParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiQParser;
import io.fabricpulse.collectors.opensm.OpenSmLogParser;
import io.fabricpulse.collectors.opensm.SminfoParser;
import io.fabricpulse.collectors.perfquery.IbqueryerrorsParser;
import io.fabricpulse.collectors.perfquery.PerfqueryParser;
import io.fabricpulse.collectors.sysfs.DirectorySysfsTree;
import io.fabricpulse.collectors.sysfs.SysfsPortCounterReader;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * The captured tool outputs {@code fabricpulse parse} reads, each with the collector's parser. Most
 * give pipeline records (Avro); the fabric tools ({@link #IBNETDISCOVER} to {@link #LLDP}) give
 * their parser's Java records, written by {@link ToolRecordJson}.
 */
public enum ParseFormat {
  /** A sysfs root directory (holding class/infiniband): PortCounters per port. */
  SYSFS("sysfs"),
  /** {@code ethtool -S} text: one PfcPauseFrames, plus EcnMarks when there are ECN counters. */
  ETHTOOL("ethtool"),
  /** OpenSM log lines: SmSweep events. */
  OPENSM_LOG("opensm-log"),
  /** {@code sminfo} output: one SmSweep poll. */
  SMINFO("sminfo"),
  /** {@code nvidia-smi --query-gpu=... --format=csv} with its header: GpuEcc per GPU. */
  NVIDIA_SMI_CSV("nvidia-smi-csv"),
  /** {@code nvidia-smi -q}: GpuEcc per GPU. */
  NVIDIA_SMI_Q("nvidia-smi-q"),
  /** Kernel log (/dev/kmsg, dmesg, journalctl -k): GpuXid events. */
  KMSG("kmsg"),
  /** NCCL_DEBUG=INFO logs: NcclLog per NCCL line. */
  NCCL("nccl"),
  /** {@code perfquery [-x]}: PortCounters. */
  PERFQUERY("perfquery"),
  /** {@code ibqueryerrors}: PortCounters per reported port. */
  IBQUERYERRORS("ibqueryerrors"),
  /** {@code ibnetdiscover -p} or the plain topology file: a PortLink per port line. */
  IBNETDISCOVER("ibnetdiscover"),
  /** {@code iblinkinfo [-l]}: a PortLink per port line. */
  IBLINKINFO("iblinkinfo"),
  /** {@code ibdiagnet2.log}: an IbdiagnetFinding per warning or error. */
  IBDIAGNET_LOG("ibdiagnet-log"),
  /** {@code ibdiagnet2.pm} ({@code pm_info}): IbdiagnetPortCounters per port section. */
  IBDIAGNET_PM("ibdiagnet-pm"),
  /** {@code ibstat}: an IbstatPort per port. */
  IBSTAT("ibstat"),
  /** {@code ibstatus}: an IbstatusPort per port. */
  IBSTATUS("ibstatus"),
  /** {@code lldpcli -f keyvalue show neighbors details}: an LldpNeighbor per neighbour. */
  LLDP("lldp");

  private final String cliName;

  ParseFormat(String cliName) {
    this.cliName = cliName;
  }

  /** The name on the command line, e.g. {@code opensm-log}. */
  public String cliName() {
    return cliName;
  }

  public boolean readsDirectory() {
    return this == SYSFS;
  }

  public static ParseFormat fromCliName(String name) {
    for (ParseFormat format : values()) {
      if (format.cliName.equals(name.toLowerCase(Locale.ROOT))) {
        return format;
      }
    }
    throw new IllegalArgumentException(name);
  }

  /** Options some formats need besides the sample context. */
  public record Extras(String netdev, String driver, String job, ZoneId zone) {}

  /**
   * Parses one input.
   *
   * @param source file name for malformed reports
   * @param text the file's text (null for {@link #SYSFS})
   * @param directory the sysfs root (only for {@link #SYSFS})
   */
  public ParseResult<Object> parse(
      String source, String text, Path directory, SampleContext ctx, Extras extras) {
    ParseResult<Object> result = new ParseResult<>();
    switch (this) {
      case SYSFS ->
          result.addAll(new SysfsPortCounterReader(new DirectorySysfsTree(directory)).read(ctx));
      case ETHTOOL -> {
        ParseResult<EthtoolStat> stats = new EthtoolStatsParser().parse(source, text);
        stats.malformed().forEach(m -> result.skip(m.source(), m.line(), m.reason()));
        if (stats.records().isEmpty()) {
          result.skip(source, 0, "no ethtool counters");
        } else {
          result.add(
              EthtoolRecords.pfcPauseFrames(
                  ctx, extras.netdev(), extras.driver(), null, stats.records()));
          if (!EthtoolRecords.ecnCounters(stats.records(), extras.driver(), java.util.Map.of())
              .isEmpty()) {
            result.add(
                EthtoolRecords.ecnMarks(
                    ctx, extras.netdev(), extras.driver(), null, null, stats.records()));
          }
        }
      }
      case OPENSM_LOG -> {
        result.addAll(new OpenSmLogParser(extras.zone()).parse(text, ctx, source));
        refuseIfNoLineFits(
            result,
            source,
            text,
            OpenSmLogParser::isHeaderLine,
            "not an OpenSM log line (no 'Mon DD HH:MM:SS uuuuuu [thread] 0xLL -> ' header)");
      }
      case SMINFO -> result.addAll(new SminfoParser().parseCapture(source, text, ctx));
      case NVIDIA_SMI_CSV ->
          result.addAll(new NvidiaSmiCsvParser().parseWithHeader(text, ctx, source));
      case NVIDIA_SMI_Q -> result.addAll(new NvidiaSmiQParser().parse(text, ctx, source));
      case KMSG -> {
        result.addAll(new KernelLogXidParser(extras.zone(), null).parse(text, ctx, source));
        refuseIfNoLineFits(
            result,
            source,
            text,
            KernelLogXidParser::isKernelLogLine,
            "not a kernel log line (/dev/kmsg, dmesg, dmesg -T or journalctl -k)");
      }
      case NCCL -> {
        ParseResult<NcclLog> nccl =
            new NcclLineParser(extras.zone())
                .parseAll(NcclLineParser.linesOf(source, text.lines().toList(), extras.job()), ctx);
        NcclLineParser.timeUndatedFromNeighbours(nccl.records());
        result.addAll(nccl);
        refuseIfNoLineFits(
            result,
            source,
            text,
            NcclLineParser::isNcclLine,
            "not an NCCL log line (no 'NCCL INFO|WARN' and no NCCL failure)");
      }
      case PERFQUERY -> result.addAll(new PerfqueryParser().parse(ctx, source, text));
      case IBQUERYERRORS -> result.addAll(new IbqueryerrorsParser().parse(ctx, source, text));
      case IBNETDISCOVER -> result.addAll(IbnetdiscoverOutput.parse(source, text));
      case IBLINKINFO -> result.addAll(new IblinkinfoParser().parse(source, text));
      case IBDIAGNET_LOG -> result.addAll(new IbdiagnetLogParser().parse(source, text));
      case IBDIAGNET_PM -> result.addAll(new IbdiagnetPmParser().parse(source, text));
      case IBSTAT -> result.addAll(new IbstatParser().parse(source, text));
      case IBSTATUS -> result.addAll(new IbstatusParser().parse(source, text));
      case LLDP -> result.addAll(new LldpKeyValueParser().neighbors(source, text));
    }
    return result;
  }

  /**
   * A log format's parser skips the lines it does not track without calling them malformed (most of
   * a kernel log has no Xid), so a capture of another tool would parse to nothing, silently. When
   * no record came out and not one line has the format's shape, every non-blank line is counted as
   * malformed: the file held nothing usable (exit 2, like the other formats' wrong input).
   */
  private static void refuseIfNoLineFits(
      ParseResult<?> result,
      String source,
      String text,
      Predicate<String> fitsTheFormat,
      String reason) {
    if (!result.records().isEmpty() || !result.malformed().isEmpty()) {
      return;
    }
    List<String> lines = text.lines().toList();
    if (lines.stream().anyMatch(fitsTheFormat)) {
      return;
    }
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).isBlank()) {
        result.skip(source, i + 1, reason);
      }
    }
  }
}
