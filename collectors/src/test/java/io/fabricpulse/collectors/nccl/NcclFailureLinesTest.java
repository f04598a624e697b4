package io.fabricpulse.collectors.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import io.fabricpulse.schemas.nccl.NcclKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The parser on real excerpts of failed NCCL jobs (origins in
 * src/test/resources/nccl/FAILURE-SOURCES.md): which records carry a failure, of which class, on
 * which host, at which time.
 */
class NcclFailureLinesTest {

  private static Path fixture(String name) {
    return Samples.resourcePath("nccl/" + name + ".txt");
  }

  private static List<NcclLog> failures(String name) {
    return NcclSamples.parse(fixture(name)).records().stream()
        .filter(r -> r.getAttrs().containsKey("failure"))
        .toList();
  }

  @ParameterizedTest(name = "{0}: first failure {1} on {2} at {3}")
  @CsvSource(
      nullValues = "none",
      value = {
        // the NCCL_DEBUG_TIMESTAMP_FORMAT prefix gives the time; NcclSamples reads at 2025-01-01
        "nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init, socket_connect,"
            + " tpgds-aihub0003, 2026-02-25T16:41:56Z, 3",
        "nccl-tests-166-socket-connect-abort-proxy-remote-closed, socket_connect, ubuntu, none, 4",
        "nccl-380-roce-ibv-create-cq-failed, ib_verbs, spark01, none, 1",
        "sichek-44-ib-completion-status12-timestamped, ib_completion,"
            + " test-ys-512-scaling-test-0104-1504-a7de2925-master-0, 2026-01-04T21:33:04Z, 1",
        // glog month/day without a year: the latest year not after the read time (2025-01-01)
        "basicsr-737-pytorch-watchdog-collective-timeout, collective_timeout, none,"
            + " 2024-06-26T06:24:44.903Z, 5",
        "pytorch-149984-unhandled-system-error, system_error, none, none, 2",
        "lightning-14986-bootstrap-root-already-checked-in, bootstrap, hpc-25-14, none, 1",
        "nccl-795-remote-peer-closed-broken-pipe, remote_exited, a100-st-p4d24xlarge-22, none, 3",
        "vllm-6042-ray-watchdog-timeout-abort, collective_timeout, none, none, 4",
        "vllm-4108-watchdog-cuda-illegal-memory-access, watchdog, none, none, 1",
        "nccl-629-remote-reset-and-cuda-failure-two-hosts, remote_exited, A03-R28-I49-3-9000018,"
            + " none, 3",
        "mambatree-14-internal-error-bootstrap-no-socket-interface, internal_error, none, none, 2",
      })
  void everyExcerptYieldsItsFailure(
      String name, String failure, String host, Instant time, int failureRecords) {
    List<NcclLog> failures = failures(name);
    assertEquals(failureRecords, failures.size(), failures.toString());
    NcclLog first = failures.get(0);
    assertEquals(failure, first.getAttrs().get("failure"), first.getRawLine());
    assertEquals(host, first.getHost());
    assertEquals(time != null ? time : NcclSamples.T0, first.getTime());
    assertEquals(time != null ? "line" : null, first.getAttrs().get("time_from"));
    assertEquals(host != null ? "WARN" : "APP_ERROR", first.getKind());
  }

  @Test
  void theIssue7LogIsTwoSocketWarnsAndTheApplicationsRemoteErrorWithoutAnInitSection()
      throws IOException {
    var parsed =
        NcclSamples.parse(
            fixture("nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init"));
    List<NcclLog> records = parsed.records();
    assertEquals(List.of(), parsed.result().malformed());
    assertTrue(records.stream().noneMatch(r -> r.getKind().startsWith("INIT")), "no init section");
    assertEquals(
        List.of("WARN", "APP_ERROR", "WARN"), records.stream().map(NcclLog::getKind).toList());
    NcclLog app = records.get(1);
    assertEquals("remote_exited", app.getAttrs().get("failure"));
    assertNull(app.getHost());
    assertNull(app.getLevel());
    assertEquals(
        "RuntimeError: NCCL error: remote process exited or there was a network error",
        app.getRawLine());
    assertEquals(NcclSamples.T0, app.getTime(), "no timestamp: the read time");
    // the Python source line that mentions NCCL errors and sglang's own lines are no records
    List<String> texts =
        Files.readAllLines(
            fixture("nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init"));
    assertEquals(texts.size() - 3, parsed.nonNcclLines());
  }

  @Test
  void replayingAFileDatesTheApplicationLineByTheStampedWarnBeforeIt() {
    List<NcclLog> records =
        NcclSamples.parse(
                fixture("nccl-slurmv4-sglang-bootstrap-socket-connection-refused-no-init"))
            .records();
    NcclLineParser.timeUndatedFromNeighbours(records);
    NcclLog app = records.get(1);
    assertEquals(Instant.parse("2026-02-25T16:41:56Z"), app.getTime());
    assertEquals("neighbour", app.getAttrs().get("time_from"));
    assertEquals("line", records.get(0).getAttrs().get("time_from"));
    // a file without any timestamp keeps the read time
    List<NcclLog> undated =
        NcclSamples.parse(fixture("nccl-795-remote-peer-closed-broken-pipe")).records();
    NcclLineParser.timeUndatedFromNeighbours(undated);
    assertTrue(undated.stream().allMatch(r -> r.getTime().equals(NcclSamples.T0)));
    assertTrue(undated.stream().noneMatch(r -> r.getAttrs().containsKey("time_from")));
  }

  @Test
  void theReasonLineOfAPyTorchNcclErrorIsNotMistakenForAVersionBanner() {
    // "..., NCCL version 2.25.1" at the end of the line
    NcclLog first =
        NcclSamples.parse(fixture("pytorch-149984-unhandled-system-error")).records().get(0);
    assertEquals(NcclKind.APP_ERROR.name(), first.getKind());
    assertEquals("system_error", first.getAttrs().get("failure"));
  }

  @Test
  void aTwoHostExcerptGivesEachHostItsOwnFailure() {
    List<NcclLog> failures = failures("nccl-629-remote-reset-and-cuda-failure-two-hosts");
    assertEquals("A03-R28-I49-3-9000018", failures.get(0).getHost());
    assertEquals("A03-R28-I49-2-6000166", failures.get(1).getHost());
    assertEquals("cuda", failures.get(1).getAttrs().get("failure"));
    // nccl-tests' "Test NCCL failure common.cu:497 'unhandled cuda error'" has no NCCL prefix
    assertEquals(NcclKind.APP_ERROR.name(), failures.get(2).getKind());
    assertEquals("cuda", failures.get(2).getAttrs().get("failure"));
  }

  @Test
  void nonFatalWarnsCarryNoFailure() {
    var parsed = NcclSamples.parse(fixture("fastsocket-4-nonfatal-warns"));
    assertEquals(4, parsed.ofKind(NcclKind.WARN).size());
    assertTrue(failures("fastsocket-4-nonfatal-warns").isEmpty());
  }

  @Test
  void aHealthyCaptureCarriesNoFailure() {
    var parsed =
        NcclSamples.parse(NcclSamples.real("slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5"));
    assertTrue(
        parsed.records().stream().noneMatch(r -> r.getAttrs().containsKey("failure")),
        "GDR in use, no failure");
  }

  @Test
  void localTimestampsAreReadInTheParsersZone() {
    NcclLineParser moscow = new NcclLineParser(java.time.ZoneId.of("Europe/Moscow"));
    NcclLog warn =
        moscow
            .parseAll(
                NcclLineParser.linesOf(
                    "f",
                    List.of(
                        // https://github.com/scitix/sichek/issues/44
                        "[2026-01-04 21:33:04]"
                            + " test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3]"
                            + " transport/net_ib.cc:2360 NCCL WARN NET/IB: Got completion from peer"
                            + " 172.16.234.184<53393> with status=12 opcode=1 len=5222 vendor err"
                            + " 129 (Send) localGid ::ffff:100.123.200.87"
                            + " remoteGids::ffff:100.123.200.74 hca mlx5_26"),
                    null),
                SampleContext.of(NcclSamples.NODE, NcclSamples.T0))
            .records()
            .get(0);
    assertEquals(Instant.parse("2026-01-04T18:33:04Z"), warn.getTime());
    assertEquals("12", warn.getAttrs().get("status"));
  }
}
