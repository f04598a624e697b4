package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.collectors.testing.Samples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code fabricpulse parse --format nccl LOG | fabricpulse detect} on every real NCCL capture: the
 * verdict table of issue 4 (detector 3), through the real commands in-process.
 */
class DetectCommandTest {

  private static final Map<String, String> TABLE = new LinkedHashMap<>();

  @TempDir Path tmp;

  /** parse, then detect the parse output; the detect run. */
  private CliRun parseThenDetect(String sample, String... detectOptions) throws Exception {
    CliRun parse =
        CliRun.of(
            "parse",
            "--format",
            "nccl",
            "--cluster",
            "lab",
            "--node",
            "gpu017",
            "--time",
            "2025-03-01T03:00:00Z",
            Samples.path("nccl/" + sample + ".txt").toString());
    assertEquals(0, parse.exit(), parse.stderr());
    Path records = tmp.resolve(sample + ".jsonl");
    Files.writeString(records, parse.stdout());
    String[] args = new String[detectOptions.length + 2];
    args[0] = "detect";
    System.arraycopy(detectOptions, 0, args, 1, detectOptions.length);
    args[args.length - 1] = records.toString();
    CliRun detect = CliRun.of(args);
    assertEquals(0, detect.exit(), detect.stderr());
    return detect;
  }

  @ParameterizedTest(name = "{0} -> net {1}, gdr {2}, alert {3}")
  @CsvSource(
      nullValues = "null",
      value = {
        "slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5, IB, true, none",
        "gke-a3-h100-2node-socket-fallback-nccl2.22.3, Socket, false, NET_FALLBACK_SOCKET",
        "nv_peer_memory-56-gdr-disabled-distance-via-NET-IB-0-nccl2.4.7, IB, false, GDR_FALLBACK",
        "nccl-1537-roce-gdr-disabled-for-hca, IB, false, GDR_FALLBACK",
        "mleng-azure-ib-warn-completion-error12, IB, null, NCCL_ERROR",
      })
  void parseThenDetectGivesTheIssueTable(String sample, String net, Boolean gdr, String alert)
      throws Exception {
    CliRun detect = parseThenDetect(sample);

    // the final verdict of every host of the log
    Map<String, NcclTransport> lastByHost = new LinkedHashMap<>();
    detect.records(NcclTransport.class).forEach(t -> lastByHost.put(t.getHost(), t));
    assertFalse(lastByHost.isEmpty(), "a verdict is printed");
    for (NcclTransport verdict : lastByHost.values()) {
      assertEquals(net, verdict.getNet(), verdict.getHost());
      assertEquals(gdr, verdict.getGdr(), verdict.getHost());
      assertFalse(verdict.getEvidence().isEmpty());
      assertEquals("lab", verdict.getCluster());
      assertEquals("gpu017", verdict.getNode());
    }
    Set<String> firing = new TreeSet<>();
    for (Alert a : detect.records(Alert.class)) {
      if (a.getState() == AlertState.FIRING) {
        firing.add(a.getKind().name());
        assertTrue(lastByHost.containsKey(a.getNode()), "alert on a host of the log: " + a);
      }
    }
    assertEquals("none".equals(alert) ? Set.of() : Set.of(alert), firing, detect.stdout());
    if (!"none".equals(alert)) {
      assertTrue(detect.stderr().contains("ALERT FIRING"), detect.stderr());
      assertTrue(detect.stderr().contains(alert), detect.stderr());
    }
    TABLE.put(
        sample,
        String.format(
            "%-66s | %-6s | %-5s | %s (hosts %s)",
            sample, net, gdr, alert, String.join(",", lastByHost.keySet())));
  }

  @Test
  void completionErrorResolvesAtTheEndFlushUnlessNoFlush() throws Exception {
    String sample = "mleng-azure-ib-warn-completion-error12";
    List<Alert> flushed = parseThenDetect(sample).records(Alert.class);
    assertEquals(
        List.of(AlertState.FIRING, AlertState.RESOLVED),
        flushed.stream().map(Alert::getState).toList());
    assertEquals(AlertKind.NCCL_ERROR, flushed.get(1).getKind());
    assertEquals(
        "129",
        flushed.get(0).getEvidence().get("vendor_err"),
        "the wrapped WARN line was joined by the parser");
    List<Alert> notFlushed = parseThenDetect(sample, "--no-flush").records(Alert.class);
    assertEquals(List.of(AlertState.FIRING), notFlushed.stream().map(Alert::getState).toList());
  }

  @Test
  void aRuleDirectoryWithoutNcclRulesStaysSilentButStillPrintsVerdicts() throws Exception {
    Path rules = Files.createDirectories(tmp.resolve("rules"));
    Path pfc =
        Path.of(
            DetectCommandTest.class.getClassLoader().getResource("alert-rules/pfc.yaml").toURI());
    Files.copy(pfc, rules.resolve("pfc.yaml"));
    CliRun detect =
        parseThenDetect(
            "gke-a3-h100-2node-socket-fallback-nccl2.22.3", "--rules", rules.toString());
    assertTrue(detect.records(Alert.class).isEmpty(), detect.stdout());
    assertFalse(detect.records(NcclTransport.class).isEmpty());
  }

  @Test
  void malformedLinesAreReportedWithFileAndLineAndSkipped() throws Exception {
    Path input = tmp.resolve("bad.jsonl");
    Files.writeString(input, "{\"type\":\"Nope\"}\nnot json\n");
    CliRun detect = CliRun.of("detect", input.toString());
    assertEquals(ExitCodes.USAGE, detect.exit(), "no valid record at all");
    assertTrue(detect.stderr().contains(input + ":1: type: unknown record type"), detect.stderr());
    assertTrue(detect.stderr().contains(input + ":2: not JSON"), detect.stderr());
    assertTrue(detect.stdout().isEmpty());
  }

  @AfterAll
  static void printTable() {
    StringBuilder table = new StringBuilder("\nparse --format nccl | detect (issue 4 table):\n");
    TABLE.values().forEach(row -> table.append(row).append('\n'));
    System.out.println(table);
  }
}
