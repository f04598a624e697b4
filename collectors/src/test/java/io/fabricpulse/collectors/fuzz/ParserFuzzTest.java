package io.fabricpulse.collectors.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.NodeIdentity;
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
import io.fabricpulse.collectors.testing.Samples;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 12, fault 6: every text parser of the agent (and of {@code fabricpulse parse}) is fed
 * {@value #DEFAULT_MUTATIONS} mutated lines per format in CI, as the issue asks ({@code
 * -Dfabricpulse.fuzz.mutations=N} for a shorter or longer run), derived from the real captures in
 * collectors/testdata by {@link LineMutator} (truncation, byte flips, invalid UTF-8, control bytes,
 * numbers out of range, huge lines), seeded: a failure names the seed, format, capture, line and
 * mutation, and {@code -Dfabricpulse.fuzz.seed=N} replays it. Each mutated file must:
 *
 * <ul>
 *   <li>parse without an exception escaping;
 *   <li>lose nothing beyond the mutated line: it yields at least as many records as the capture
 *       with that line left out (a truncated file: as the lines before the cut), so one bad byte
 *       never loses the good lines after it;
 *   <li>count what it lost: for a format in which every line is data ({@link
 *       Format#everyLineIsData}), fewer records than the capture's means more malformed lines than
 *       the capture's. In log formats most lines are rightly ignored (a kernel log line that no
 *       longer reads as an Xid is just another kernel line), so there only the first two hold.
 * </ul>
 */
class ParserFuzzTest {
  static final int DEFAULT_MUTATIONS = 100_000;
  static final long SEED = Long.getLong("fabricpulse.fuzz.seed", 20261201L);
  static final int MUTATIONS = Integer.getInteger("fabricpulse.fuzz.mutations", DEFAULT_MUTATIONS);
  private static final int FAILURES_SHOWN = 5;
  private static final NodeIdentity NODE = new NodeIdentity("fuzz", "gpu001", "boot-1");
  private static final Instant TIME = Instant.parse("2024-07-31T11:22:39Z");

  /** What one parse gave: records and malformed lines. */
  record Outcome(int records, int malformed) {}

  /** A text format, the captures it is fuzzed from, and how the agent parses it. */
  record Format(
      String name,
      boolean everyLineIsData,
      List<String> captures,
      Function<String, Outcome> parser,
      Pattern section) {
    Format(
        String name,
        boolean everyLineIsData,
        List<String> captures,
        Function<String, Outcome> parser) {
      this(name, everyLineIsData, captures, parser, null);
    }

    /** Documents of {@link #LINES_PER_DOCUMENT} lines, each with its section's header line. */
    List<Capture> documents() {
      List<Capture> documents = new ArrayList<>();
      for (String capture : captures) {
        documents.addAll(Capture.split(capture, section));
      }
      return documents;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** The formats to fuzz: all, or those {@code -Dfabricpulse.fuzz.formats=kmsg,nccl} names. */
  static Stream<Format> formats() {
    String only = System.getProperty("fabricpulse.fuzz.formats", "");
    return allFormats()
        .filter(f -> only.isBlank() || Arrays.asList(only.split(",")).contains(f.name()));
  }

  static Stream<Format> allFormats() {
    return Stream.of(
        new Format(
            "ethtool",
            true,
            List.of(
                "ethtool/byteps-179-mlx5-prio-counters-before-benchmark.txt",
                "ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"),
            ParserFuzzTest::ethtool),
        new Format(
            "opensm-log",
            false,
            List.of("opensm/linux-rdma-opensm-3.3.21-standby-node-log1.txt"),
            text -> outcome(new OpenSmLogParser(ZoneOffset.UTC).parse(text, context(), "fuzz"))),
        new Format(
            "sminfo",
            true,
            List.of("opensm/ibsim-lab-sminfo-master-simulated.txt"),
            text -> outcome(new SminfoParser().parseCapture("fuzz", text, context()))),
        new Format(
            "nvidia-smi-csv",
            true,
            List.of("nvsmi/nvgpuexp-h100-query-gpu-ecc-csv.txt"),
            text -> outcome(new NvidiaSmiCsvParser().parseWithHeader(text, context(), "fuzz")),
            Pattern.compile("^(timestamp|index),")),
        new Format(
            "nvidia-smi-q",
            false,
            List.of(
                "nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08.txt",
                "nvsmi/mleng-a100-xid63-and-nvidia-smi-q-remap-pending.txt"),
            text -> outcome(new NvidiaSmiQParser().parse(text, context(), "fuzz")),
            Pattern.compile("^GPU [0-9A-Fa-f]{8}:")),
        new Format(
            "kmsg",
            false,
            List.of(
                "kmsg/akash-244-dmesg-xid43-31-94-contained.txt",
                "nvsmi/mleng-a100-xid63-and-nvidia-smi-q-remap-pending.txt"),
            text ->
                outcome(
                    new KernelLogXidParser(ZoneOffset.UTC, null).parse(text, context(), "fuzz"))),
        new Format(
            "nccl",
            false,
            List.of(
                "nccl/gke-a3-h100-2node-socket-fallback-nccl2.22.3.txt",
                "nccl/mleng-azure-ib-warn-completion-error12.txt",
                "nccl/nccl-1537-roce-gdr-disabled-for-hca.txt",
                "nccl/nv_peer_memory-56-gdr-disabled-distance-via-NET-IB-0-nccl2.4.7.txt",
                "nccl/slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5.txt"),
            ParserFuzzTest::nccl),
        new Format(
            "perfquery",
            true,
            List.of(
                "perfquery/ibsim-perfquery-leaf01-ports-1-2-7-8.txt",
                "perfquery/ibsim-perfquery-x-leaf01-ports-1-2-7-8.txt",
                "perfquery/treydock-perfquery-x-edr-switch-2ports.txt"),
            text -> outcome(new PerfqueryParser().parse(context(), "fuzz", text)),
            Pattern.compile("^# Port")),
        new Format(
            "ibqueryerrors",
            true,
            List.of("perfquery/linux-rdma-ibqueryerrors-sx6036-symbolerr-xmitwait-saturated.txt"),
            text -> outcome(new IbqueryerrorsParser().parse(context(), "fuzz", text))),
        new Format(
            "ibnetdiscover",
            true,
            List.of(
                "ibnetdiscover/ibsim-ibnetdiscover-leaf01-spine01-1x.txt",
                "ibnetdiscover/ibsim-ibnetdiscover-p-leaf01-spine01-1x.txt",
                "ibnetdiscover/treydock-ibnetdiscover-p-edr-unconnected-4x-unknown.txt",
                "ibnetdiscover/treydock-ibnetdiscover-p-hdr-padded-descriptions.txt",
                "ibnetdiscover/treydock-ibnetdiscover-p-qdr-unquoted-description.txt",
                "ibdiagnet/gary-minghuili-ibdiagnet2-ibnetdiscover-ndr-excerpt.ibnetdiscover"),
            text -> outcome(IbnetdiscoverOutput.parse("fuzz", text)),
            Pattern.compile("^(Switch|Ca|Hca|Rt)\\s")),
        new Format(
            "iblinkinfo",
            true,
            List.of(
                "iblinkinfo/ibsim-iblinkinfo-l-leaf01-spine01-1x.txt",
                "iblinkinfo/ibsim-iblinkinfo-leaf01-spine01-1x.txt"),
            text -> outcome(new IblinkinfoParser().parse("fuzz", text)),
            Pattern.compile("^(CA|Switch): ")),
        new Format(
            "ibdiagnet-log",
            false,
            List.of("ibdiagnet/gary-minghuili-ibdiagnet2-ndr-quantum2-warnings.log"),
            text -> outcome(new IbdiagnetLogParser().parse("fuzz", text))),
        new Format(
            "ibdiagnet-pm",
            true,
            List.of("ibdiagnet/gary-minghuili-ibdiagnet2-pm-ndr-excerpt.pm"),
            text -> outcome(new IbdiagnetPmParser().parse("fuzz", text)),
            Pattern.compile("^Port=")),
        new Format(
            "ibstat",
            true,
            List.of("ibstat/gpud-ibstat-h100-roce-some-down-polling.txt"),
            text -> outcome(new IbstatParser().parse("fuzz", text)),
            Pattern.compile("^CA '")),
        new Format(
            "ibstatus",
            true,
            List.of("ibstatus/gpud-ibstatus-a100-8x-hdr-and-ethernet.txt"),
            text -> outcome(new IbstatusParser().parse("fuzz", text))),
        new Format(
            "lldp",
            false,
            List.of(
                "lldp/lldpd-1.0.16-host-two-tors-neighbors.txt",
                "lldp/lldpd-1.0.16-leaf-neighbors.txt"),
            text -> outcome(new LldpKeyValueParser().neighbors("fuzz", text))));
  }

  private static SampleContext context() {
    return SampleContext.of(NODE, TIME);
  }

  private static Outcome outcome(ParseResult<?> result) {
    return new Outcome(result.records().size(), result.malformed().size());
  }

  /** As the ethtool task and {@code parse --format ethtool}: the stats, then the records. */
  private static Outcome ethtool(String text) {
    ParseResult<EthtoolStat> stats = new EthtoolStatsParser().parse("fuzz", text);
    if (!stats.records().isEmpty()) {
      EthtoolRecords.pfcPauseFrames(context(), "ens1f0np0", null, null, stats.records());
      if (!EthtoolRecords.ecnCounters(stats.records(), null, Map.of()).isEmpty()) {
        EthtoolRecords.ecnMarks(context(), "ens1f0np0", null, null, null, stats.records());
      }
    }
    return outcome(stats);
  }

  /** As {@code parse --format nccl}: every line, then undated records timed from neighbours. */
  private static Outcome nccl(String text) {
    ParseResult<NcclLog> result =
        new NcclLineParser(ZoneOffset.UTC)
            .parseAll(NcclLineParser.linesOf("fuzz", text.lines().toList(), "4711"), context());
    NcclLineParser.timeUndatedFromNeighbours(result.records());
    return outcome(result);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("formats")
  void mutatedLinesNeverEscapeNorLoseTheRestOfTheFile(Format format) {
    LineMutator mutator = new LineMutator(SEED ^ format.name().hashCode());
    List<Capture> captures = format.documents();
    Map<LineMutator.Kind, Integer> kinds = new java.util.EnumMap<>(LineMutator.Kind.class);
    Map<LineMutator.Kind, Long> nanosPerKind = new java.util.EnumMap<>(LineMutator.Kind.class);
    List<String> failures = new ArrayList<>();
    int failed = 0;
    int counted = 0;
    long start = System.nanoTime();
    for (int i = 0; i < MUTATIONS; i++) {
      Capture capture = captures.get(i % captures.size());
      int line = capture.randomDataLine(mutator);
      LineMutator.Kind kind = mutator.nextKind();
      kinds.merge(kind, 1, Integer::sum);
      String mutated = mutator.mutate(capture.lines[line], kind);
      String text = capture.with(line, mutated, kind == LineMutator.Kind.TRUNCATE_FILE);
      String problem;
      Outcome got;
      long parseStart = System.nanoTime();
      try {
        got = format.parser().apply(text);
        problem = check(format, capture, line, kind, ignorable(mutated), got);
      } catch (RuntimeException | StackOverflowError e) {
        got = null;
        problem = "threw " + e;
      }
      nanosPerKind.merge(kind, System.nanoTime() - parseStart, Long::sum);
      if (got != null && got.malformed() > capture.baseline(format).malformed()) {
        counted++;
      }
      if (problem != null) {
        failed++;
        if (failures.size() < FAILURES_SHOWN) {
          failures.add(
              String.format(
                  "%s, document line %d, %s (seed %d, mutation %d): %s%n    line was: %s%n    mutated:  %s",
                  capture.name,
                  line + 1,
                  kind,
                  SEED,
                  i,
                  problem,
                  shorten(capture.lines[line]),
                  shorten(mutated)));
        }
      }
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.out.printf(
        "fuzz %s: %d mutated lines in %d documents from %d captures, %d failed, %d with malformed lines counted,"
            + " %d ms; mutations %s; ms per kind %s%n",
        format.name(),
        MUTATIONS,
        captures.size(),
        format.captures().size(),
        failed,
        counted,
        millis,
        kinds,
        millisOf(nanosPerKind));
    if (!failures.isEmpty()) {
      fail(
          format.name()
              + ": "
              + failed
              + " of "
              + MUTATIONS
              + " mutated files failed; the first:\n  "
              + String.join("\n  ", failures));
    }
    assertEquals(0, failed);
  }

  /** Null when the mutated file's outcome keeps the promises of the class comment. */
  private static String check(
      Format format,
      Capture capture,
      int line,
      LineMutator.Kind kind,
      boolean nowBlank,
      Outcome got) {
    boolean truncated = kind == LineMutator.Kind.TRUNCATE_FILE;
    Outcome floor = truncated ? capture.prefix(format, line) : capture.without(format, line);
    int lost = floor.records() - got.records();
    int counted = got.malformed() - floor.malformed();
    if (lost > 0 && counted < lost) {
      return got.records()
          + " records, "
          + lost
          + " fewer than the file "
          + (truncated ? "cut before that line" : "without that line")
          + " gives, and only "
          + Math.max(counted, 0)
          + " more malformed: the bad line lost good ones silently";
    }
    Outcome baseline = capture.baseline(format);
    if (format.everyLineIsData()
        && !truncated
        && !nowBlank
        && got.records() < baseline.records()
        && got.malformed() <= baseline.malformed()) {
      return got.records()
          + " records instead of "
          + baseline.records()
          + " and no malformed line counted: lost silently";
    }
    return null;
  }

  private static Map<LineMutator.Kind, Long> millisOf(Map<LineMutator.Kind, Long> nanos) {
    Map<LineMutator.Kind, Long> millis = new java.util.EnumMap<>(LineMutator.Kind.class);
    nanos.forEach((kind, n) -> millis.put(kind, n / 1_000_000));
    return millis;
  }

  /** A line every format skips by design: blank, or a comment. */
  private static boolean ignorable(String line) {
    return line.isBlank() || line.strip().startsWith("#");
  }

  private static String shorten(String text) {
    String printable = text.replaceAll("\\p{Cntrl}", "?");
    return printable.length() > 160
        ? printable.substring(0, 160) + "... (" + text.length() + " chars)"
        : printable;
  }

  /** Lines of a document: short, so that each format's mutations take seconds. */
  static final int LINES_PER_DOCUMENT = 4;

  /**
   * A piece of a real capture: {@link #LINES_PER_DOCUMENT} consecutive lines, after the header line
   * of the section they are in (a GPU, a port, a switch) when the format has sections, with the
   * outcomes the checks compare against (computed once).
   */
  static final class Capture {
    final String name;
    final String[] lines;
    private final int[] dataLines;
    private Outcome baseline;
    private final Map<Integer, Outcome> without = new HashMap<>();
    private final Map<Integer, Outcome> prefix = new HashMap<>();

    static List<Capture> split(String capture, Pattern section) {
      String[] all = Samples.read(capture).split("\n", -1);
      List<Capture> documents = new ArrayList<>();
      String header = null;
      for (int start = 0; start < all.length; start += LINES_PER_DOCUMENT) {
        List<String> lines = new ArrayList<>();
        if (header != null && !(section.matcher(all[start]).find())) {
          lines.add(header);
        }
        int end = Math.min(all.length, start + LINES_PER_DOCUMENT);
        for (int i = start; i < end; i++) {
          lines.add(all[i]);
          if (section != null && section.matcher(all[i]).find()) {
            header = all[i];
          }
        }
        Capture document =
            new Capture(
                capture + " lines " + (start + 1) + "-" + end, lines.toArray(String[]::new));
        if (document.dataLines.length > 0) {
          documents.add(document);
        }
      }
      return documents;
    }

    private Capture(String name, String[] lines) {
      this.name = name;
      this.lines = lines;
      this.dataLines =
          java.util.stream.IntStream.range(0, lines.length)
              .filter(i -> !lines[i].isBlank())
              .toArray();
    }

    int randomDataLine(LineMutator mutator) {
      return dataLines[mutator.random().nextInt(dataLines.length)];
    }

    /** The capture with line {@code index} replaced; with {@code cut}, nothing after it. */
    String with(int index, String replacement, boolean cut) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < index; i++) {
        text.append(lines[i]).append('\n');
      }
      text.append(replacement);
      if (!cut) {
        for (int i = index + 1; i < lines.length; i++) {
          text.append('\n').append(lines[i]);
        }
      }
      return text.toString();
    }

    Outcome baseline(Format format) {
      if (baseline == null) {
        baseline = format.parser().apply(String.join("\n", lines));
      }
      return baseline;
    }

    Outcome without(Format format, int index) {
      return without.computeIfAbsent(
          index,
          i -> {
            List<String> kept = new ArrayList<>(Arrays.asList(lines));
            kept.remove((int) i);
            return format.parser().apply(String.join("\n", kept));
          });
    }

    Outcome prefix(Format format, int index) {
      return prefix.computeIfAbsent(
          index, i -> format.parser().apply(String.join("\n", Arrays.asList(lines).subList(0, i))));
    }
  }
}
