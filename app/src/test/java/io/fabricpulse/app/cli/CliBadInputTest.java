package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.testing.Samples;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line tried as a new user would at 3 a.m. (issue 14): every command fed missing,
 * wrong, binary and garbled input. Each case asserts the one line that names the thing and the
 * reason, no stack trace, the documented exit code ({@link ExitCodes}: 0 ok, 1 findings or partial
 * input, 2 usage or unreadable input) and output bounded in size. All inputs are synthetic and
 * written here, except the real sysfs capture of the collect cases.
 */
class CliBadInputTest {
  /** A qualified exception name such as {@code java.nio.file.NoSuchFileException}. */
  private static final Pattern EXCEPTION_NAME =
      Pattern.compile("\\b[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+\\.[A-Z]\\w*(Exception|Error)\\b");

  @TempDir Path tmp;

  /** Asserts the exit code, no stack trace, at most {@code maxLines} on stderr. */
  private static void assertFailure(CliRun run, int exit, int maxLines, String... expected) {
    String err = run.stderr();
    assertEquals(exit, run.exit(), "exit code; stderr:\n" + err);
    assertFalse(err.contains("\tat "), "a stack trace:\n" + err);
    assertFalse(EXCEPTION_NAME.matcher(err).find(), "an exception class name:\n" + err);
    long lines = err.lines().count();
    assertTrue(lines >= 1 && lines <= maxLines, lines + " stderr lines:\n" + err);
    assertTrue(err.length() < 4000, err.length() + " stderr chars");
    for (String text : expected) {
      assertTrue(err.contains(text), "expected '" + text + "' in:\n" + err);
    }
  }

  /** The first line of stderr: the message that must name the thing and the reason. */
  private static String firstLine(CliRun run) {
    return run.stderr().lines().findFirst().orElse("");
  }

  /** Runs with {@code setup} applied to the command tree first (to inject env or defaults). */
  private static CliRun run(Consumer<CommandLine> setup, String... args) {
    CommandLine cli = FabricPulse.commandLine();
    setup.accept(cli);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }

  /** Runs with {@code stdin} as standard input. */
  private static CliRun withStdin(byte[] stdin, String... args) {
    java.io.InputStream saved = System.in;
    try {
      System.setIn(new java.io.ByteArrayInputStream(stdin));
      return CliRun.of(args);
    } finally {
      System.setIn(saved);
    }
  }

  private static byte[] binary(int size) {
    byte[] bytes = new byte[size];
    new Random(14).nextBytes(bytes);
    return bytes;
  }

  /** One valid raw record as detect reads it: the SmSweep of a synthetic sminfo answer. */
  private Path oneValidRecord() throws Exception {
    Path capture = tmp.resolve("sminfo-master-synthetic.txt");
    Files.writeString(
        capture,
        "sminfo: sm lid 1 sm guid 0x2c90000000011, activity count 186 priority 0 state 3"
            + " SMINFO_MASTER\n");
    CliRun parse =
        CliRun.of(
            "parse",
            "--format",
            "sminfo",
            "--time",
            "2025-03-01T03:00:00Z",
            "--node",
            "sm01",
            capture.toString());
    assertEquals(0, parse.exit(), parse.stderr());
    Path jsonl = tmp.resolve("one.jsonl");
    Files.writeString(jsonl, parse.stdout());
    return jsonl;
  }

  @Nested
  class Detect {
    @Test
    void aMissingFile() {
      CliRun run = CliRun.of("detect", tmp.resolve("nope.jsonl").toString());
      assertFailure(run, 2, 1, "nope.jsonl: cannot read: No such file or directory");
    }

    @Test
    void aDirectory() {
      CliRun run = CliRun.of("detect", tmp.toString());
      assertFailure(run, 2, 1, tmp + ": cannot read: Is a directory");
    }

    @Test
    void binaryInputIsNotRecords() throws Exception {
      Path file = tmp.resolve("core.bin");
      Files.write(file, binary(3 << 20)); // 3 MiB, a few lines longer than the line bound
      CliRun run = CliRun.of("detect", file.toString());
      assertFailure(run, 2, 10, "core.bin: no valid record in");
      assertTrue(run.stdout().isEmpty(), run.stdout());
    }

    @Test
    void binaryInputOnStdin() {
      CliRun run = withStdin(binary(200_000), "detect");
      assertFailure(run, 2, 10, "<stdin>: no valid record in");
    }

    @Test
    void everyLineMalformedIsBoundedAndExitsTwo() throws Exception {
      Path file = tmp.resolve("garbage.jsonl");
      Files.writeString(file, "this is not json\n".repeat(10_000));
      CliRun run = CliRun.of("detect", file.toString());
      assertFailure(
          run,
          2,
          8,
          "garbage.jsonl:1: not JSON",
          "... and 9995 more",
          "detect: " + file + ": no valid record in 10000 line(s)");
      assertEquals(5, run.stderr().lines().filter(l -> l.contains(": not JSON")).count());
    }

    @Test
    void someLinesMalformedIsPartialInputExitOne() throws Exception {
      Path file = tmp.resolve("mixed.jsonl");
      Files.writeString(
          file, Files.readString(oneValidRecord()) + "{\"type\":\"Nope\"}\nnot json\n");
      CliRun run = CliRun.of("detect", file.toString());
      assertFailure(
          run, 1, 5, "mixed.jsonl:2: type: unknown record type", "2 malformed line(s) skipped");
    }

    /**
     * A record that is valid JSON and Avro but cannot be rated (an ethtool sample whose netdev is
     * empty) goes to the rate stage's dead-letter topic. detect used to drop it silently and exit
     * 0; it now shows the input line and the reason, counts it, and exits 1 (partial input).
     */
    @Test
    void aRecordSentToTheDeadLetterTopicIsShownAndIsPartialInput() throws Exception {
      Path capture = tmp.resolve("ethtool-pause-synthetic.txt");
      Files.writeString(
          capture, "NIC statistics:\n     rx_pause_ctrl_phy: 5\n     tx_pause_ctrl_phy: 7\n");
      CliRun noNetdev =
          CliRun.of(
              "parse",
              "--format",
              "ethtool",
              "--driver",
              "mlx5_core",
              "--netdev=",
              "--time",
              "2025-03-01T03:00:10Z",
              capture.toString());
      assertEquals(0, noNetdev.exit(), noNetdev.stderr());
      Path file = tmp.resolve("with-dead-letter.jsonl");
      Files.writeString(file, Files.readString(oneValidRecord()) + noNetdev.stdout());

      CliRun run = CliRun.of("detect", file.toString());

      assertFailure(
          run,
          1,
          2,
          file + ":2: dead letter: invalid sample: sample has an empty netdev",
          "detect: " + file + ": 1 record(s) not judged: sent to the dead-letter topic");
    }

    @Test
    void anInvalidUtf8ByteInsideARecordIsReplacedAndCounted() throws Exception {
      byte[] valid = Files.readAllBytes(oneValidRecord());
      String text = new String(valid, StandardCharsets.UTF_8);
      int at = text.indexOf("SMINFO_MASTER");
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.write(valid, 0, at);
      bytes.write(0xC3); // a lone lead byte: invalid UTF-8
      bytes.write(valid, at, valid.length - at);
      Path file = tmp.resolve("latin1.jsonl");
      Files.write(file, bytes.toByteArray());
      CliRun run = CliRun.of("detect", file.toString());
      assertEquals(0, run.exit(), run.stderr());
      assertTrue(
          run.stderr().contains("1 invalid UTF-8 byte(s) on 1 line(s) replaced by U+FFFD"),
          run.stderr());
    }

    @Test
    void emptyInputSaysSo() throws Exception {
      Path file = Files.createFile(tmp.resolve("empty.jsonl"));
      CliRun run = CliRun.of("detect", file.toString());
      assertEquals(0, run.exit(), run.stderr());
      assertTrue(run.stderr().contains("empty.jsonl: no records: nothing to run"), run.stderr());
    }

    @Test
    void aMissingRulesDirectory() throws Exception {
      CliRun run =
          CliRun.of(
              "detect", "--rules", tmp.resolve("rules").toString(), oneValidRecord().toString());
      assertFailure(run, 2, 1, "rules: cannot read rules: No such file or directory");
    }

    @Test
    void anEmptyRulesDirectory() throws Exception {
      Path rules = Files.createDirectories(tmp.resolve("rules"));
      CliRun run = CliRun.of("detect", "--rules", rules.toString(), oneValidRecord().toString());
      assertFailure(run, 2, 1, "rules: no rule files (*.yaml, *.yml)");
    }
  }

  @Nested
  class Parse {
    @Test
    void aMissingFileGivesTheReason() {
      CliRun run = CliRun.of("parse", "--format", "kmsg", tmp.resolve("dmesg.txt").toString());
      assertFailure(run, 2, 1, "dmesg.txt: cannot read: No such file or directory");
    }

    @Test
    void theWrongFormatIsNotSuccess() throws Exception {
      Path file = tmp.resolve("nccl-log-synthetic.txt");
      Files.writeString(
          file,
          "gpu017:4711:4711 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.17<0>\n".repeat(20_000));
      CliRun run = CliRun.of("parse", "--format", "perfquery", file.toString());
      assertFailure(
          run,
          2,
          9,
          "0 records, 20000 malformed",
          "... and 19995 more",
          "is --format perfquery right?");
      assertTrue(run.stdout().isEmpty());
    }

    @Test
    void someMalformedLinesArePartialInput() throws Exception {
      Path file = tmp.resolve("ethtool-synthetic.txt");
      Files.writeString(
          file,
          "NIC statistics:\n     rx_pause_ctrl_phy: 5\n     tx_pause_ctrl_phy: 7\n  garbled\n");
      CliRun run =
          CliRun.of("parse", "--format", "ethtool", "--driver", "mlx5_core", file.toString());
      assertFailure(run, 1, 4, "1 records, 1 malformed", "ethtool-synthetic.txt:4:");
    }

    @Test
    void oneInvalidUtf8ByteCostsOneCharacterNotTheFile() throws Exception {
      // a dmesg line with a process name cut inside a multi-byte character (synthetic)
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.write(
          "[Wed Jul 31 23:14:18 2024] usb 1-1: new device\n".getBytes(StandardCharsets.UTF_8));
      bytes.write(
          "[Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1045242, name=pt_"
              .getBytes(StandardCharsets.UTF_8));
      bytes.write(new byte[] {(byte) 0xE2, (byte) 0x82}); // truncated 3-byte sequence
      bytes.write(", Ch 00000008\n".getBytes(StandardCharsets.UTF_8));
      Path file = tmp.resolve("dmesg-truncated-utf8-synthetic.txt");
      Files.write(file, bytes.toByteArray());

      CliRun run = CliRun.of("parse", "--format", "kmsg", file.toString());

      assertEquals(0, run.exit(), run.stderr());
      assertEquals(43, run.records(GpuXid.class).get(0).getXid());
      assertTrue(
          run.stderr()
                  .contains(
                      "1 invalid UTF-8 byte(s) on 1 line(s) (first at line 2) replaced by U+FFFD")
              || run.stderr()
                  .contains(
                      "2 invalid UTF-8 byte(s) on 1 line(s) (first at line 2) replaced by U+FFFD"),
          run.stderr());
    }

    @Test
    void anEmptySminfoCaptureInventsNoRecord() throws Exception {
      Path file = Files.createFile(tmp.resolve("sminfo-empty-synthetic.txt"));
      CliRun run = CliRun.of("parse", "--format", "sminfo", file.toString());
      assertFailure(run, 2, 3, "0 records, 1 malformed", "empty sminfo capture");
      assertTrue(run.stdout().isEmpty(), run.stdout());
    }

    @Test
    void aFailedSminfoCaptureIsStillItsSignal() throws Exception {
      Path file = tmp.resolve("sminfo-iberror-synthetic.txt");
      Files.writeString(file, "sminfo: iberror: failed: query\n");
      CliRun run = CliRun.of("parse", "--format", "sminfo", file.toString());
      assertEquals(0, run.exit(), run.stderr());
      assertEquals("SMINFO_FAILED", run.records(SmSweep.class).get(0).getEvent().name());
    }
  }

  @Nested
  class Collect {
    private CliRun collect(Map<String, String> env, String... args) {
      return run(
          cli -> {
            CollectCommand collect = cli.getSubcommands().get("collect").getCommand();
            collect.environment = env;
            collect.defaultConfig = tmp.resolve("no-default-config.yaml");
          },
          args);
    }

    private String[] once(String... more) {
      String[] base = {
        "collect",
        "--once",
        "--set",
        "proc_root=" + tmp,
        "--set",
        "sources.ethtool.enabled=false",
        "--set",
        "sources.gpu.enabled=false",
        "--set",
        "sources.kmsg.enabled=false"
      };
      String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
      System.arraycopy(more, 0, all, base.length, more.length);
      return all;
    }

    @Test
    void aBadGlobInTheFileNamesFileLineAndKey() throws Exception {
      Path config = tmp.resolve("collector.yaml");
      Files.writeString(
          config,
          String.join(
              "\n",
              "cluster: lab",
              "sources:",
              "  nccl:",
              "    enabled: true",
              "    globs: [\"/var/log/nccl/[.log\"]",
              ""));
      CliRun run = collect(Map.of(), "collect", "--once", "--config", config.toString());
      assertFailure(
          run, 2, 1, config + ":5: sources.nccl.globs: '/var/log/nccl/[.log' is not a glob");
    }

    @Test
    void aListValueInSetIsReadLikeTheFileAndABadGlobInItIsOneLine() {
      CliRun good =
          collect(
              Map.of(),
              once(
                  "--set", "sources.sysfs.enabled=false",
                  "--set", "sources.nccl.enabled=true",
                  "--set", "sources.nccl.globs=[" + tmp + "/nccl/*.log, " + tmp + "/x/*.out]"));
      assertEquals(0, good.exit(), good.stderr());
      assertTrue(good.stderr().contains("nccl: 0 records"), good.stderr());

      CliRun bad =
          collect(
              Map.of(),
              once("--set", "sources.nccl.enabled=true", "--set", "sources.nccl.globs=[/x/[a]"));
      assertFailure(bad, 2, 1, "cli: sources.nccl.globs: '/x/[a' is not a glob");
    }

    @Test
    void aYamlSyntaxErrorHasFileAndLine() throws Exception {
      Path config = tmp.resolve("collector.yaml");
      Files.writeString(config, "cluster: lab\nsources:\n  sysfs: {enabled: true\nnode: x\n");
      CliRun run = collect(Map.of(), "collect", "--once", "--config", config.toString());
      assertFailure(run, 2, 1, "not valid YAML");
      assertTrue(
          Pattern.compile(Pattern.quote(config.toString()) + ":[34]: not valid YAML: ")
              .matcher(firstLine(run))
              .find(),
          run.stderr());
    }

    @Test
    void aMissingConfigFileGivesTheReason() {
      CliRun run =
          collect(Map.of(), "collect", "--once", "--config", tmp.resolve("nope.yaml").toString());
      assertFailure(run, 2, 1, "nope.yaml: cannot read: No such file or directory");
    }

    @Test
    void anEnvironmentTypoIsRefusedLikeTheSameTypoInSet() {
      CliRun env = collect(Map.of("FABRICPULSE_SOURCES_SYSFS_INTERVALL", "5s"), once());
      assertFailure(env, 2, 1, "env FABRICPULSE_SOURCES_SYSFS_INTERVALL: unknown option");

      CliRun set = collect(Map.of(), once("--set", "sources.sysfs.intervall=5s"));
      assertFailure(set, 2, 1, "cli: sources.sysfs.intervall: unknown option");
    }

    @Test
    void aSysfsRootWithoutDevicesSaysSoAndIsNotSuccess() {
      CliRun run = collect(Map.of(), once("--sysfs-root", "/nonexistent"));
      assertFailure(run, 2, 1, "sysfs: 0 records: no /nonexistent/class/infiniband");
    }

    @Test
    void aFailedSourceBesideAGoodOneIsPartialExitOne() throws Exception {
      Path root = Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp.resolve("sysfs"));
      CliRun run =
          collect(
              Map.of(),
              once(
                  "--sysfs-root",
                  root.toString(),
                  "--set",
                  "sources.gpu.enabled=true",
                  "--set",
                  "sources.gpu.command=" + tmp.resolve("no-such-nvidia-smi")));
      assertFailure(run, 1, 2, "sysfs: 1 records", "gpu: 0 records, ", "no-such-nvidia-smi");
      assertEquals(1, run.ports(PortCounters.class).size());
    }

    @Test
    void theDefaultConfigFileIsReadWhenPresent() throws Exception {
      Path root = Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp.resolve("sysfs"));
      Path etc = tmp.resolve("etc-collector.yaml");
      Files.writeString(etc, "cluster: from-etc\nsources:\n  sysfs:\n    root: " + root + "\n");
      CliRun run =
          run(
              cli -> {
                CollectCommand collect = cli.getSubcommands().get("collect").getCommand();
                collect.environment = Map.of();
                collect.defaultConfig = etc;
              },
              once());
      assertEquals(0, run.exit(), run.stderr());
      assertEquals("from-etc", run.ports(PortCounters.class).get(0).getCluster());
    }
  }

  @Nested
  class StreamsAndSink {
    @Test
    void streamsWithoutKafkaIsAUsageError() {
      assertFailure(CliRun.of("streams"), 2, 1, "--bootstrap-servers: required");
    }

    @Test
    void streamsWithoutARegistryIsAUsageError() {
      CliRun run = CliRun.of("streams", "--bootstrap-servers", "127.0.0.1:9");
      assertFailure(run, 2, 1, "--schema-registry-url: required");
    }

    @Test
    void anUnreadableKafkaConfig() {
      CliRun run =
          CliRun.of("streams", "--kafka-config", tmp.resolve("kafka.properties").toString());
      assertFailure(run, 2, 1, "kafka.properties: cannot read: No such file or directory");
    }

    @Test
    void streamsWithAMissingRulesDirectoryStopsBeforeKafka() {
      CliRun run =
          CliRun.of(
              "streams",
              "--bootstrap-servers",
              "127.0.0.1:9",
              "--schema-registry-url",
              "mock://x",
              "--state-dir",
              tmp.resolve("state").toString(),
              "--rules",
              tmp.resolve("rules").toString());
      assertFailure(run, 2, 1, "rules: cannot read rules: No such file or directory");
    }

    @Test
    void sinkWithoutTheStoreUrl() {
      CliRun run = CliRun.of("sink", "influx");
      assertFailure(
          run,
          2,
          3,
          "Missing required option: '--influx-url=URL'",
          "Try 'fabricpulse sink influx --help'");
    }

    @Test
    void sinkWithABadUrl() {
      for (String url : new String[] {"localhost:8086", "ht tp://x"}) {
        CliRun run =
            CliRun.of(
                "sink",
                "influx",
                "--influx-url",
                url,
                "--bootstrap-servers",
                "127.0.0.1:9",
                "--schema-registry-url",
                "mock://x");
        assertFailure(run, 2, 3, "bad store setting: ");
        assertTrue(firstLine(run).contains(url), run.stderr());
      }
    }

    @Test
    void sinkWithoutKafka() {
      CliRun run = CliRun.of("sink", "influx", "--influx-url", "http://127.0.0.1:9");
      assertFailure(run, 2, 1, "--bootstrap-servers: required");
    }
  }

  @Nested
  class Rules {
    @Test
    void anEmptyDirectoryIsNotAValidRuleSet() throws Exception {
      Path dir = Files.createDirectories(tmp.resolve("rules"));
      assertFailure(CliRun.of("rules", "check", dir.toString()), 2, 1, "no rule files");
    }

    @Test
    void aMissingDirectory() {
      CliRun run = CliRun.of("rules", "check", tmp.resolve("nope").toString());
      assertFailure(run, 2, 1, "nope: cannot read rules: No such file or directory");
    }

    @Test
    void aFileInsteadOfADirectory() throws Exception {
      Path file = Files.writeString(tmp.resolve("pfc.yaml"), "rules: []\n");
      assertFailure(CliRun.of("rules", "check", file.toString()), 2, 1, "Not a directory");
    }
  }

  @Nested
  class Usage {
    @Test
    void aMistypedCommandSuggestsTheRightOne() {
      CliRun run = CliRun.of("detcet");
      assertFailure(run, 2, 4, "Unmatched argument at index 0: 'detcet'", "detect");
    }

    @Test
    void anUnknownOption() {
      CliRun run = CliRun.of("parse", "--format", "kmsg", "--zoen", "UTC", "x");
      assertFailure(run, 2, 4, "Unknown option: '--zoen'", "Try 'fabricpulse parse --help'");
    }

    @Test
    void benchRefusesANegativeFleet() {
      CliRun run = CliRun.of("bench", "--nodes", "-1");
      assertFailure(run, 2, 2, "--nodes must be at least 1");
    }

    @Test
    void debugShowsTheStackTraceOfAnUnexpectedFailure() {
      // Kafka refuses a bootstrap address it cannot parse when the consumer is built
      String[] args = {
        "sink",
        "influx",
        "--influx-url",
        "http://127.0.0.1:9",
        "--bootstrap-servers",
        "not a host",
        "--schema-registry-url",
        "mock://x"
      };
      CliRun plain = CliRun.of(args);
      assertFailure(plain, 1, 1, "fabricpulse sink influx: failed: ", "--debug");

      String[] debug = java.util.Arrays.copyOf(args, args.length + 1);
      debug[args.length] = "--debug";
      CliRun traced = CliRun.of(debug);
      assertEquals(1, traced.exit());
      assertTrue(traced.stderr().contains("\tat "), traced.stderr());
    }
  }
}
