package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.collectors.agent.CollectorConfig;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * The help, version, completion and man pages of every command (issue 14): summaries that are whole
 * sentences, no token broken across lines, an example and the exit codes on every page.
 */
class CliHelpTest {

  /** Every command of the tree, by its full name ("fabricpulse rules check"). */
  static Stream<String> commands() {
    List<String> names = new ArrayList<>();
    collect(FabricPulse.commandLine(), names);
    return names.stream();
  }

  private static void collect(CommandLine cli, List<String> names) {
    names.add(cli.getCommandSpec().qualifiedName());
    cli.getSubcommands().values().forEach(sub -> collect(sub, names));
  }

  private static CommandLine find(String qualifiedName) {
    CommandLine cli = FabricPulse.commandLine();
    List<String> path = List.of(qualifiedName.split(" "));
    for (String name : path.subList(1, path.size())) {
      cli = cli.getSubcommands().get(name);
    }
    return cli;
  }

  private static String usage(CommandLine cli) {
    return cli.getUsageMessage(CommandLine.Help.Ansi.OFF);
  }

  /** The text the command's author wrote: description, footer and every option's description. */
  private static List<String> authoredLines(CommandSpec spec) {
    List<String> lines = new ArrayList<>();
    lines.addAll(List.of(spec.usageMessage().description()));
    lines.addAll(List.of(spec.usageMessage().footer()));
    lines.addAll(spec.usageMessage().exitCodeList().values());
    for (ArgSpec arg : spec.args()) {
      lines.addAll(List.of(arg.description()));
    }
    return lines;
  }

  @ParameterizedTest
  @MethodSource("commands")
  void theSummaryIsOneWholeSentence(String name) {
    CommandSpec spec = find(name).getCommandSpec();
    String[] description = spec.usageMessage().description();
    assertTrue(description.length > 0, name + " has no description");
    String summary = description[0];
    assertTrue(summary.endsWith("."), name + ": the summary is not a sentence: " + summary);
    assertTrue(summary.length() <= 80, name + ": the summary does not fit a line: " + summary);
  }

  @ParameterizedTest
  @MethodSource("commands")
  void noTokenIsBrokenAcrossLines(String name) {
    CommandLine cli = find(name);
    String usage = usage(cli);
    List<String> texts = new ArrayList<>(authoredLines(cli.getCommandSpec()));
    // the parent's command list shows each subcommand's summary
    for (CommandLine sub : cli.getSubcommands().values()) {
      texts.add(sub.getCommandSpec().usageMessage().description()[0]);
    }
    for (String text : texts) {
      for (String token : text.split("\\s+")) {
        if (token.isEmpty() || token.contains("$") || token.contains("%")) {
          continue; // variables and format specifiers are replaced when rendered
        }
        assertTrue(usage.contains(token), name + ": '" + token + "' is broken in:\n" + usage);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("commands")
  void everyPageHasAnExampleAndTheExitCodes(String name) {
    CommandSpec spec = find(name).getCommandSpec();
    String usage = usage(find(name));
    // the man page generator writes the footer only under a footer heading
    assertTrue(spec.usageMessage().footerHeading().contains("Example"), name);
    assertTrue(usage.contains("Example"), name + " has no example:\n" + usage);
    assertTrue(usage.contains("\n  fabricpulse "), name + ": the example is not a command line");
    boolean group = !find(name).getSubcommands().isEmpty() || name.endsWith(" help");
    if (!group || name.equals("fabricpulse")) {
      assertTrue(usage.contains("Exit codes"), name + " documents no exit codes:\n" + usage);
      assertEquals(
          List.of("0", "1", "2"),
          List.copyOf(spec.usageMessage().exitCodeList().keySet()),
          name + ": exit codes 0, 1 and 2 explained");
    }
  }

  @Test
  void helpOfANestedCommandShowsThatCommand() {
    CliRun help = CliRun.of("help", "rules", "check");
    CliRun own = CliRun.of("rules", "check", "--help");
    assertEquals(0, help.exit(), help.stderr());
    assertEquals(own.stdout(), help.stdout());
    assertTrue(help.stdout().startsWith("Usage: fabricpulse rules check"), help.stdout());

    CliRun unknown = CliRun.of("help", "rules", "chek");
    assertEquals(2, unknown.exit());
    assertTrue(unknown.stderr().contains("Unknown command: 'rules chek'"), unknown.stderr());
  }

  @Test
  void detectNamesNoCommandThatDoesNotExist() {
    String help = CliRun.of("detect", "--help").stdout();
    assertFalse(help.contains("export"), help);
    assertTrue(help.contains("`parse` or `collect --once`"), help);
  }

  @Test
  void requiredOptionsAreShownAsRequired() {
    for (String command : List.of("streams", "sink influx")) {
      String help = CliRun.of((command + " --help").split(" ")).stdout();
      String synopsis = help.substring(0, help.indexOf("\n\n"));
      assertTrue(synopsis.contains(" --bootstrap-servers=HOST:PORT,..."), synopsis);
      assertTrue(synopsis.contains(" --schema-registry-url=URL"), synopsis);
      assertFalse(synopsis.contains("[--bootstrap-servers"), synopsis);
      assertFalse(synopsis.contains("[--schema-registry-url"), synopsis);
      assertTrue(help.contains("Required: the Kafka brokers"), help);
    }
    String sink = CliRun.of("sink", "influx", "--help").stdout();
    assertTrue(sink.contains("Usage: fabricpulse sink influx --influx-url=URL\n"), sink);
  }

  @Test
  void collectShowsItsDefaultsAndTheyAreTheConfigurationDefaults() {
    String help = CliRun.of("collect", "--help").stdout();
    CollectorConfig defaults = CollectorConfig.defaults();
    assertTrue(help.contains("Sets 'cluster' (default: " + defaults.cluster() + ")"), help);
    assertTrue(
        help.contains(
            "Sets 'sources.sysfs.root' (default: "
                + defaults.path(CollectorConfig.SYSFS_ROOT)
                + ")"),
        help);
    assertTrue(help.contains("/etc/fabricpulse/collector.yaml when it exists,"), help);
    assertEquals(Path.of("/etc/fabricpulse/collector.yaml"), CollectCommand.DEFAULT_CONFIG);
    assertTrue(help.contains("(default: json)"), help);
  }

  @Test
  void streamsDocumentsItsStateDirectory() {
    String help = CliRun.of("streams", "--help").stdout();
    assertTrue(help.contains("$STATE_DIRECTORY/streams"), help);
    assertTrue(help.contains("/var/lib/fabricpulse/streams"), help);
    assertTrue(help.contains("${XDG_STATE_HOME:-~/.local/state}/fabricpulse/streams"), help);
  }

  private static final Pattern VERSION =
      Pattern.compile("fabricpulse \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?( \\(commit [0-9a-f]{12}\\))?");

  @Test
  void versionIsTheProjectVersionAndTheSameOnEveryCommand() {
    CliRun root = CliRun.of("--version");
    assertEquals(0, root.exit());
    String first = root.stdout().lines().findFirst().orElseThrow();
    assertTrue(VERSION.matcher(first).matches(), first);
    commands()
        .filter(name -> !name.endsWith(" help"))
        .forEach(
            name -> {
              String[] args = (name.substring("fabricpulse".length()) + " -V").strip().split(" ");
              assertEquals(root.stdout(), CliRun.of(args).stdout(), name + " -V");
            });
  }

  @Test
  void theBuildWritesTheVersionAndTheCommitOfThisCheckout() throws Exception {
    Properties built = Version.load();
    assertTrue(
        built.getProperty("version", "").matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"),
        built.toString());
    // what git says of the checkout the tests run in (a worktree too), or "unknown" without one
    String head;
    try {
      Process git =
          new ProcessBuilder("git", "rev-parse", "--short=12", "HEAD")
              .redirectErrorStream(true)
              .start();
      String said = new String(git.getInputStream().readAllBytes()).strip();
      head = git.waitFor() == 0 ? said : "unknown";
    } catch (java.io.IOException noGit) {
      head = "unknown";
    }
    assertEquals(head, built.getProperty("commit"));
  }

  @Test
  void versionLineWithAndWithoutACommit() {
    Properties git = new Properties();
    git.setProperty("version", "0.2.0");
    git.setProperty("commit", "1a2b3c4d5e6f");
    assertEquals("fabricpulse 0.2.0 (commit 1a2b3c4d5e6f)", Version.line(git));

    // built from a source tarball or without git: the build says "unknown"
    Properties tarball = new Properties();
    tarball.setProperty("version", "0.2.0");
    tarball.setProperty("commit", "unknown");
    assertEquals("fabricpulse 0.2.0", Version.line(tarball));
    // not filtered at all (e.g. compiled by an IDE without Maven)
    tarball.setProperty("commit", "${fabricpulse.commit}");
    assertEquals("fabricpulse 0.2.0", Version.line(tarball));
  }

  @Test
  void completionCoversEveryCommandAndOption() {
    String script = AutoComplete.bash("fabricpulse", FabricPulse.commandLine());
    for (String word : List.of("detect", "rules", "check", "--sysfs-root", "--state-dir")) {
      assertTrue(script.contains(word), word);
    }
    assertTrue(script.contains("bashcompinit"), "the script also loads in zsh");
  }

  @Test
  void manPagesAreWrittenForEveryCommand(@TempDir Path dir) throws Exception {
    int exit =
        ManPageGenerator.generateManPage(
            dir.toFile(), null, new boolean[0], false, FabricPulse.commandLine().getCommandSpec());
    assertEquals(0, exit);
    commands()
        .map(name -> name.replace(' ', '-') + ".adoc")
        .forEach(file -> assertTrue(Files.isRegularFile(dir.resolve(file)), file));
    String page = Files.readString(dir.resolve("fabricpulse-rules-check.adoc"));
    assertTrue(page.contains("Validate the rule files of a directory"), page);
    assertTrue(page.contains("fabricpulse rules check alert-rules/"), "the examples: " + page);
    assertTrue(page.contains("the rule set is valid"), "the exit status: " + page);
    assertNotNull(new File(dir.toFile(), "fabricpulse.adoc"));
  }
}
