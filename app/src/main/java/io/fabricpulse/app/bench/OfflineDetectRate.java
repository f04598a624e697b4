package io.fabricpulse.app.bench;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatedAgents;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import picocli.CommandLine;

/**
 * Offline detection speed: the simulated fleet's records written as the JSON lines {@code detect}
 * reads (what {@code collect --once} and {@code parse} print), then {@code fabricpulse detect FILE}
 * run in this process, exactly as an operator runs it on an exported incident. Records per second
 * of the detect run, file reading and decoding included.
 */
final class OfflineDetectRate {

  /** Records written and detect's wall time. */
  record Result(long records, double seconds, int exitCode) {
    double perSecond() {
      return records / seconds;
    }
  }

  private OfflineDetectRate() {}

  static Path write(FabricSimulator simulator, Instant start, long seconds, Path file)
      throws IOException {
    SimulatedAgents agents = new SimulatedAgents(simulator);
    long records = 0;
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      for (long s = 0; s < seconds; s++) {
        for (SimulatedAgents.HostRecords host : agents.collect(start.plusSeconds(s))) {
          for (SpecificRecord record : host.records()) {
            out.write(JsonRecords.toJson(record));
            out.write('\n');
            records++;
          }
        }
      }
    }
    return file;
  }

  static Result run(Path file) throws IOException {
    long records;
    try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
      records = lines.count();
    }
    CommandLine cli = FabricPulse.commandLine();
    PrintWriter discard = new PrintWriter(Writer.nullWriter());
    cli.setOut(discard);
    cli.setErr(discard);
    long t0 = System.nanoTime();
    int exit = cli.execute("detect", file.toString());
    return new Result(records, (System.nanoTime() - t0) / 1e9, exit);
  }
}
