package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.app.demo.DemoBridges;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 12, fault 8, as one suite: every configuration the application reads at start (the node
 * agent's collector.yaml and its {@code FABRICPULSE_*} variables, the bridges' bridge.yaml and
 * templates, the alert rule files) refused for invalid YAML, an unknown key, a wrong type and a
 * missing secret, each with one line {@code file:line: key: problem} on stderr, exit code 2 ({@link
 * ExitCodes#USAGE}, the documented "bad configuration"), no stack trace, before anything is started
 * or connected (the Kafka address given is a closed port).
 */
class BadConfigurationTest {
  private static final String NO_KAFKA = "127.0.0.1:9";
  private static final Pattern EXCEPTION_NAME =
      Pattern.compile("\\b[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+\\.[A-Z]\\w*(Exception|Error)\\b");

  @TempDir Path tmp;

  /** Exit 2 and exactly one stderr line, {@code file:line: key: problem}. */
  private static void refused(CliRun run, Path file, int line, String key, String problem) {
    refused(run, Pattern.quote(file + ":" + line + ": " + key + ": ") + problem);
  }

  private static void refused(CliRun run, String lineRegex) {
    String err = run.stderr();
    assertEquals(ExitCodes.USAGE, run.exit(), "exit code; stderr:\n" + err);
    assertFalse(err.contains("\tat "), "a stack trace:\n" + err);
    assertFalse(EXCEPTION_NAME.matcher(err).find(), "an exception class name:\n" + err);
    List<String> lines = err.lines().toList();
    assertEquals(1, lines.size(), "one line on stderr, got:\n" + err);
    assertTrue(
        Pattern.compile(lineRegex).matcher(lines.get(0)).matches(),
        "expected " + lineRegex + "\n     got " + lines.get(0));
  }

  private Path write(String name, String... lines) throws Exception {
    Path file = tmp.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }

  private static CliRun run(java.util.function.Consumer<CommandLine> setup, String... args) {
    CommandLine cli = FabricPulse.commandLine();
    setup.accept(cli);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }

  @Nested
  class CollectorYaml {
    private CliRun collect(Map<String, String> env, Path config) {
      return run(
          cli -> {
            CollectCommand collect = cli.getSubcommands().get("collect").getCommand();
            collect.environment = env;
            collect.defaultConfig = tmp.resolve("no-default-config.yaml");
          },
          "collect",
          "--once",
          "--config",
          config.toString());
    }

    private Path good() throws Exception {
      return write(
          "collector.yaml",
          "cluster: lab",
          "proc_root: " + tmp,
          "sources:",
          "  sysfs: {enabled: false}",
          "  ethtool: {enabled: false}",
          "  gpu: {enabled: false}",
          "  kmsg: {enabled: false}");
    }

    @Test
    void theGoodFileStarts() throws Exception {
      CliRun run = collect(Map.of(), good());
      assertEquals(ExitCodes.OK, run.exit(), run.stderr());
    }

    @Test
    void invalidYaml() throws Exception {
      Path config = write("collector.yaml", "cluster: lab", "sources:", "  sysfs: {enabled: true");
      refused(collect(Map.of(), config), Pattern.quote(config + ":") + "[34]: not valid YAML: .+");
    }

    @Test
    void anUnknownKey() throws Exception {
      Path config =
          write("collector.yaml", "cluster: lab", "sources:", "  sysfs:", "    intervall: 5s");
      refused(collect(Map.of(), config), config, 4, "sources.sysfs.intervall", "unknown option.*");
    }

    @Test
    void aWrongType() throws Exception {
      Path config = write("collector.yaml", "cluster: lab", "buffer:", "  records: lots");
      refused(collect(Map.of(), config), config, 3, "buffer.records", ".*lots.*");
    }

    @Test
    void aWrongDuration() throws Exception {
      Path config =
          write("collector.yaml", "cluster: lab", "sources:", "  sysfs:", "    interval: fast");
      refused(collect(Map.of(), config), config, 4, "sources.sysfs.interval", ".*fast.*");
    }

    @Test
    void anUnknownEnvironmentVariable() throws Exception {
      refused(
          collect(Map.of("FABRICPULSE_SOURCES_SYSFS_INTERVALL", "5s"), good()),
          Pattern.quote("env FABRICPULSE_SOURCES_SYSFS_INTERVALL: unknown option") + ".*");
    }

    @Test
    void aWrongTypeInTheEnvironment() throws Exception {
      refused(
          collect(Map.of("FABRICPULSE_BUFFER_RECORDS", "lots"), good()),
          Pattern.quote("env FABRICPULSE_BUFFER_RECORDS: buffer.records: ") + ".*lots.*");
    }

    @Test
    void theVariablesOfOtherCommandsAreNotTypos() throws Exception {
      // The demo reads its robots' secrets from FABRICPULSE_*: a shell that exported them for the
      // demo must still run the agent.
      Map<String, String> env = new HashMap<>();
      for (String name : DemoBridges.ENVIRONMENT) {
        env.put(name, "x");
      }
      env.put(io.fabricpulse.app.interactive.QueryApi.TOKEN_VARIABLE, "x");
      CliRun run = collect(env, good());
      assertEquals(ExitCodes.OK, run.exit(), run.stderr());
    }
  }

  @Nested
  class BridgeYaml {
    private CliRun bridge(Path config) {
      return CliRun.of(
          "bridge",
          "wecom",
          "--config",
          config.toString(),
          "--bootstrap-servers",
          NO_KAFKA,
          "--schema-registry-url",
          "mock://bad-config");
    }

    @Test
    void invalidYaml() throws Exception {
      Path config = write("bridge.yaml", "language: en", "robots:", "  - {name: a, type: wecom");
      refused(bridge(config), Pattern.quote(config + ":") + "[34]: not valid YAML: .+");
    }

    @Test
    void anUnknownKey() throws Exception {
      Path config =
          write(
              "bridge.yaml",
              "robots:",
              "  - name: oncall",
              "    type: wecom",
              "    key_env: FABRICPULSE_TEST_WECOM_KEY",
              "    colour: red",
              "    routes: [{}]");
      refused(bridge(config), config, 5, "robots[0].colour", ".*unknown.*");
    }

    @Test
    void aWrongType() throws Exception {
      Path config =
          write(
              "bridge.yaml",
              "robots:",
              "  - name: oncall",
              "    type: wecom",
              "    key_env: FABRICPULSE_TEST_WECOM_KEY",
              "    messages_per_minute: many",
              "    routes: [{}]");
      refused(bridge(config), config, 5, "robots[0].messages_per_minute", ".*many.*");
    }

    @Test
    void aMissingSecret() throws Exception {
      String unset = "FABRICPULSE_TEST_UNSET_" + Long.toHexString(System.nanoTime());
      Path config =
          write(
              "bridge.yaml",
              "robots:",
              "  - name: oncall",
              "    type: wecom",
              "    key_env: " + unset,
              "    routes: [{}]");
      refused(bridge(config), config, 4, "robots[0].key_env", ".*" + unset + ".*not set.*");
    }

    @Test
    void anUnknownTemplatePlaceholder() throws Exception {
      write("templates.yaml", "firing:", "  - \"{titel}\"");
      Path config =
          write(
              "bridge.yaml",
              "templates: templates.yaml",
              "robots:",
              "  - name: oncall",
              "    type: wecom",
              "    key_env: FABRICPULSE_TEST_WECOM_KEY",
              "    routes: [{}]");
      refused(
          bridge(config),
          Pattern.quote(tmp.resolve("templates.yaml") + ":2: firing[0]: ")
              + "unknown placeholder \\{titel\\}.*");
    }
  }

  @Nested
  class StatusPage {
    private CliRun streams(String... status) {
      String[] base = {
        "streams",
        "--bootstrap-servers",
        NO_KAFKA,
        "--schema-registry-url",
        "mock://bad-config",
        "--state-dir",
        tmp.resolve("state").toString(),
        "--status-port",
        "0"
      };
      String[] all = java.util.Arrays.copyOf(base, base.length + status.length);
      System.arraycopy(status, 0, all, base.length, status.length);
      return CliRun.of(all);
    }

    @Test
    void aNetworkAddressWithoutATokenIsRefused() {
      refused(
          // a documentation address (RFC 5737), never this machine's: were the check to let it
          // through, nothing could listen on it, let alone on every interface
          streams("--status-bind", "192.0.2.1"),
          Pattern.quote("--status-bind 192.0.2.1: not a loopback address, so it needs")
              + " --status-token-file.*");
    }

    @Test
    void aMissingOrEmptyTokenFileIsRefused() throws Exception {
      Path missing = tmp.resolve("no-token");
      refused(
          streams("--status-token-file", missing.toString()),
          Pattern.quote("--status-token-file " + missing + ": cannot read: ") + ".+");
      Path empty = write("empty-token", "");
      refused(
          streams("--status-token-file", empty.toString()),
          Pattern.quote("--status-token-file " + empty + ": cannot read: ") + ".*holds no token");
    }
  }

  @Nested
  class RuleFiles {
    private CliRun streams(Path dir) {
      return CliRun.of(
          "streams",
          "--bootstrap-servers",
          NO_KAFKA,
          "--schema-registry-url",
          "mock://bad-config",
          "--state-dir",
          tmp.resolve("state").toString(),
          "--rules",
          dir.toString());
    }

    private Path rule(String... thresholdsAndMore) throws Exception {
      String[] head = {
        "rules:",
        "  - id: storm",
        "    detector: pause_storm",
        "    severity: CRITICAL",
        "    hysteresis: 60s"
      };
      String[] all = java.util.Arrays.copyOf(head, head.length + thresholdsAndMore.length);
      System.arraycopy(thresholdsAndMore, 0, all, head.length, thresholdsAndMore.length);
      return write("rules/pfc.yaml", all);
    }

    @Test
    void invalidYaml() throws Exception {
      Path file = write("rules/pfc.yaml", "rules:", "  - id: storm", "    detector: [pause_storm");
      refused(streams(file.getParent()), Pattern.quote(file + ":") + "[34]: not valid YAML: .+");
    }

    @Test
    void anUnknownKey() throws Exception {
      Path file = rule("    severty: WARNING");
      refused(streams(file.getParent()), file, 6, "severty", ".*");
    }

    @Test
    void aWrongType() throws Exception {
      Path file = rule("    thresholds:", "      pause_ratio: high");
      refused(streams(file.getParent()), file, 7, "thresholds.pause_ratio", ".*high.*");
    }
  }
}
