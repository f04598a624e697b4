package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.NodeFacts;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code fabricpulse parse --format F PATH...}: captured tool output to the collectors' records,
 * one JSON object per line on stdout (docs/design.md section 7). Skipped input is counted on stderr
 * (the first few lines shown), invalid UTF-8 bytes are replaced and counted, and the exit code says
 * whether every file was read in full ({@link ExitCodes}).
 */
@Command(
    name = "parse",
    mixinStandardHelpOptions = true,
    description = {
      "Parse captured tool output offline into records, one JSON object per line.",
      "",
      "Each file is parsed by the collector's own parser for --format. Per file, stderr",
      "gets a summary: records, malformed lines skipped (the first 5 shown), and",
      "invalid UTF-8 bytes replaced by U+FFFD (the file is still parsed)."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse parse --format kmsg --zone Europe/Berlin dmesg.txt",
      "  fabricpulse parse --format nccl --job 4711 slurm-4711.out | fabricpulse detect",
      "  ethtool -S ens1f0np0 | fabricpulse parse --format ethtool --netdev ens1f0np0 -",
      "  fabricpulse parse --format ibdiagnet-log /var/tmp/ibdiagnet2/ibdiagnet2.log"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every file parsed in full",
      "1:some lines were malformed and skipped; the rest was printed",
      "2:usage error, an unreadable file, or a file with no record and only malformed lines (wrong --format)"
    })
public final class ParseCommand implements Callable<Integer> {
  static final int EXIT_UNREADABLE = ExitCodes.USAGE;
  private static final int MALFORMED_SHOWN = 5;
  private static final int PROBLEM_CHARS = 300;

  @Option(
      names = "--format",
      required = true,
      converter = FormatConverter.class,
      completionCandidates = FormatNames.class,
      description = "One of: ${COMPLETION-CANDIDATES}")
  ParseFormat format;

  @Parameters(
      arity = "1..*",
      paramLabel = "PATH",
      description = "Files to parse ('-' = stdin); for sysfs, a directory holding class/infiniband")
  List<String> paths;

  @Option(
      names = "--cluster",
      defaultValue = "default",
      description = "Cluster (default: ${DEFAULT-VALUE})")
  String cluster;

  @Option(
      names = "--node",
      description =
          "Node name (default: the file name without its extension; the host name for stdin)")
  String node;

  @Option(names = "--boot-id", defaultValue = "unknown", description = "boot_id of the records")
  String bootId;

  @Option(
      names = "--time",
      description =
          "Sample time, ISO-8601 (default: the file's modification time, now for stdin); for logs"
              + " without a year it is the reference time; nccl lines with their own timestamp"
              + " keep it")
  String time;

  @Option(
      names = "--zone",
      defaultValue = "UTC",
      description =
          "Zone of local timestamps in opensm-log, kmsg and nccl text (default: ${DEFAULT-VALUE})")
  String zone;

  @Option(
      names = "--netdev",
      description = "ethtool: the netdev (default: the file name without its extension)")
  String netdev;

  @Option(
      names = "--driver",
      description = "ethtool: the driver, e.g. mlx5_core, ice (default: any naming)")
  String driver;

  @Option(names = "--job", description = "nccl: the job id of the records")
  String job;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Instant fixedTime;
    ZoneId zoneId;
    try {
      fixedTime = time == null ? null : Instant.parse(time);
      zoneId = ZoneId.of(zone);
    } catch (DateTimeParseException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--time: '" + time + "' is not an ISO-8601 instant, e.g. 2025-01-02T03:04:05Z");
    } catch (java.time.DateTimeException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--zone: unknown zone '" + zone + "'");
    }
    AtomicLong sequence = new AtomicLong();
    int exit = ExitCodes.OK;
    for (String path : paths) {
      Input input;
      try {
        input = read(path);
      } catch (IOException e) {
        err.println(path + ": cannot read: " + IoReason.of(e));
        exit = ExitCodes.USAGE;
        continue;
      }
      String nodeName = node != null ? node : input.stem() != null ? input.stem() : hostname();
      NodeIdentity identity = new NodeIdentity(cluster, nodeName, bootId);
      Instant at = fixedTime != null ? fixedTime : input.modified();
      SampleContext ctx = new SampleContext(identity, at, sequence);
      ParseFormat.Extras extras =
          new ParseFormat.Extras(
              netdev != null ? netdev : input.stem() != null ? input.stem() : "stdin",
              driver,
              job,
              zoneId);
      ParseResult<Object> result =
          format.parse(input.name(), input.text(), input.directory(), ctx, extras);
      for (Object record : result.records()) {
        out.println(json(record));
      }
      exit = Math.max(exit, report(err, input, result));
    }
    out.flush();
    err.flush();
    return exit;
  }

  /** The per-file summary on stderr; returns the file's exit code. */
  /**
   * A pipeline record in its JSON-lines form, a fabric tool's parsed record in {@link
   * ToolRecordJson}'s.
   */
  private static String json(Object record) {
    if (record instanceof SpecificRecord avro) {
      return JsonRecords.toJson(avro);
    }
    if (record instanceof Record parsed) {
      return ToolRecordJson.toJson(parsed);
    }
    throw new IllegalStateException("a parser returned " + record.getClass().getName());
  }

  private int report(PrintWriter err, Input input, ParseResult<Object> result) {
    String name = input.name();
    List<Malformed> malformed = result.malformed();
    int records = result.records().size();
    err.println(name + ": " + records + " records, " + malformed.size() + " malformed");
    for (Malformed m : malformed.subList(0, Math.min(MALFORMED_SHOWN, malformed.size()))) {
      err.println("  skipped " + shorten(m.toString()));
    }
    if (malformed.size() > MALFORMED_SHOWN) {
      err.println("  ... and " + (malformed.size() - MALFORMED_SHOWN) + " more");
    }
    if (input.decoded() != null && !input.decoded().clean()) {
      err.println("  " + input.decoded().summary());
    }
    if (records == 0 && input.hasContent()) {
      err.println(
          "  no "
              + format.cliName()
              + " records in "
              + name
              + ": is --format "
              + format.cliName()
              + " right? (formats: "
              + String.join(", ", new FormatNames())
              + ")");
    }
    if (malformed.isEmpty()) {
      return ExitCodes.OK;
    }
    return records == 0 ? ExitCodes.USAGE : ExitCodes.PARTIAL;
  }

  private static String shorten(String text) {
    return text.length() > PROBLEM_CHARS ? text.substring(0, PROBLEM_CHARS) + "..." : text;
  }

  /**
   * One input: a file's text (or a sysfs directory), its name, stem and modification time, and what
   * its decoding replaced (null for a directory).
   */
  private record Input(
      String name,
      String text,
      Path directory,
      String stem,
      Instant modified,
      LenientUtf8.Decoded decoded) {
    boolean hasContent() {
      return directory != null || !text.isBlank();
    }
  }

  private Input read(String path) throws IOException {
    if (path.equals("-")) {
      if (format.readsDirectory()) {
        throw new IOException("the " + format.cliName() + " format reads a directory, not stdin");
      }
      LenientUtf8.Decoded decoded = LenientUtf8.decode(System.in.readAllBytes());
      return new Input("stdin", decoded.text(), null, null, Instant.now(), decoded);
    }
    Path file = Path.of(path);
    Instant modified = Files.getLastModifiedTime(file).toInstant();
    String stem = stem(file);
    if (format.readsDirectory()) {
      if (!Files.isDirectory(file.resolve("class/infiniband"))) {
        throw new IOException("not a sysfs root: no class/infiniband under " + file);
      }
      return new Input(path, null, file, hostname(), modified, null);
    }
    if (Files.isDirectory(file)) {
      throw new IOException("Is a directory");
    }
    LenientUtf8.Decoded decoded = LenientUtf8.decode(Files.readAllBytes(file));
    return new Input(path, decoded.text(), null, stem, modified, decoded);
  }

  private static String stem(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }

  private static String hostname() {
    return NodeFacts.system().hostname();
  }

  /** Reads the format names as printed in the help, e.g. {@code opensm-log}. */
  static final class FormatConverter implements CommandLine.ITypeConverter<ParseFormat> {
    @Override
    public ParseFormat convert(String value) {
      try {
        return ParseFormat.fromCliName(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(
            "'" + value + "' is not a format; use one of " + String.join(", ", new FormatNames()));
      }
    }
  }

  static final class FormatNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return java.util.Arrays.stream(ParseFormat.values()).map(ParseFormat::cliName).iterator();
    }
  }
}
