package io.fabricpulse.streams.detect.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.testing.DetectorStories;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Incident stories of fatal NCCL failures, one per failure class, on real lines from public issue
 * threads (cited next to each). Every record's time is the timestamp its line carries; a line
 * without one gets the time the collector read it, stated in the story.
 */
class NcclFailureIncidentsTest extends DetectorStories {

  private NcclDriver driver(TestInfo info) {
    return new NcclDriver(defaults, stateDir, "nccl-failure-" + info.getDisplayName());
  }

  private static void pipe(NcclDriver d, NcclLog... logs) {
    for (NcclLog log : logs) {
      d.nccl.pipeInput(NcclLines.CLUSTER + "/" + log.getNode(), log, log.getTime().toEpochMilli());
    }
  }

  private static void tick(NcclDriver d, Instant at) {
    d.nccl.pipeInput("c1/clock", null, at.toEpochMilli());
  }

  private static List<Alert> firing(List<Alert> alerts) {
    return alerts.stream().filter(a -> a.getState() == AlertState.FIRING).toList();
  }

  // https://github.com/devopsrustem/slurmv4 (the sglang log of issue 7)
  private static final String SGLANG_TP3 =
      "[2026-02-25 16:41:56] tpgds-aihub0003:2387398:2387398 [3] os/linux.cc:200 NCCL WARN"
          + " ncclOsSocketPollConnect: connect to 10.82.101.249<37857> returned Connection refused,"
          + " exceeded error retry count after 35 attempts";
  private static final String SGLANG_TP4 =
      "[2026-02-25 16:41:56] tpgds-aihub0003:2387399:2387399 [4] os/linux.cc:200 NCCL WARN"
          + " ncclOsSocketPollConnect: connect to 10.82.101.249<37857> returned Connection refused,"
          + " exceeded error retry count after 35 attempts";
  private static final String SGLANG_RUNTIME_ERROR =
      "RuntimeError: NCCL error: remote process exited or there was a network error";

  @Test
  void job4801DiesInBootstrapWithoutAnInitSectionAndPagesOnceAsASocketConnectFailure(
      TestInfo info) {
    Instant failedAt = Instant.parse("2026-02-25T16:41:56Z");
    Instant readAt = Instant.parse("2026-02-25T16:42:00Z");
    try (NcclDriver d = driver(info)) {
      // ranks 3 and 4 give up connecting to the bootstrap root; sglang's traceback ends with the
      // application's own error line, which has no timestamp (read at 16:42:00)
      pipe(
          d,
          NcclLines.realLine("tpgds-aihub0003", "4801", failedAt, SGLANG_TP3),
          NcclLines.realLine("tpgds-aihub0003", "4801", readAt, SGLANG_RUNTIME_ERROR),
          NcclLines.realLine("tpgds-aihub0003", "4801", failedAt.plusMillis(1), SGLANG_TP4));
      tick(d, failedAt.plusSeconds(300));

      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert page = alerts.get(0);
      assertEquals(AlertState.FIRING, page.getState());
      assertEquals(AlertKind.NCCL_ERROR, page.getKind());
      assertEquals("nccl-error", page.getRule());
      assertEquals(Severity.CRITICAL, page.getSeverity());
      assertEquals("tpgds-aihub0003", page.getNode());
      assertEquals("4801", page.getJob());
      assertEquals(failedAt, page.getStartedAt(), "the time the WARN line carries");
      assertEquals("socket_connect", page.getEvidence().get("failure"));
      assertEquals("os/linux.cc:200", page.getEvidence().get("src"));
      assertEquals("nccl_warn", page.getEvidence().get("origin"));
      assertEquals(SGLANG_TP3, page.getEvidence().get("line"));
      assertEquals(
          "tpgds-aihub0003 job 4801: NCCL socket connect failure: ncclOsSocketPollConnect: connect"
              + " to 10.82.101.249<37857> returned Connection refused, exceeded error retry count"
              + " after 35 attempts",
          page.getSummary());
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(page.getAlertId(), resolved.getAlertId());
      assertEquals(readAt.plusSeconds(60), resolved.getResolvedAt(), "60 s after the last line");
      assertTrue(d.transports.isEmpty(), "the log never said which network it uses");
    }
  }

  // https://github.com/NVIDIA/nccl-tests/issues/166 (turn 5): one failure, four WARN classes
  private static final List<String> NCCL_TESTS_166 =
      List.of(
          "ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to"
              + " 10.0.0.2<45763> failed : Software caused connection abort",
          "ubuntu:39964:40075 [0] proxy.cc:1519 NCCL WARN [Proxy Service 0] Failed to execute"
              + " operation Connect from rank 0, retcode 2",
          "ubuntu:39964:40044 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by"
              + " remote peer node1<57557>",
          "ubuntu:39964:40044 [0] proxy.cc:1143 NCCL WARN Socket recv failed while polling for"
              + " opId=0x7f6f18cb7f40");

  @Test
  void aFailureThatWarnsFourTimesIsOnePageNamingTheFirstCause(TestInfo info) {
    Instant readAt = Instant.parse("2025-03-01T03:00:00Z"); // no timestamps in these lines
    try (NcclDriver d = driver(info)) {
      for (int i = 0; i < NCCL_TESTS_166.size(); i++) {
        pipe(d, NcclLines.realLine("ubuntu", "4802", readAt.plusMillis(i), NCCL_TESTS_166.get(i)));
      }
      tick(d, readAt.plusSeconds(30));
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals("socket_connect", alerts.get(0).getEvidence().get("failure"));
      assertEquals(NCCL_TESTS_166.get(0), alerts.get(0).getEvidence().get("line"));
    }
  }

  @ParameterizedTest(name = "{0}: {1} at {3}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        // https://github.com/Lightning-AI/pytorch-lightning/issues/14986
        "bootstrap | hpc-25-14 | hpc-25-14 | 2025-03-01T03:00:00Z | hpc-25-14:18569:18835 [0]"
            + " bootstrap.cc:131 NCCL WARN Bootstrap Root : rank 1 of 8 ranks has already checked in",
        // https://github.com/NVIDIA/nccl/issues/795
        "remote_exited | a100-st-p4d24xlarge-22 | a100-st-p4d24xlarge-22 | 2025-03-01T03:00:00Z"
            + " | a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to"
            + " recv from 10.200.84.247<58355> failed : Broken pipe",
        // https://github.com/NVIDIA/nccl/issues/914
        "proxy | host | host | 2025-03-01T03:00:00Z | host:22337:22400 [6] proxy.cc:862 NCCL WARN"
            + " Proxy Call to rank 14 failed (Connect)",
        // https://github.com/NVIDIA/nccl/issues/380
        "ib_verbs | spark01 | spark01 | 2025-03-01T03:00:00Z | spark01:2683:2826 [0]"
            + " misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed",
        // https://github.com/NVIDIA/nccl/issues/562
        "ib_verbs | hai-a100-3 | hai-a100-3 | 2025-03-01T03:00:00Z | hai-a100-3:3778851:3779883 [4]"
            + " ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed",
        // https://github.com/NVIDIA/nccl-tests/issues/252
        "ib_completion | kolyoz2 | kolyoz2 | 2025-03-01T03:00:00Z | kolyoz2:25146:25854 [0]"
            + " ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer 10.0.35.1<49189> with"
            + " error 4, opcode 5327, len 5327, vendor err 81 (Send)",
        // https://github.com/NVIDIA/nccl/issues/629
        "cuda | A03-R28-I49-2-6000166 | A03-R28-I49-2-6000166 | 2025-03-01T03:00:00Z"
            + " | A03-R28-I49-2-6000166:104934:104934 [1] init.cc:204 NCCL WARN Cuda failure 'an"
            + " illegal memory access was encountered'",
        // https://github.com/pytorch/ci-infra/pull/490 (the line's own timestamp)
        "shared_memory | mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow"
            + " | mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow | 2026-04-22T21:34:20Z"
            + " | [2026-04-22 21:34:20]"
            + " mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0]"
            + " misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to"
            + " 9637892 bytes, error: No space left on device (28)",
        // https://github.com/NVIDIA/nccl/issues/290
        "call_failed | gpu2-ru7 | gpu2-ru7 | 2025-03-01T03:00:00Z | gpu2-ru7:2143:2561 [1]"
            + " include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
        // application lines page the node that read the log
        // https://github.com/XPixelGroup/BasicSR/issues/737 (glog time, year from the read time)
        "collective_timeout | gpu017 | gpu017 | 2025-06-26T06:24:44.903Z | [rank1]:[E626"
            + " 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective"
            + " operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523,"
            + " NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
        // https://github.com/vllm-project/vllm/issues/4108
        "watchdog | gpu017 | gpu017 | 2025-03-01T03:00:00Z | [E ProcessGroupNCCL.cpp:916] [Rank 0]"
            + " NCCL watchdog thread terminated with exception: CUDA error: an illegal memory access"
            + " was encountered",
        // https://github.com/vllm-project/vllm/issues/6042
        "abort | gpu017 | gpu017 | 2025-03-01T03:00:00Z | (RayWorkerWrapper pid=4009)"
            + " [rank1]:[E ProcessGroupNCCL.cpp:583] [Rank 1] To avoid data inconsistency, we are"
            + " taking the entire process down.",
        // https://github.com/pytorch/pytorch/issues/149984
        "system_error | gpu017 | gpu017 | 2025-03-01T03:00:00Z | Collective WorkNCCL(SeqNum=2,"
            + " OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1000000) raised the following"
            + " async exception: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for"
            + " details), NCCL version 2.25.1",
        // https://github.com/EasonXiao-888/MambaTree/issues/14
        "internal_error | gpu017 | gpu017 | 2025-03-01T03:00:00Z | RuntimeError: NCCL error in:"
            + " ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201, internal error, NCCL"
            + " version 2.14.3",
        // https://github.com/NVIDIA/nccl/issues/1241 (title)
        "invalid_usage | gpu017 | gpu017 | 2025-03-01T03:00:00Z | NCCL error in:"
            + " /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, invalid"
            + " usage, NCCL version 2.17.1",
        // https://github.com/NVIDIA/nccl/issues/1928
        "remote_exited | gpu017 | gpu017 | 2025-03-01T03:00:00Z | [rank3]:"
            + " torch.distributed.DistBackendError: NCCL error in:"
            + " /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3763, remote"
            + " process exited or there was a network error, NCCL version 2.28.8",
      })
  void aFatalLineOfEachClassPagesOnceNamingTheClass(
      String failure,
      String pagedNode,
      String collectedOn,
      Instant at,
      String line,
      TestInfo info) {
    try (NcclDriver d = driver(info)) {
      pipe(d, NcclLines.realLine(collectedOn, "4803", at, line));
      tick(d, at.plusSeconds(30));
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert page = alerts.get(0);
      assertEquals(AlertKind.NCCL_ERROR, page.getKind());
      assertEquals(AlertState.FIRING, page.getState());
      assertEquals(pagedNode, page.getNode());
      assertEquals(at, page.getStartedAt());
      assertEquals(failure, page.getEvidence().get("failure"));
      assertEquals(line, page.getEvidence().get("line"));
      String description =
          io.fabricpulse.schemas.nccl.NcclFailureClass.valueOf(
                  failure.toUpperCase(java.util.Locale.ROOT))
              .description();
      assertTrue(
          page.getSummary().startsWith(pagedNode + " job 4803: NCCL " + description),
          page.getSummary());
    }
  }

  // https://github.com/scitix/sichek/issues/44, with the attrs the parser extracts from it
  private static final String SICHEK_COMPLETION =
      "[2026-01-04 21:33:04] test-ys-512-scaling-test-0104-1504-a7de2925-master-0:617:2799 [3]"
          + " transport/net_ib.cc:2360 NCCL WARN NET/IB: Got completion from peer"
          + " 172.16.234.184<53393> with status=12 opcode=1 len=5222 vendor err 129 (Send) localGid"
          + " ::ffff:100.123.200.87 remoteGids::ffff:100.123.200.74 hca mlx5_26";

  @Test
  void aTimestampedCompletionErrorPagesAtTheLinesTimeWithPeerAndStatus(TestInfo info) {
    Instant at = Instant.parse("2026-01-04T21:33:04Z");
    String host = "test-ys-512-scaling-test-0104-1504-a7de2925-master-0";
    Map<String, String> parsed = new LinkedHashMap<>();
    parsed.put("event", "completion_error");
    parsed.put("transport", "IB");
    parsed.put("peer", "172.16.234.184<53393>");
    parsed.put("status", "12");
    parsed.put("opcode", "1");
    parsed.put("len", "5222");
    parsed.put("vendor_err", "129");
    parsed.put("request", "Send");
    parsed.put("hca", "mlx5_26");
    try (NcclDriver d = driver(info)) {
      pipe(d, NcclLines.realLine(host, "4804", at, SICHEK_COMPLETION, parsed));
      tick(d, at.plusSeconds(120));
      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert page = alerts.get(0);
      assertEquals(at, page.getStartedAt());
      assertEquals("ib_completion", page.getEvidence().get("failure"));
      assertEquals("mlx5_26", page.getEvidence().get("hca"));
      assertEquals(
          host
              + " job 4804: NCCL completion error from peer 172.16.234.184<53393> (status 12,"
              + " vendor_err 129)",
          page.getSummary());
      assertEquals(at.plusSeconds(60), alerts.get(1).getResolvedAt());
    }
  }

  @Test
  void twoHostsFailingInOneJobLogAreOnePageEach(TestInfo info) {
    Instant readAt = Instant.parse("2025-03-01T03:00:00Z");
    try (NcclDriver d = driver(info)) {
      // https://github.com/NVIDIA/nccl/issues/629: one host loses its peer, the other hits a CUDA
      // fault; both lines are in the job log read on A03-R28-I49-2-6000166
      String node = "A03-R28-I49-2-6000166";
      pipe(
          d,
          NcclLines.realLine(
              node,
              "4805",
              readAt,
              "A03-R28-I49-3-9000018:46841:46987 [0] include/socket.h:428 NCCL WARN Net : Call to"
                  + " recv from 11.127.49.2<36048> failed : Connection reset by peer"),
          NcclLines.realLine(
              node,
              "4805",
              readAt.plusMillis(1),
              "A03-R28-I49-2-6000166:104934:104934 [1] init.cc:204 NCCL WARN Cuda failure 'an"
                  + " illegal memory access was encountered'"));
      tick(d, readAt.plusSeconds(30));
      List<Alert> pages = firing(d.readAlerts());
      assertEquals(2, pages.size(), pages.toString());
      assertEquals("A03-R28-I49-3-9000018", pages.get(0).getNode());
      assertEquals("remote_exited", pages.get(0).getEvidence().get("failure"));
      assertEquals(node, pages.get(0).getEvidence().get("collected_on"));
      assertEquals("A03-R28-I49-2-6000166", pages.get(1).getNode());
      assertEquals("cuda", pages.get(1).getEvidence().get("failure"));
    }
  }

  @Test
  void aFailureAfterTheFirstPageResolvedIsANewPage(TestInfo info) {
    Instant first = Instant.parse("2026-02-25T16:41:56Z");
    Instant rerun = first.plusSeconds(600);
    try (NcclDriver d = driver(info)) {
      pipe(d, NcclLines.realLine("tpgds-aihub0003", "4806", first, SGLANG_TP3));
      // the job is restarted and fails again; its error line has no timestamp (read at 16:51:56)
      pipe(d, NcclLines.realLine("tpgds-aihub0003", "4806", rerun, SGLANG_RUNTIME_ERROR));
      tick(d, rerun.plusSeconds(120));
      List<Alert> alerts = d.readAlerts();
      assertEquals(
          List.of(AlertState.FIRING, AlertState.RESOLVED, AlertState.FIRING, AlertState.RESOLVED),
          alerts.stream().map(Alert::getState).toList());
      assertEquals(first, alerts.get(0).getStartedAt());
      assertEquals(rerun, alerts.get(2).getStartedAt());
    }
  }

  @Test
  void nonFatalWarnsAndRetriesDoNotPage(TestInfo info) {
    Instant readAt = Instant.parse("2025-03-01T03:00:00Z");
    try (NcclDriver d = driver(info)) {
      pipe(
          d,
          // https://github.com/google/nccl-fastsocket/issues/4 ("The code runs despite the
          // warning")
          NcclLines.realLine(
              "full-debug2-test-1",
              "4807",
              readAt,
              "full-debug2-test-1:4024:4048 [0] net_fastsocket.cc:765 NCCL WARN Cannot get"
                  + " incoming CPU."),
          NcclLines.realLine(
              "full-debug2-test-0",
              "4807",
              readAt,
              "full-debug2-test-0:4300:4325 [0] net_fastsocket.cc:785 NCCL WARN Maximum retry"
                  + " reached for accept 3."),
          // https://github.com/pytorch/pytorch/issues/68893 (NCCL goes on over sockets), without
          // the terminal colour code in front of it
          NcclLines.realLine(
              "ip-172-31-0-137",
              "4807",
              readAt,
              "ip-172-31-0-137:14605:14673 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open"
                  + " libibverbs.so[.1]"));
      tick(d, readAt.plusSeconds(600));
      assertTrue(d.alerts.isEmpty(), () -> d.readAlerts().toString());
    }
  }
}
