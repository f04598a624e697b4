package io.fabricpulse.schemas.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The failure classes of real lines from public issue threads. Each row is the message as the
 * parser hands it over (for WARN lines the text after {@code NCCL WARN }, for application lines the
 * whole line); the origin of each is cited next to it.
 */
class NcclFailuresTest {

  @ParameterizedTest(name = "WARN {1} <- {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      nullValues = "none",
      value = {
        // https://github.com/devopsrustem/slurmv4 (sglang session log, the line of issue 7)
        "ncclOsSocketPollConnect: connect to 10.82.101.249<37857> returned Connection refused,"
            + " exceeded error retry count after 35 attempts | SOCKET_CONNECT",
        // https://github.com/NVIDIA/nccl-tests/issues/166
        "socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort"
            + " | SOCKET_CONNECT",
        // https://github.com/deepseek-ai/DeepEP/issues/86 (NCCL's socket code, as NVSHMEM prints
        // it)
        "socketStartConnect: exceeded timeouts (3) | SOCKET_CONNECT",
        // https://github.com/NVIDIA/nccl-tests/issues/166
        "socketProgress: Connection closed by remote peer node1<57557> | REMOTE_EXITED",
        "Socket recv failed while polling for opId=0x7f6f18cb7f40 | REMOTE_EXITED",
        "[Proxy Service 0] Failed to execute operation Connect from rank 0, retcode 2 | PROXY",
        // https://github.com/NVIDIA/nccl/issues/795
        "Net : Call to recv from 10.200.84.247<58355> failed : Broken pipe | REMOTE_EXITED",
        // https://github.com/NVIDIA/nccl/issues/914
        "Proxy Call to rank 14 failed (Connect) | PROXY",
        // https://github.com/NVIDIA/nccl/issues/380
        "Call to ibv_create_cq failed | IB_VERBS",
        // https://github.com/NVIDIA/nccl/issues/562
        "Call to ibv_create_qp failed | IB_VERBS",
        // https://github.com/scitix/sichek/issues/44
        "NET/IB: Got completion from peer 172.16.234.184<53393> with status=12 opcode=1 len=5222"
            + " vendor err 129 (Send) localGid ::ffff:100.123.200.87 remoteGids::ffff:100.123.200.74"
            + " hca mlx5_26 | IB_COMPLETION",
        // https://github.com/NVIDIA/nccl-tests/issues/252
        "NET/IB : Got completion from peer 10.0.35.1<49189> with error 4, opcode 5327, len 5327,"
            + " vendor err 81 (Send) | IB_COMPLETION",
        // https://github.com/NVIDIA/nccl/issues/629
        "Cuda failure 'an illegal memory access was encountered' | CUDA",
        // https://github.com/vllm-project/vllm/issues/19890 (title)
        "Cuda failure 700 'an illegal memory access was encountered' | CUDA",
        // https://github.com/NVIDIA/nccl/issues/1837 (the WARN that issue proposes)
        "Bootstrap : no NCCL_SOCKET_IFNAME interface found | BOOTSTRAP",
        // https://github.com/pytorch/ci-infra/pull/490
        "Error: failed to extend /dev/shm/nccl-WU88OE to 9637892 bytes, error: No space left on"
            + " device (28) | SHARED_MEMORY",
        "Error while creating shared memory segment /dev/shm/nccl-WU88OE (size 9637888), error: No"
            + " space left on device (28) | SHARED_MEMORY",
        // https://github.com/NVIDIA/nccl/issues/290
        "Call to posix_fallocate failed : No space left on device | CALL_FAILED",
        // not fatal: https://github.com/google/nccl-fastsocket/issues/4 ("The code runs despite
        // the warning")
        "Cannot get incoming CPU. | none",
        "Maximum retry reached for accept 3. | none",
        // not fatal, documented as such: https://github.com/aws-neuron/aws-neuron-sdk/blob/master/
        // frameworks/torch/torch-neuronx/training-troubleshooting.rst
        "Timeout waiting for RX (waited 120 sec) - retrying | none",
        // not fatal: https://github.com/pytorch/pytorch/issues/68893 (NCCL goes on with sockets)
        "Failed to open libibverbs.so[.1] | none",
      })
  void warnMessages(String message, NcclFailureClass expected) {
    assertEquals(Optional.ofNullable(expected), NcclFailures.ofWarn(message.strip()));
  }

  @ParameterizedTest(name = "WARN from {1}: {2} <- {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        // https://github.com/Lightning-AI/pytorch-lightning/issues/14986
        "Bootstrap Root : rank 1 of 8 ranks has already checked in | bootstrap.cc:131 | BOOTSTRAP",
        // https://github.com/NVIDIA/nccl/issues/847 (title)
        "[Rem Allocator] Allocation failed (segment 0, fd 130) | bootstrap.cc:279 | BOOTSTRAP",
        // https://github.com/devopsrustem/slurmv4: the socket code says what failed
        "ncclOsSocketPollConnect: connect to 10.82.101.249<37857> returned Connection refused,"
            + " exceeded error retry count after 35 attempts | os/linux.cc:200 | SOCKET_CONNECT",
      })
  void warnMessagesWithTheirSource(String message, String source, NcclFailureClass expected) {
    assertEquals(Optional.of(expected), NcclFailures.ofWarn(message, source));
  }

  @ParameterizedTest(name = "app {1} <- {0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      nullValues = "none",
      value = {
        // https://github.com/XPixelGroup/BasicSR/issues/737
        "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught"
            + " collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE,"
            + " NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds"
            + " before timing out. | COLLECTIVE_TIMEOUT",
        "[rank1]:[E626 06:24:44.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID"
            + " 0(default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at"
            + " work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807. | WATCHDOG",
        // https://github.com/sgl-project/sglang/issues/1693
        "  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception: [Rank 5]"
            + " Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9141,"
            + " OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=152064, Timeout(ms)=600000) ran for"
            + " 600020 milliseconds before timing out. | COLLECTIVE_TIMEOUT",
        // https://github.com/vllm-project/vllm/issues/4108
        "[E ProcessGroupNCCL.cpp:916] [Rank 0] NCCL watchdog thread terminated with exception:"
            + " CUDA error: an illegal memory access was encountered | WATCHDOG",
        // https://github.com/tatsu-lab/stanford_alpaca/issues/207
        "[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process"
            + " down. | ABORT",
        // https://github.com/PeterGriffinJin/Search-R1/issues/170 (title)
        "NCCL communicator was aborted on rank 0 | ABORT",
        // https://github.com/pytorch/pytorch/issues/149984
        "Collective WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, NumelOut=1,"
            + " Timeout(ms)=1000000) raised the following async exception: NCCL error: unhandled"
            + " system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1"
            + " | SYSTEM_ERROR",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or"
            + " device error.  | SYSTEM_ERROR",
        // https://github.com/EasonXiao-888/MambaTree/issues/14
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201,"
            + " internal error, NCCL version 2.14.3 | INTERNAL_ERROR",
        "ncclInternalError: Internal check failed. | INTERNAL_ERROR",
        // https://github.com/NVIDIA/nccl/issues/1928
        "[rank3]: torch.distributed.DistBackendError: NCCL error in:"
            + " /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3763, remote"
            + " process exited or there was a network error, NCCL version 2.28.8 | REMOTE_EXITED",
        "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote"
            + " process exiting prematurely. | REMOTE_EXITED",
        // https://github.com/NVIDIA/nccl-tests/issues/166 (title)
        "Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL"
            + " developers / ' | INTERNAL_ERROR",
        // https://github.com/NVIDIA/nccl/issues/1241 (title)
        "NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287,"
            + " invalid usage, NCCL version 2.17.1 | INVALID_USAGE",
        // Python source in a traceback (https://github.com/devopsrustem/slurmv4): no reason, no
        // failure
        "    raise RuntimeError(f\"NCCL error: {error_str}\") | none",
        "[2026-02-25 16:41:56] Received sigquit from a child process. It usually means the child"
            + " failed. | none",
      })
  void applicationLines(String line, NcclFailureClass expected) {
    assertEquals(
        Optional.ofNullable(expected), NcclFailures.ofApplicationLine(line.stripTrailing()));
  }
}
