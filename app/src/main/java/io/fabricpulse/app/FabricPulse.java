package io.fabricpulse.app;

import io.fabricpulse.app.cli.BenchCommand;
import io.fabricpulse.app.cli.BridgeCommand;
import io.fabricpulse.app.cli.CliFailure;
import io.fabricpulse.app.cli.CollectCommand;
import io.fabricpulse.app.cli.DemoCommand;
import io.fabricpulse.app.cli.DetectCommand;
import io.fabricpulse.app.cli.ExitCodes;
import io.fabricpulse.app.cli.ExportCommand;
import io.fabricpulse.app.cli.HelpCommand;
import io.fabricpulse.app.cli.ParseCommand;
import io.fabricpulse.app.cli.QueryCommand;
import io.fabricpulse.app.cli.ReplayCommand;
import io.fabricpulse.app.cli.RulesCommand;
import io.fabricpulse.app.cli.SimulateCommand;
import io.fabricpulse.app.cli.SinkCommand;
import io.fabricpulse.app.cli.StreamsCommand;
import io.fabricpulse.app.cli.Version;
import io.fabricpulse.collectors.core.IoReason;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code fabricpulse} command line. Every failure ends in one line on stderr and an exit code
 * of {@link ExitCodes}: usage errors name the option and point at {@code --help}, and an unexpected
 * exception prints its message (its stack trace only with {@code --debug}).
 */
@Command(
    name = "fabricpulse",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "Event-driven telemetry for InfiniBand and RoCEv2 fabrics of GPU/HPC clusters.",
    subcommands = {
      DemoCommand.class,
      CollectCommand.class,
      ParseCommand.class,
      RulesCommand.class,
      DetectCommand.class,
      ExportCommand.class,
      ReplayCommand.class,
      QueryCommand.class,
      StreamsCommand.class,
      SinkCommand.class,
      BridgeCommand.class,
      SimulateCommand.class,
      BenchCommand.class,
      HelpCommand.class
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse demo --duration 60s",
      "  fabricpulse parse --format nccl slurm-4711.out | fabricpulse detect",
      "  fabricpulse help rules check"
    },
    exitCodeListHeading = "%nExit codes (every command):%n",
    exitCodeList = {
      "0:done, every input read",
      "1:findings or partial input (some lines, files or sources skipped)",
      "2:usage error, or input that could not be read or held nothing usable"
    })
public final class FabricPulse implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "Print the stack trace of an unexpected error.")
  boolean debug;

  public static void main(String[] args) {
    // Avro 1.12.2 instantiates generated classes only from trusted packages; the launcher sets
    // this too, this covers `java -jar` run by hand.
    System.setProperty(
        "org.apache.avro.SERIALIZABLE_PACKAGES",
        System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES", "io.fabricpulse.avro"));
    System.exit(commandLine().execute(args));
  }

  /** The whole command tree with its error handling: what {@link #main} runs and tests use. */
  public static CommandLine commandLine() {
    CommandLine cli =
        new CommandLine(new FabricPulse())
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setExecutionExceptionHandler(FabricPulse::onFailure)
            .setParameterExceptionHandler(FabricPulse::onUsageError);
    giveEveryCommandTheVersion(cli);
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code -V} of a subcommand prints the same as {@code fabricpulse --version}. */
  private static void giveEveryCommandTheVersion(CommandLine cli) {
    cli.getCommandSpec().versionProvider(new Version());
    cli.getSubcommands().values().forEach(FabricPulse::giveEveryCommandTheVersion);
  }

  /** A bad option or argument: its message, a suggestion for a typo, and where help is. */
  private static int onUsageError(ParameterException e, String[] args) {
    CommandLine cli = e.getCommandLine();
    PrintWriter err = cli.getErr();
    err.println(e.getMessage());
    UnmatchedArgumentException.printSuggestions(e, err);
    err.println(
        "Try '" + cli.getCommandSpec().qualifiedName() + " --help' for the options and examples.");
    err.flush();
    return ExitCodes.USAGE;
  }

  /**
   * Which settings to check after a failed handshake. A broker that requires client certificates
   * answers a missing or untrusted one with TLS alert bad_certificate or certificate_required (RFC
   * 8446 section 4.4.2.4); anything else is about trusting the broker.
   */
  static String tlsHint(String reason) {
    if (reason.contains("bad_certificate") || reason.contains("certificate_required")) {
      return " (the broker requires a client certificate it trusts: check ssl.keystore.location,"
          + " ssl.keystore.password and ssl.key.password)";
    }
    return " (check ssl.truststore.location, ssl.truststore.password and security.protocol)";
  }

  /** An exception out of a command: one line, the stack trace only with --debug. */
  private static int onFailure(Exception e, CommandLine cli, ParseResult parsed) {
    PrintWriter err = cli.getErr();
    int exit;
    Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
    org.apache.kafka.common.errors.AuthenticationException refused = authentication(cause);
    if (cause instanceof CliFailure failure) {
      err.println(failure.getMessage());
      exit = failure.exitCode();
    } else if (refused instanceof org.apache.kafka.common.errors.SslAuthenticationException) {
      // an untrusted broker certificate, a name mismatch or TLS spoken to a plaintext port; or
      // the broker's refusal of the client's certificate (mutual TLS)
      String reason = describe(refused);
      err.println(
          cli.getCommandSpec().qualifiedName()
              + ": TLS handshake with Kafka failed: "
              + reason
              + tlsHint(reason));
      exit = ExitCodes.USAGE;
    } else if (refused != null) {
      // wrong credentials are a bad configuration, not a failure of the service
      err.println(
          cli.getCommandSpec().qualifiedName()
              + ": Kafka refused the credentials: "
              + refused.getMessage()
              + " (check sasl.jaas.config, sasl.mechanism and security.protocol)");
      exit = ExitCodes.USAGE;
    } else if (cause instanceof IOException io) {
      String file = io instanceof FileSystemException fs ? fs.getFile() : null;
      err.println((file != null ? file + ": " : "") + "cannot read: " + IoReason.of(io));
      exit = ExitCodes.USAGE;
    } else {
      err.println(
          cli.getCommandSpec().qualifiedName()
              + ": failed: "
              + describe(cause)
              + (debugRequested(parsed) ? "" : " (--debug prints the stack trace)"));
      exit = ExitCodes.PARTIAL;
    }
    if (debugRequested(parsed)) {
      cause.printStackTrace(err);
    }
    err.flush();
    return exit;
  }

  /** The Kafka authentication failure among {@code e} and its causes, or null. */
  private static org.apache.kafka.common.errors.AuthenticationException authentication(
      Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.apache.kafka.common.errors.AuthenticationException refused) {
        return refused;
      }
    }
    return null;
  }

  /** The exception's message with the messages of its causes, or its type when it has none. */
  static String describe(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
      if (text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
    }
    return text.toString().replace('\n', ' ');
  }

  private static boolean debugRequested(ParseResult parsed) {
    for (ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption("--debug")) {
        return true;
      }
    }
    return false;
  }
}
