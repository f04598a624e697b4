package io.fabricpulse.schemas.nccl;

import io.fabricpulse.avro.NcclLog;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one place that decides whether a log line reports a fatal NCCL failure, and of which {@link
 * NcclFailureClass}. The collectors' parser uses it to keep application lines that report one (and
 * to tag records), the streams detector to raise NCCL_ERROR; both call the same functions, so a
 * replay of old records with a newer classification gives the same answer in both places.
 *
 * <p>Two kinds of line count:
 *
 * <ul>
 *   <li>{@code NCCL WARN} messages ({@link #ofWarn}) that say a call failed for good: a completion
 *       error, a failed {@code ibv_*} call, bootstrap, a connect that exhausted its retries, a peer
 *       that closed the connection, a failed proxy operation, CUDA, system or internal errors,
 *       timeouts, aborts, {@code Call to ... failed}. A WARN that matches none of these (NCCL also
 *       warns about tuning, topology and plugins it can live without), or that says it is {@code
 *       retrying}, is not a failure. INFO lines never are: NCCL prints retries ({@code retrying
 *       (1/34)}) and error-return traces ({@code misc/socket.cc:564 -> 2}) at INFO after the WARN
 *       that counts.
 *   <li>Lines of the application around NCCL ({@link #ofApplicationLine}): PyTorch ProcessGroupNCCL
 *       watchdog timeouts, watchdog exceptions and aborts, {@code
 *       torch.distributed.DistBackendError: NCCL error in: ..., <reason>}, {@code
 *       ncclSystemError:}-style reason lines, and nccl-tests' {@code Test NCCL failure ...
 *       '<reason>'}. Python source lines that merely mention NCCL errors ({@code raise
 *       RuntimeError(f"NCCL error: {error_str}")}) carry no reason and do not count.
 * </ul>
 *
 * Patterns are tried in order and the first that matches decides, so a line naming both a specific
 * and a generic cause (a watchdog exception caused by a collective timeout) gets the specific one.
 */
public final class NcclFailures {

  private record Rule(NcclFailureClass failure, Pattern pattern) {
    static Rule of(NcclFailureClass failure, String regex) {
      return new Rule(failure, Pattern.compile(regex));
    }
  }

  /** NCCL WARN messages, most specific first. */
  private static final List<Rule> WARN =
      List.of(
          // net_ib.cc / p2p.cc: "NET/IB : Got completion from peer %s with error %d, ..." (up to
          // 2.18), "... with status=%d ..." (2.19+), "... with status=%s(%d) ..." (2.30); OFI
          // plugins print "NET/OFI Request 0x... completed with error".
          Rule.of(
              NcclFailureClass.IB_COMPLETION,
              "Got completion from peer \\S+ with (?:error|status)|\\bcompleted with error\\b"),
          // ibvwrap.cc: "Call to ibv_create_qp failed", "ibv_modify_qp failed with 110 ..."
          Rule.of(NcclFailureClass.IB_VERBS, "\\bibv_\\w+(?:\\(\\))? failed"),
          // bootstrap.cc: "Bootstrap : no socket interface found", "Bootstrap Root : mismatch ..."
          Rule.of(NcclFailureClass.BOOTSTRAP, "^(?i:bootstrap)\\b"),
          // misc/socket.cc, os/linux.cc: "socketPollConnect: connect returned Connection refused,
          // exceeded error retry count (35)", "ncclOsSocketPollConnect: connect to %s returned %s,
          // exceeded error retry count after %d attempts", "socketStartConnect: Connect to %s
          // failed : %s", "socketStartConnect: exceeded timeouts (3)"
          Rule.of(
              NcclFailureClass.SOCKET_CONNECT,
              "exceeded error retry count|exceeded timeouts|\\b[Cc]onnect to \\S+ failed"),
          // "socketProgress: Connection closed by remote peer %s", "Net : Call to recv from %s
          // failed : Broken pipe", "Socket recv failed while polling for opId=..."
          Rule.of(
              NcclFailureClass.REMOTE_EXITED,
              "Connection closed by remote peer|Connection reset by peer|Broken pipe"
                  + "|Call to recv from \\S+ failed|Socket recv failed|remote process exited"),
          // proxy.cc: "[Proxy Service %d] Failed to execute operation %s from rank %d, retcode %d",
          // "Proxy Call to rank %d failed (%s)"
          Rule.of(
              NcclFailureClass.PROXY,
              "Failed to execute operation|Proxy Call to rank \\d+ failed"
                  + "|\\[Service thread\\] Error encountered"),
          // "Cuda failure 'an illegal memory access was encountered'", "Cuda failure 700 '...'"
          Rule.of(NcclFailureClass.CUDA, "\\bCuda failure\\b|\\bCUDA error\\b"),
          Rule.of(NcclFailureClass.SYSTEM_ERROR, "unhandled system error"),
          Rule.of(NcclFailureClass.INTERNAL_ERROR, "\\binternal error\\b"),
          Rule.of(NcclFailureClass.TIMEOUT, "(?i)\\btime(?:d)? ?out\\b"),
          Rule.of(NcclFailureClass.ABORT, "\\bncclCommAbort\\b|\\b(?i:aborted)\\b"),
          // shmutils.cc: "Error: failed to extend /dev/shm/nccl-... to %zu bytes", "Error while
          // creating shared memory segment %s (size %zu)", "Error while attaching to shared memory
          // segment"
          Rule.of(
              NcclFailureClass.SHARED_MEMORY,
              "shared memory segment|failed to extend /dev/shm/|Unable to allocate shared memory"),
          // "Call to posix_fallocate failed : No space left on device" and other system calls
          Rule.of(NcclFailureClass.CALL_FAILED, "\\bCall to \\S+ failed"));

  /**
   * A WARN that says it retries is not the failure yet: "Timeout waiting for RX (waited 120 sec) -
   * retrying" is documented as non-fatal (AWS Neuron SDK, torch-neuronx training troubleshooting).
   */
  private static final Pattern RETRYING = Pattern.compile("\\bretrying\\b");

  /** A WARN printed from bootstrap.cc ({@code file:line}, any directory). */
  private static final Pattern BOOTSTRAP_SOURCE = Pattern.compile("(?:^|/)bootstrap\\.cc:\\d+$");

  /** Application lines, most specific first. */
  private static final List<Rule> APPLICATION =
      List.of(
          // ProcessGroupNCCL.cpp: "[Rank 0] Watchdog caught collective operation timeout:
          // WorkNCCL(...) ran for 600060 milliseconds before timing out.", "Timeout at NCCL work"
          Rule.of(
              NcclFailureClass.COLLECTIVE_TIMEOUT,
              "Watchdog caught collective operation timeout|\\bTimeout at NCCL work\\b"),
          Rule.of(
              NcclFailureClass.ABORT,
              "NCCL communicator was aborted|\\bncclCommAbort\\b"
                  + "|To avoid data inconsistency, we are taking the entire process down"),
          Rule.of(
              NcclFailureClass.WATCHDOG,
              "watchdog thread terminated with exception"
                  + "|Exception \\(either an error or timeout\\) detected by watchdog"
                  + "|Some NCCL operations have failed or timed out"),
          // The reason of "NCCL error in: <file>:<line>, <reason>, NCCL version ...", of
          // nccl-tests' "Test NCCL failure common.cu:958 '<reason>'", and of the ncclResult_t line
          // that follows.
          Rule.of(
              NcclFailureClass.REMOTE_EXITED,
              "(?:NCCL error\\b|Test NCCL failure\\b).*remote process exited"
                  + "|\\bncclRemoteError\\b:"),
          Rule.of(
              NcclFailureClass.SYSTEM_ERROR,
              "(?:NCCL error\\b|Test NCCL failure\\b).*unhandled system error"
                  + "|\\bncclSystemError\\b:"),
          Rule.of(
              NcclFailureClass.INTERNAL_ERROR,
              "(?:NCCL error\\b|Test NCCL failure\\b).*internal error|\\bncclInternalError\\b:"),
          Rule.of(
              NcclFailureClass.CUDA,
              "(?:NCCL error\\b|Test NCCL failure\\b).*unhandled cuda error"
                  + "|\\bncclUnhandledCudaError\\b:"),
          Rule.of(
              NcclFailureClass.INVALID_USAGE,
              "(?:NCCL error\\b|Test NCCL failure\\b).*invalid (?:usage|argument)"
                  + "|\\bncclInvalid(?:Usage|Argument)\\b:"));

  private NcclFailures() {}

  /** The failure an {@code NCCL WARN} message reports, or empty when it is not fatal. */
  public static Optional<NcclFailureClass> ofWarn(String message) {
    return ofWarn(message, null);
  }

  /**
   * The failure an {@code NCCL WARN} message reports, or empty when it is not fatal.
   *
   * @param source the {@code file:line} NCCL printed before the level ({@code bootstrap.cc:279}),
   *     or null: any WARN out of bootstrap.cc is a bootstrap failure ({@code [Rem Allocator]
   *     Allocation failed}), unless the message names a more specific class first
   */
  public static Optional<NcclFailureClass> ofWarn(String message, String source) {
    if (message != null && RETRYING.matcher(message).find()) {
      return Optional.empty(); // NCCL (or its plugin) goes on: "... - retrying"
    }
    Optional<NcclFailureClass> byMessage = first(WARN, message);
    if (byMessage.isPresent() && byMessage.get() != NcclFailureClass.CALL_FAILED) {
      return byMessage;
    }
    if (source != null && BOOTSTRAP_SOURCE.matcher(source).find()) {
      return Optional.of(NcclFailureClass.BOOTSTRAP);
    }
    return byMessage;
  }

  /** The failure a line of the application around NCCL reports, or empty. */
  public static Optional<NcclFailureClass> ofApplicationLine(String text) {
    return first(APPLICATION, text);
  }

  /**
   * The failure a parsed record reports: its message classified by {@link #ofWarn} for WARN
   * records, by {@link #ofApplicationLine} for {@link NcclKind#APP_ERROR} records; empty otherwise.
   */
  public static Optional<NcclFailureClass> of(NcclLog record) {
    String kind = record.getKind();
    if (NcclKind.WARN.name().equals(kind)) {
      return ofWarn(record.getMessage(), record.getAttrs().get("src"));
    }
    if (NcclKind.APP_ERROR.name().equals(kind)) {
      return ofApplicationLine(record.getMessage());
    }
    return Optional.empty();
  }

  private static Optional<NcclFailureClass> first(List<Rule> rules, String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    for (Rule rule : rules) {
      if (rule.pattern().matcher(text).find()) {
        return Optional.of(rule.failure());
      }
    }
    return Optional.empty();
  }
}
