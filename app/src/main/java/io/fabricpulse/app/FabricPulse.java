package io.fabricpulse.app;

import io.fabricpulse.app.cli.BenchCommand;
import io.fabricpulse.app.cli.CollectCommand;
import io.fabricpulse.app.cli.DemoCommand;
import io.fabricpulse.app.cli.DetectCommand;
import io.fabricpulse.app.cli.ParseCommand;
import io.fabricpulse.app.cli.RulesCommand;
import io.fabricpulse.app.cli.SinkCommand;
import io.fabricpulse.app.cli.StreamsCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code fabricpulse} command line. */
@Command(
    name = "fabricpulse",
    mixinStandardHelpOptions = true,
    versionProvider = FabricPulse.Version.class,
    description = "Event-driven telemetry for InfiniBand and RoCEv2 fabrics of GPU/HPC clusters.",
    subcommands = {
      DemoCommand.class,
      CollectCommand.class,
      ParseCommand.class,
      RulesCommand.class,
      DetectCommand.class,
      StreamsCommand.class,
      SinkCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class FabricPulse implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // Avro 1.12.2 instantiates generated classes only from trusted packages; the launcher sets
    // this too, this covers `java -jar` run by hand.
    System.setProperty(
        "org.apache.avro.SERIALIZABLE_PACKAGES",
        System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES", "io.fabricpulse.avro"));
    System.exit(commandLine().execute(args));
  }

  public static CommandLine commandLine() {
    return new CommandLine(new FabricPulse()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = FabricPulse.class.getPackage().getImplementationVersion();
      return new String[] {"fabricpulse " + (v == null ? "dev" : v)};
    }
  }
}
