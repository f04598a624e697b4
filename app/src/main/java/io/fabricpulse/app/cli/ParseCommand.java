package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.NodeFacts;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
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
 * one JSON object per line on stdout (docs/design.md section 7). Skipped input is counted on
 * stderr; the exit code is non-zero only for unusable arguments or unreadable files.
 */
@Command(
    name = "parse",
    mixinStandardHelpOptions = true,
    description = {
      "Parse captured tool output offline into the collectors' records, one JSON object per line.",
      "Malformed input is counted on stderr and skipped."
    })
public final class ParseCommand implements Callable<Integer> {
  static final int EXIT_UNREADABLE = 2;
  private static final int MALFORMED_SHOWN = 5;

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
    int exit = 0;
    for (String path : paths) {
      Input input;
      try {
        input = read(path);
      } catch (IOException e) {
        err.println(path + ": cannot read: " + e.getMessage());
        exit = EXIT_UNREADABLE;
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
      ParseResult<SpecificRecord> result =
          format.parse(input.name(), input.text(), input.directory(), ctx, extras);
      for (SpecificRecord record : result.records()) {
        out.println(JsonRecords.toJson(record));
      }
      report(err, input.name(), result);
    }
    out.flush();
    err.flush();
    return exit;
  }

  private static void report(PrintWriter err, String name, ParseResult<SpecificRecord> result) {
    List<Malformed> malformed = result.malformed();
    err.println(
        name + ": " + result.records().size() + " records, " + malformed.size() + " malformed");
    for (Malformed m : malformed.subList(0, Math.min(MALFORMED_SHOWN, malformed.size()))) {
      err.println("  skipped " + m);
    }
    if (malformed.size() > MALFORMED_SHOWN) {
      err.println("  ... and " + (malformed.size() - MALFORMED_SHOWN) + " more");
    }
  }

  /** One input: a file's text (or a sysfs directory), its name, stem and modification time. */
  private record Input(String name, String text, Path directory, String stem, Instant modified) {}

  private Input read(String path) throws IOException {
    if (path.equals("-")) {
      if (format.readsDirectory()) {
        throw new IOException("the " + format.cliName() + " format reads a directory, not stdin");
      }
      String text = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      return new Input("stdin", text, null, null, Instant.now());
    }
    Path file = Path.of(path);
    Instant modified = Files.getLastModifiedTime(file).toInstant();
    String stem = stem(file);
    if (format.readsDirectory()) {
      if (!Files.isDirectory(file.resolve("class/infiniband"))) {
        throw new IOException("not a sysfs root: no class/infiniband under " + file);
      }
      return new Input(path, null, file, hostname(), modified);
    }
    if (Files.isDirectory(file)) {
      throw new IOException("is a directory");
    }
    return new Input(path, Files.readString(file, StandardCharsets.UTF_8), null, stem, modified);
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
