package io.fabricpulse.app.cli;

import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.rules.Rule;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fabricpulse rules check DIR}: validates rule files without starting anything. */
@Command(
    name = "rules",
    mixinStandardHelpOptions = true,
    description = "Work with alert rule files (alert-rules/*.yaml): see 'rules check'.",
    subcommands = {RulesCommand.Check.class},
    footerHeading = "%nExample:%n",
    footer = "  fabricpulse rules check alert-rules/")
public final class RulesCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = {
        "Validate the rule files of a directory without starting anything.",
        "",
        "Loads every *.yaml and *.yml of DIR exactly as 'streams' and 'detect' do and",
        "reports each problem as file:line: key: problem; a valid set is listed, one",
        "rule per line."
      },
      footerHeading = "%nExamples:%n",
      footer = {
        "  fabricpulse rules check alert-rules/",
        "  fabricpulse rules check /etc/fabricpulse/rules && \\",
        "      systemctl restart fabricpulse-streams"
      },
      exitCodeListHeading = "%nExit codes:%n",
      exitCodeList = {
        "0:the rule set is valid",
        "1:findings: problems in the rules (each printed), the set is refused",
        "2:usage error, DIR missing, not a directory, or without rule files"
      })
  static final class Check implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "DIR", description = "Folder of rule files, e.g. alert-rules/.")
    Path dir;

    @Override
    public Integer call() throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      RulesDirectory.require(dir);
      try {
        RuleSet rules = RuleSet.load(dir);
        for (Rule rule : rules.all()) {
          out.printf(
              "%-28s %-20s %-8s %s%s%n",
              rule.id(),
              rule.detector().id(),
              rule.severity(),
              rule.enabled() ? "" : "(disabled) ",
              rule.origin());
        }
        long enabled = rules.all().stream().filter(Rule::enabled).count();
        long critical = rules.all().stream().filter(r -> r.severity() == Severity.CRITICAL).count();
        out.printf(
            "%d rules valid (%d enabled, %d critical) in %s%n",
            rules.all().size(), enabled, critical, dir);
        return ExitCodes.OK;
      } catch (RuleValidationException e) {
        e.problems().forEach(err::println);
        err.printf("%d problem(s): the rule set is refused%n", e.problems().size());
        return ExitCodes.PARTIAL;
      }
    }
  }
}
