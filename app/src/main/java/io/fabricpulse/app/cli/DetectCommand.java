package io.fabricpulse.app.cli;

import io.fabricpulse.app.output.AlertText;
import io.fabricpulse.app.run.BundledRules;
import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.schemas.json.JsonRecords;
import io.fabricpulse.schemas.nodes.NodeRecords;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.RecordKeys;
import io.fabricpulse.schemas.topics.TopicSpec;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.StreamsSettings;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.detect.nccl.NcclTransportDetector;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fabricpulse detect [FILE.jsonl]}: every topology of the pipeline (rates and all detectors,
 * {@link FabricTopology}) run offline over JSON-lines records, in event time, without a broker.
 */
@Command(
    name = "detect",
    mixinStandardHelpOptions = true,
    description = {
      "Run the rate stage and every detector offline over JSON-lines records.",
      "",
      "The records are the output of `parse` or `collect --once` (stdin by default).",
      "Each goes to its raw topic by \"type\" (PortCounters -> fabric.raw.port-counters,",
      "NcclLog -> fabric.raw.nccl, CounterRates -> fabric.rates, ...), keyed",
      "cluster/node, with its own time as the event time; records are replayed in",
      "time order (equal times keep their order). Derived records (NcclTransport,",
      "Alert; CounterRates with --rates) are printed as JSON lines on stdout, each",
      "alert also as one human line on stderr. At the end of the input, stream time",
      "is advanced by the longest rule hysteresis (+1 s), so alerts whose condition",
      "ended show their RESOLVED record; --no-flush advances it only by the 30 s an",
      "NCCL error waits for its node's link state. Lines that are not",
      "records are counted and skipped (the first 5 shown); invalid UTF-8 bytes are",
      "replaced by U+FFFD and counted. A record the pipeline sends to its dead-letter",
      "topic instead of judging it is shown with its line and reason (the first 5)",
      "and counted. Runs in a Kafka Streams TopologyTestDriver with an in-process",
      "(mock://) schema registry: no broker needed."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse parse --format nccl slurm-4711.out | fabricpulse detect",
      "  fabricpulse detect --rates --rules alert-rules/ node.jsonl"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every line was a record (alerts or not: they are the output)",
      "1:some lines were skipped as malformed, or some records were not judged (dead letters,"
          + " each shown with its reason); the rest was run",
      "2:usage error, an unreadable file or rules, or no valid record at all"
    })
public final class DetectCommand implements Callable<Integer> {

  @Parameters(
      arity = "0..1",
      paramLabel = "FILE",
      description = "Records, one JSON object per line. Default: stdin.")
  Path file;

  @Option(
      names = "--rules",
      paramLabel = "DIR",
      description = "Alert rule directory (default: the bundled alert-rules/).")
  Path rulesDir;

  @Option(names = "--rates", description = "Also print the CounterRates the rate stage derives.")
  boolean printRates;

  @Option(
      names = "--no-flush",
      description =
          "At the end, advance stream time only by the 30 s an NCCL error waits for its node's"
              + " link state, so alerts keep FIRING without their RESOLVED.")
  boolean noFlush;

  @Spec CommandSpec spec;

  private static final int MALFORMED_SHOWN = 5;
  private static final int PROBLEM_CHARS = 300;

  /** Longer lines are skipped unread: no record is near this, binary input has no newlines. */
  static final int MAX_LINE_BYTES = 1 << 20;

  /** One input record, its topic, event time and line in the input. */
  private record Input(TopicSpec topic, String key, SpecificRecord value, long time, long line) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (rulesDir != null) {
      RulesDirectory.require(rulesDir);
    }
    FabricTopics topics = FabricTopics.defaults();
    Path scratch = Files.createTempDirectory("fabricpulse-detect");
    try {
      RuleSet rules;
      try {
        rules = BundledRules.load(rulesDir, scratch);
      } catch (RuleValidationException e) {
        e.problems().forEach(err::println);
        err.println(e.problems().size() + " problem(s) in the rules: nothing was run");
        return ExitCodes.USAGE;
      }
      Inputs inputs = read(topics, err);
      if (inputs.records().isEmpty() && inputs.malformed() > 0) {
        throw new CliFailure(
            ExitCodes.USAGE,
            "detect: "
                + inputs.name()
                + ": no valid record in "
                + inputs.malformed()
                + " line(s): expected JSON lines from 'parse' or 'collect --once'");
      }
      if (inputs.records().isEmpty()) {
        err.println("detect: " + inputs.name() + ": no records: nothing to run");
      }
      long deadLetters = run(topics, rules, inputs, scratch, out, err);
      return inputs.malformed() > 0 || deadLetters > 0 ? ExitCodes.PARTIAL : ExitCodes.OK;
    } finally {
      ScratchDirectory.delete(scratch);
    }
  }

  /** The records read, in event-time order, and how many lines were skipped. */
  private record Inputs(String name, List<Input> records, long malformed) {}

  private Inputs read(FabricTopics topics, PrintWriter err) throws IOException {
    Map<Class<?>, TopicSpec> byType = new LinkedHashMap<>();
    for (TopicSpec t : topics.raw()) {
      if (t.valueType() != NodeCounters.class) {
        byType.put(t.valueType(), t);
      }
    }
    // JSON lines carry the per-port views (what 'parse' prints); the rate stage reads them beside
    // the 0.2 node records.
    byType.put(PortCounters.class, topics.portCounters());
    byType.put(PfcPauseFrames.class, topics.pfc());
    byType.put(EcnMarks.class, topics.ecn());
    byType.put(CounterRates.class, topics.rates());
    // the fabric role's cabling: the topology join and the link capability check read it
    byType.put(FabricLink.class, topics.topology());
    List<Input> inputs = new ArrayList<>();
    long bad = 0;
    long skipped = 0;
    long badBytes = 0;
    long linesWithBadBytes = 0;
    String name = file != null ? file.toString() : "<stdin>";
    try (ByteLines lines = new ByteLines(open(), MAX_LINE_BYTES)) {
      byte[] bytes;
      while ((bytes = lines.next()) != null) {
        long lineNo = lines.lineNumber();
        if (bytes == ByteLines.TOO_LONG) {
          bad++;
          showMalformed(
              err, bad, name + ":" + lineNo + ": longer than " + MAX_LINE_BYTES + " bytes");
          continue;
        }
        LenientUtf8.Decoded decoded = LenientUtf8.decode(bytes);
        if (!decoded.clean()) {
          badBytes += decoded.badBytes();
          linesWithBadBytes++;
        }
        String line = decoded.text();
        if (line.isBlank()) {
          continue;
        }
        SpecificRecord record;
        try {
          record = JsonRecords.fromJson(line);
        } catch (IllegalArgumentException e) {
          bad++;
          showMalformed(err, bad, name + ":" + lineNo + ": " + e.getMessage());
          continue;
        }
        TopicSpec topic =
            record instanceof NodeCounters node
                ? topics.topicOf(node)
                : byType.get(record.getClass());
        if (topic == null) {
          skipped++; // a derived record (Alert, NcclTransport, ...): detect derives its own
          continue;
        }
        inputs.add(new Input(topic, key(record), record, time(record), lineNo));
      }
    }
    if (bad > MALFORMED_SHOWN) {
      err.println("  ... and " + (bad - MALFORMED_SHOWN) + " more");
    }
    if (bad > 0) {
      err.println("detect: " + name + ": " + bad + " malformed line(s) skipped");
    }
    if (badBytes > 0) {
      err.println(
          "detect: "
              + name
              + ": "
              + badBytes
              + " invalid UTF-8 byte(s) on "
              + linesWithBadBytes
              + " line(s) replaced by U+FFFD");
    }
    if (skipped > 0) {
      err.println("detect: " + skipped + " derived record(s) ignored (not raw input)");
    }
    // event time order; List.sort is stable, so equal times keep the file order
    inputs.sort(Comparator.comparingLong(Input::time));
    return new Inputs(name, inputs, bad);
  }

  /** The first few malformed lines, each shortened, so a garbage file cannot flood stderr. */
  private static void showMalformed(PrintWriter err, long count, String problem) {
    if (count <= MALFORMED_SHOWN) {
      err.println(
          problem.length() > PROBLEM_CHARS ? problem.substring(0, PROBLEM_CHARS) + "..." : problem);
    }
  }

  private InputStream open() throws IOException {
    if (file == null) {
      return System.in;
    }
    if (Files.isDirectory(file)) {
      throw new CliFailure(ExitCodes.USAGE, file + ": cannot read: Is a directory");
    }
    try {
      return Files.newInputStream(file);
    } catch (IOException e) {
      throw new CliFailure(ExitCodes.USAGE, file + ": cannot read: " + IoReason.of(e));
    }
  }

  /** Runs the pipeline over the records; returns how many went to the dead-letter topic. */
  private long run(
      FabricTopics topics,
      RuleSet rules,
      Inputs read,
      Path scratch,
      PrintWriter out,
      PrintWriter err)
      throws IOException {
    List<Input> inputs = read.records();
    String registry = "mock://detect-" + UUID.randomUUID();
    Properties props =
        StreamsSettings.offline(
            FabricTopology.APPLICATION_ID + "-detect",
            Files.createDirectories(scratch.resolve("state")));
    Topology topology = FabricTopology.build(topics, registry, rules, RateConfig.defaults(), props);
    DetectorSerdes serdes = DetectorSerdes.forRegistry(registry);
    long start = inputs.isEmpty() ? 0 : inputs.get(0).time();
    try (TopologyTestDriver driver =
        new TopologyTestDriver(topology, props, Instant.ofEpochMilli(start))) {
      Map<String, TestInputTopic<String, SpecificRecord>> in = new LinkedHashMap<>();
      List<TestOutputTopic<String, ? extends SpecificRecord>> outputs = new ArrayList<>();
      if (printRates) {
        outputs.add(output(driver, topics.rates(), serdes, NodeRates.class));
      }
      outputs.add(output(driver, topics.ncclTransport(), serdes, NcclTransport.class));
      TestOutputTopic<String, Alert> alerts = output(driver, topics.alerts(), serdes, Alert.class);
      DeadLetters deadLetters =
          new DeadLetters(
              output(driver, topics.deadLetters(), serdes, DeadLetter.class), read.name(), err);
      long last = start;
      for (Input input : inputs) {
        input(driver, in, input.topic(), input.value().getClass(), serdes)
            .pipeInput(input.key(), input.value(), input.time());
        last = Math.max(last, input.time());
        drain(outputs, alerts, out, err);
        deadLetters.drain(input.line());
      }
      if (!inputs.isEmpty()) {
        // a tombstone on fabric.raw.nccl moves stream time (every detector skips null values): by
        // the longest hysteresis and NCCL wait, so ended alerts resolve and come out; with
        // --no-flush only by the longest wait
        // of an NCCL alert (an error for its node's link state, a job's host alert for the other
        // host tasks), so held alerts come out and nothing more resolves
        Duration flush =
            noFlush
                ? NcclTransportDetector.LONGEST_WAIT
                : longestHysteresis(rules).plus(NcclTransportDetector.LONGEST_WAIT);
        long flushTo = last + flush.toMillis() + 1000;
        input(driver, in, topics.nccl(), NcclLog.class, serdes)
            .pipeInput("flush/flush", null, flushTo);
        drain(outputs, alerts, out, err);
        deadLetters.drain(0);
      }
      deadLetters.summary();
      out.flush();
      err.flush();
      return deadLetters.count;
    }
  }

  /**
   * The records the pipeline sent to fabric.dlq instead of judging them (a sample that cannot be
   * rated, a detector that failed on a record or in a punctuation): one stderr line each with the
   * input line being run when it came out and the reason, the first few only, then the count.
   */
  private static final class DeadLetters {
    private final TestOutputTopic<String, DeadLetter> topic;
    private final String name;
    private final PrintWriter err;
    private long count;

    DeadLetters(TestOutputTopic<String, DeadLetter> topic, String name, PrintWriter err) {
      this.topic = topic;
      this.name = name;
      this.err = err;
    }

    /**
     * @param line the input line just run, 0 for the end-of-input flush
     */
    void drain(long line) {
      while (!topic.isEmpty()) {
        DeadLetter letter = topic.readValue();
        count++;
        showMalformed(
            err,
            count,
            name
                + (line > 0 ? ":" + line : " (at the end of the input)")
                + ": dead letter: "
                + letter.getReason());
      }
    }

    void summary() {
      if (count > MALFORMED_SHOWN) {
        err.println("  ... and " + (count - MALFORMED_SHOWN) + " more");
      }
      if (count > 0) {
        err.println(
            "detect: "
                + name
                + ": "
                + count
                + " record(s) not judged: sent to the dead-letter topic with the reason");
      }
    }
  }

  private static Duration longestHysteresis(RuleSet rules) {
    return rules.all().stream()
        .map(Rule::hysteresis)
        .max(Comparator.naturalOrder())
        .orElse(Rule.DEFAULT_HYSTERESIS);
  }

  private static void drain(
      List<TestOutputTopic<String, ? extends SpecificRecord>> outputs,
      TestOutputTopic<String, Alert> alerts,
      PrintWriter out,
      PrintWriter err) {
    for (TestOutputTopic<String, ? extends SpecificRecord> topic : outputs) {
      while (!topic.isEmpty()) {
        SpecificRecord value = topic.readValue();
        if (value instanceof NodeRates node) {
          // one line per port, as 'parse' prints raw samples
          for (CounterRates port : NodeRecords.views(node)) {
            out.println(JsonRecords.toJson(port));
          }
        } else {
          out.println(JsonRecords.toJson(value));
        }
      }
    }
    while (!alerts.isEmpty()) {
      Alert a = alerts.readValue();
      out.println(JsonRecords.toJson(a));
      err.println(humanLine(a));
    }
  }

  /** {@code ALERT FIRING CRITICAL NET_FALLBACK_SOCKET gpu017 job 4711 at ...: summary}. */
  static String humanLine(Alert a) {
    return String.format(
        "ALERT %s %s %s %s at %s: %s",
        a.getState(),
        a.getSeverity(),
        a.getKind(),
        AlertText.subject(a),
        AlertText.at(a),
        a.getSummary());
  }

  @SuppressWarnings("unchecked")
  private static TestInputTopic<String, SpecificRecord> input(
      TopologyTestDriver driver,
      Map<String, TestInputTopic<String, SpecificRecord>> inputs,
      TopicSpec topic,
      Class<? extends SpecificRecord> type,
      DetectorSerdes serdes) {
    return inputs.computeIfAbsent(
        topic.name() + "|" + type.getName(),
        name ->
            driver.createInputTopic(
                topic.name(),
                new StringSerializer(),
                (org.apache.kafka.common.serialization.Serializer<SpecificRecord>)
                    serdes.value(type).serializer()));
  }

  private static <T extends SpecificRecord> TestOutputTopic<String, T> output(
      TopologyTestDriver driver, TopicSpec topic, DetectorSerdes serdes, Class<T> type) {
    return driver.createOutputTopic(
        topic.name(), new StringDeserializer(), serdes.value(type).deserializer());
  }

  private static String key(SpecificRecord record) {
    return RecordKeys.keyOf(record);
  }

  private static long time(SpecificRecord record) {
    Object time = field(record, "time");
    if (time instanceof Instant t) {
      return t.toEpochMilli();
    }
    if (time instanceof Long l) {
      return l;
    }
    throw new IllegalArgumentException(record.getSchema().getName() + " has no time");
  }

  private static Object field(SpecificRecord record, String name) {
    var field = record.getSchema().getField(name);
    return field == null ? null : record.get(field.pos());
  }
}
