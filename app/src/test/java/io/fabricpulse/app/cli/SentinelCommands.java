package io.fabricpulse.app.cli;

import io.fabricpulse.app.FabricPulse;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;

/**
 * The child JVM of {@link SentinelSecretsTest}: runs several fabricpulse command lines one after
 * the other in one process (started with the sentinel secrets in its environment), each through
 * {@link FabricPulse#commandLine()} as {@code main} would, with its output on this process's stdout
 * and stderr. Arguments are the command lines separated by {@code ::}; {@code HELP-ALL} stands for
 * {@code --help} of every command and subcommand.
 */
final class SentinelCommands {
  private SentinelCommands() {}

  public static void main(String[] args) {
    System.setProperty("org.apache.avro.SERIALIZABLE_PACKAGES", "io.fabricpulse.avro");
    List<List<String>> commands = new ArrayList<>();
    List<String> current = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals("::")) {
        commands.add(current);
        current = new ArrayList<>();
      } else {
        current.add(arg);
      }
    }
    commands.add(current);
    for (List<String> command : commands) {
      if (command.equals(List.of("HELP-ALL"))) {
        helpOf(FabricPulse.commandLine(), new ArrayList<>());
      } else {
        run(command);
      }
    }
    System.out.flush();
    System.err.flush();
    System.exit(0);
  }

  private static void helpOf(CommandLine cli, List<String> path) {
    List<String> help = new ArrayList<>(path);
    help.add("--help");
    run(help);
    cli.getSubcommands()
        .forEach(
            (name, sub) -> {
              List<String> deeper = new ArrayList<>(path);
              deeper.add(name);
              helpOf(sub, deeper);
            });
  }

  private static void run(List<String> command) {
    System.out.println("=== fabricpulse " + String.join(" ", command));
    System.err.println("=== fabricpulse " + String.join(" ", command));
    CommandLine cli = FabricPulse.commandLine();
    cli.setOut(new PrintWriter(System.out, true));
    cli.setErr(new PrintWriter(System.err, true));
    int exit = cli.execute(command.toArray(String[]::new));
    System.out.println("=== exit " + exit);
    System.out.flush();
    System.err.flush();
  }

  /**
   * Starts a child JVM on this test classpath running {@code commands} one after the other, with
   * {@code env} added to (or, for a null value, removed from) its environment, its stdout and
   * stderr into {@code out} and {@code err}.
   */
  static Process start(
      List<String[]> commands,
      java.util.Map<String, String> env,
      java.nio.file.Path out,
      java.nio.file.Path err)
      throws java.io.IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SentinelCommands.class.getName());
    command.addAll(List.of(join(commands)));
    ProcessBuilder builder = new ProcessBuilder(command);
    env.forEach(
        (name, value) -> {
          if (value == null) {
            builder.environment().remove(name);
          } else {
            builder.environment().put(name, value);
          }
        });
    return builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
  }

  static String[] join(List<String[]> commands) {
    List<String> all = new ArrayList<>();
    for (String[] command : commands) {
      if (!all.isEmpty()) {
        all.add("::");
      }
      all.addAll(Arrays.asList(command));
    }
    return all.toArray(String[]::new);
  }
}
