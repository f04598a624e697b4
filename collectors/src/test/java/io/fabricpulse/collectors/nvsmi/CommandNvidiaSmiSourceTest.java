package io.fabricpulse.collectors.nvsmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real nvidia-smi is never run: a shell script stands in for it, answering from the captures,
 * so the process handling (argv, exit status, timeout) and the fallback to -q are exercised.
 */
class CommandNvidiaSmiSourceTest {
  @TempDir Path dir;

  private final SampleContext ctx =
      SampleContext.of(
          new NodeIdentity("lab", "gpu017", "boot-1"), Instant.parse("2025-01-01T00:00:00Z"));

  /**
   * A stand-in: --help-query-gpu prints the r470 help, --query-gpu prints {@code csvBody} (or fails
   * when null), -q prints the 8xH100 capture; every call appends its argv to calls.log.
   */
  private Path fake(String csvBody) throws IOException {
    Path help = dir.resolve("help.txt");
    Files.writeString(help, Samples.resource("nvsmi/help-query-gpu-r470-synthetic.txt"));
    Path q = Samples.path("nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08.txt");
    Path csv = dir.resolve("query.csv");
    if (csvBody != null) {
      Files.writeString(csv, csvBody);
    }
    String script =
        "#!/bin/sh\n"
            + "echo \"$@\" >> '"
            + dir.resolve("calls.log")
            + "'\n"
            + "case \"$1\" in\n"
            + "  --help-query-gpu) cat '"
            + help
            + "' ;;\n"
            + "  --query-gpu=*) "
            + (csvBody == null
                ? "echo 'Field \"x\" is not a valid field to query.' >&2; exit 2"
                : "cat '" + csv + "'")
            + " ;;\n"
            + "  -q) cat '"
            + q
            + "' ;;\n"
            + "  *) exit 9 ;;\n"
            + "esac\n";
    Path fake = dir.resolve("fake-nvidia-smi");
    Files.writeString(fake, script);
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
    return fake;
  }

  private List<String> calls() throws IOException {
    return Files.readAllLines(dir.resolve("calls.log"));
  }

  @Test
  void queryUsesTheSupportedFieldsDiscoveredOnce() throws Exception {
    // the 13 fields the r470 help offers, in GpuQueryFields.WANTED order (synthetic values)
    Path fake =
        fake(
            "0, GPU-a1b2c3d4-0000-1111-2222-333344445555, 00000000:07:00.0, NVIDIA A100-SXM4-80GB,"
                + " Enabled, 0, 0, 2, 0, 1, 0, No, 41\n");
    CommandNvidiaSmiSource source =
        new CommandNvidiaSmiSource(fake.toString(), Duration.ofSeconds(10));
    NvidiaSmiCollector collector = new NvidiaSmiCollector(source);

    ParseResult<GpuEcc> first = collector.collect(ctx);
    ParseResult<GpuEcc> second = collector.collect(ctx);

    List<String> fields = collector.fields();
    assertTrue(fields.contains("ecc.errors.uncorrected.volatile.total"), fields.toString());
    assertEquals(
        List.of(
            "--help-query-gpu",
            "--query-gpu=" + String.join(",", fields) + " --format=csv,noheader,nounits",
            "--query-gpu=" + String.join(",", fields) + " --format=csv,noheader,nounits"),
        calls());
    assertEquals(13, fields.size());
    GpuEcc gpu = first.records().get(0);
    assertEquals("GPU-a1b2c3d4-0000-1111-2222-333344445555", gpu.getUuid());
    assertEquals(2L, gpu.getEccCorrectedAggregate());
    assertEquals(1L, gpu.getRetiredPagesSbe());
    assertEquals(41, gpu.getTemperatureGpu());
    assertEquals(1, second.records().size());
    assertEquals(0, first.malformed().size());
  }

  @Test
  void aFailingQueryFallsBackToDashQ() throws Exception {
    Path fake = fake(null);
    NvidiaSmiCollector collector =
        new NvidiaSmiCollector(new CommandNvidiaSmiSource(fake.toString(), Duration.ofSeconds(10)));

    ParseResult<GpuEcc> result = collector.collect(ctx);

    assertEquals(8, result.records().size());
    assertEquals("GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa", result.records().get(0).getUuid());
    List<String> calls = calls();
    assertEquals("--help-query-gpu", calls.get(0));
    assertTrue(calls.get(1).startsWith("--query-gpu="));
    assertEquals("-q", calls.get(2));
  }

  @Test
  void missingBinaryIsOneSkippedInputNotAnException() throws Exception {
    NvidiaSmiCollector collector =
        new NvidiaSmiCollector(
            new CommandNvidiaSmiSource(dir.resolve("absent").toString(), Duration.ofSeconds(5)));

    ParseResult<GpuEcc> result = collector.collect(ctx);

    assertEquals(0, result.records().size());
    assertEquals(2, result.malformed().size()); // help-query-gpu, then -q
    assertTrue(
        result.malformed().get(1).reason().contains("-q failed"), result.malformed().toString());
  }

  @Test
  void aHungNvidiaSmiIsKilledAfterTheTimeout() throws Exception {
    Path fake = dir.resolve("hung-nvidia-smi");
    Files.writeString(fake, "#!/bin/sh\nexec sleep 30\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
    CommandNvidiaSmiSource source =
        new CommandNvidiaSmiSource(fake.toString(), Duration.ofMillis(300));

    IOException e = assertThrows(IOException.class, source::queryAll);
    assertTrue(e.getMessage().contains("no answer within"), e.getMessage());
    assertEquals(
        List.of(fake.toString(), "--query-gpu=index,uuid", "--format=csv,noheader,nounits"),
        source.queryCommand(List.of("index", "uuid")));
  }
}
