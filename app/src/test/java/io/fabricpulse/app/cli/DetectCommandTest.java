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

  /**
   * parse --format nccl FILE as collected on {@code node} with read time {@code time}, then detect.
   */
  private CliRun parseFileThenDetect(Path file, String node, String time) throws Exception {
    CliRun parse =
        CliRun.of(
            "parse",
            "--format",
            "nccl",
            "--cluster",
            "lab",
            "--node",
            node,
            "--time",
            time,
            file.toString());
    assertEquals(0, parse.exit(), parse.stderr());
    Path records = tmp.resolve(file.getFileName() + ".jsonl");
    Files.writeString(records, parse.stdout());
    CliRun detect = CliRun.of("detect", records.toString());
    assertEquals(0, detect.exit(), detect.stderr());
    return detect;
  }

  /** host:failure of every FIRING NCCL_ERROR, in output order. */
  private static List<String> ncclErrorPages(CliRun detect) {
    return detect.records(Alert.class).stream()
        .filter(a -> a.getState() == AlertState.FIRING && a.getKind() == AlertKind.NCCL_ERROR)
        .map(a -> a.getNode() + ":" + a.getEvidence().get("failure"))
        .toList();
  }

  /**
   * The real failure excerpts of collectors/src/test/resources/nccl (origins in FAILURE-SOURCES.md
   * there): each pages NCCL_ERROR once per failing host, naming the failure class, at the time the
   * line carries (or, without one, the read time given to parse).
   */
  @ParameterizedTest(name = "{0} -> {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init | tpgds-aihub0003"
            + " | 2026-02-25T16:42:00Z | tpgds-aihub0003:socket_connect | 2026-02-25T16:41:56Z",
        "nccl-tests-166-socket-connect-abort-proxy-remote-closed | ubuntu | 2025-03-01T03:00:00Z"
            + " | ubuntu:socket_connect | 2025-03-01T03:00:00Z",
        "nccl-380-roce-ibv-create-cq-failed | spark01 | 2025-03-01T03:00:00Z | spark01:ib_verbs"
            + " | 2025-03-01T03:00:00Z",
        "sichek-44-ib-completion-status12-timestamped"
            + " | test-ys-512-scaling-test-0104-1504-a7de2925-master-0 | 2026-01-05T00:00:00Z"
            + " | test-ys-512-scaling-test-0104-1504-a7de2925-master-0:ib_completion"
            + " | 2026-01-04T21:33:04Z",
        // rank 0's line (06:24:44.159) is the earliest, though printed after rank 1's (.903)
        "basicsr-737-pytorch-watchdog-collective-timeout | gpu017 | 2025-07-01T00:00:00Z"
            + " | gpu017:collective_timeout | 2025-06-26T06:24:44.159Z",
        "pytorch-149984-unhandled-system-error | gpu017 | 2025-03-01T03:00:00Z"
            + " | gpu017:system_error | 2025-03-01T03:00:00Z",
        "lightning-14986-bootstrap-root-already-checked-in | hpc-25-14 | 2025-03-01T03:00:00Z"
            + " | hpc-25-14:bootstrap | 2025-03-01T03:00:00Z",
        "nccl-795-remote-peer-closed-broken-pipe | a100-st-p4d24xlarge-22 | 2025-03-01T03:00:00Z"
            + " | a100-st-p4d24xlarge-22:remote_exited | 2025-03-01T03:00:00Z",
        "vllm-6042-ray-watchdog-timeout-abort | gpu017 | 2025-03-01T03:00:00Z"
            + " | gpu017:collective_timeout | 2025-03-01T03:00:00Z",
        "vllm-4108-watchdog-cuda-illegal-memory-access | gpu017 | 2025-03-01T03:00:00Z"
            + " | gpu017:watchdog | 2025-03-01T03:00:00Z",
        // both lines carry the read time: pages of one time come out in node order
        "nccl-629-remote-reset-and-cuda-failure-two-hosts | A03-R28-I49-2-6000166"
            + " | 2025-03-01T03:00:00Z"
            + " | A03-R28-I49-2-6000166:cuda,A03-R28-I49-3-9000018:remote_exited"
            + " | 2025-03-01T03:00:00Z",
        "mambatree-14-internal-error-bootstrap-no-socket-interface | gpu017 | 2025-03-01T03:00:00Z"
            + " | gpu017:internal_error | 2025-03-01T03:00:00Z",
      })
  void everyRealFailureExcerptPagesNcclErrorNamingWhatFailed(
      String fixture, String node, String readAt, String pages, String startedAt) throws Exception {
    Path file = Samples.resourcePath("nccl/" + fixture + ".txt");
    CliRun detect = parseFileThenDetect(file, node, readAt);
    assertEquals(List.of(pages.split(",")), ncclErrorPages(detect), detect.stdout());
    Alert first =
        detect.records(Alert.class).stream()
            .filter(a -> a.getKind() == AlertKind.NCCL_ERROR)
            .findFirst()
            .orElseThrow();
    assertEquals(java.time.Instant.parse(startedAt), first.getStartedAt());
    String failure = first.getEvidence().get("failure");
    String description =
        io.fabricpulse.schemas.nccl.NcclFailureClass.valueOf(
                failure.toUpperCase(java.util.Locale.ROOT))
            .description();
    String said = failure.equals("ib_completion") ? "completion error" : description;
    assertTrue(first.getSummary().contains("NCCL " + said), first.getSummary());
    assertTrue(detect.stderr().contains("ALERT FIRING"), detect.stderr());
    assertTrue(detect.stderr().contains("NCCL_ERROR"), detect.stderr());
  }

  @Test
  void theIssue7LogPagesOnceAtTheTimeItFailedWhenReadWithoutATime() throws Exception {
    // no --time: the file's modification time (the checkout) is months after the failure; the
    // application's undated error line takes the time of the stamped WARN before it
    Path file =
        Samples.resourcePath(
            "nccl/nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init.txt");
    CliRun parse =
        CliRun.of("parse", "--format", "nccl", "--node", "tpgds-aihub0003", file.toString());
    assertEquals(0, parse.exit(), parse.stderr());
    Path records = tmp.resolve("issue7.jsonl");
    Files.writeString(records, parse.stdout());
    CliRun detect = CliRun.of("detect", records.toString());
    assertEquals(0, detect.exit(), detect.stderr());
    List<Alert> alerts = detect.records(Alert.class);
    assertEquals(
        List.of(AlertState.FIRING, AlertState.RESOLVED),
        alerts.stream().map(Alert::getState).toList(),
        detect.stdout());
    assertEquals(java.time.Instant.parse("2026-02-25T16:41:56Z"), alerts.get(0).getStartedAt());
    assertEquals(java.time.Instant.parse("2026-02-25T16:42:56Z"), alerts.get(1).getResolvedAt());
    assertEquals("socket_connect", alerts.get(0).getEvidence().get("failure"));
  }

  @Test
  void aHealthyLogAndNonFatalWarnsDoNotPageNcclError() throws Exception {
    CliRun healthy =
        parseFileThenDetect(
            Samples.path("nccl/slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5.txt"),
            "gpu017",
            "2025-03-01T03:00:00Z");
    assertEquals(List.of(), ncclErrorPages(healthy), healthy.stdout());
    assertTrue(healthy.records(Alert.class).isEmpty(), "GDR in use: nothing fires");
    // https://github.com/google/nccl-fastsocket/issues/4: WARNs the job runs through
    CliRun nonFatal =
        parseFileThenDetect(
            Samples.resourcePath("nccl/fastsocket-4-nonfatal-warns.txt"),
            "full-debug2-test-0",
            "2025-03-01T03:00:00Z");
    assertEquals(List.of(), ncclErrorPages(nonFatal), nonFatal.stdout());
  }

  @AfterAll
  static void printTable() {
    StringBuilder table = new StringBuilder("\nparse --format nccl | detect (issue 4 table):\n");
    TABLE.values().forEach(row -> table.append(row).append('\n'));
    System.out.println(table);
  }
}
