package io.fabricpulse.app.cli;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.schemas.json.JsonRecords;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import picocli.CommandLine;

/** One in-process run of the fabricpulse command line with its stdout and stderr captured. */
record CliRun(int exit, String stdout, String stderr) {

  static CliRun of(String... args) {
    CommandLine cli = FabricPulse.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new CliRun(exit, out.toString(), err.toString());
  }

  /** stdout as records, read back through the JSON-lines codec. */
  List<SpecificRecord> records() {
    return stdout.lines().map(JsonRecords::fromJson).toList();
  }

  /** The per-port views of the NodeCounters printed (collect --once prints the wire records). */
  List<SpecificRecord> portViews() {
    return records(NodeCounters.class).stream()
        .flatMap(n -> NodeRecords.views(n).stream())
        .toList();
  }

  /** The per-port views of one type, e.g. the PortCounters inside the NodeCounters printed. */
  <T extends SpecificRecord> List<T> ports(Class<T> type) {
    return portViews().stream().filter(type::isInstance).map(type::cast).toList();
  }

  <T extends SpecificRecord> List<T> records(Class<T> type) {
    return records().stream().filter(type::isInstance).map(type::cast).toList();
  }
}
