package io.fabricpulse.app.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.ColorScheme;
import picocli.CommandLine.Parameters;

/**
 * {@code fabricpulse help [COMMAND...]}: the help page of a command at any depth, so {@code help
 * rules check} shows {@code rules check} (picocli's own help command stops at the first name).
 */
@Command(
    name = "help",
    helpCommand = true,
    description = "Show the help of a command, e.g. 'help rules check'.",
    footerHeading = "%nExample:%n",
    footer = "  fabricpulse help sink influx")
public final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Runnable {

  @Parameters(
      paramLabel = "COMMAND",
      arity = "0..*",
      description = "A command and its subcommands, e.g. rules check.")
  List<String> names = new ArrayList<>();

  private CommandLine self;
  private ColorScheme colors;
  private PrintWriter out;

  @Override
  public void init(
      CommandLine helpCommandLine, ColorScheme colorScheme, PrintWriter out, PrintWriter err) {
    this.self = helpCommandLine;
    this.colors = colorScheme;
    this.out = out;
  }

  @Override
  public void run() {
    CommandLine target = self.getParent();
    List<String> walked = new ArrayList<>();
    for (String name : names) {
      walked.add(name);
      CommandLine sub = target.getSubcommands().get(name);
      if (sub == null) {
        throw new CommandLine.ParameterException(
            self, "Unknown command: '" + String.join(" ", walked) + "'");
      }
      target = sub;
    }
    target.usage(out, colors);
  }
}
