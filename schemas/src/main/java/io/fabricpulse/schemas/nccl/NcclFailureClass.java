package io.fabricpulse.schemas.nccl;

import java.util.Locale;

/**
 * What failed, when a log line reports a fatal NCCL failure (see {@link NcclFailures} for the lines
 * of each class). The name in lower case is the {@code failure} evidence of an NCCL_ERROR alert;
 * the description is what its summary says.
 */
public enum NcclFailureClass {
  /** NCCL's bootstrap (rank discovery over TCP) failed: {@code Bootstrap : ...}, bootstrap.cc. */
  BOOTSTRAP("bootstrap failure"),
  /**
   * A TCP connect or accept gave up: {@code exceeded error retry count}, {@code Connect to ...
   * failed}.
   */
  SOCKET_CONNECT("socket connect failure"),
  /** The peer closed or reset the connection, or NCCL says a remote process exited. */
  REMOTE_EXITED("remote process exited or network error"),
  /** A proxy operation failed: {@code [Proxy Service N] Failed to execute operation ...}. */
  PROXY("proxy operation failed"),
  /** A collective ran past its timeout (PyTorch ProcessGroupNCCL watchdog). */
  COLLECTIVE_TIMEOUT("collective timeout"),
  /** NCCL itself reports a timeout in a WARN line. */
  TIMEOUT("timeout"),
  /** The ProcessGroupNCCL watchdog caught an error (not a timeout) and took the process down. */
  WATCHDOG("watchdog exception"),
  /** The communicator was aborted ({@code NCCL communicator was aborted}, ncclCommAbort). */
  ABORT("communicator aborted"),
  /** {@code unhandled system error} / ncclSystemError. */
  SYSTEM_ERROR("unhandled system error"),
  /** {@code internal error} / ncclInternalError. */
  INTERNAL_ERROR("internal error"),
  /** {@code invalid usage} / ncclInvalidUsage. */
  INVALID_USAGE("invalid usage"),
  /** An IB verbs call failed: {@code Call to ibv_create_qp failed}. */
  IB_VERBS("IB verbs call failed"),
  /** A work completion with an error status: {@code Got completion from peer ... status=12}. */
  IB_COMPLETION("IB completion error"),
  /** A CUDA call failed inside NCCL: {@code Cuda failure 'an illegal memory access ...'}. */
  CUDA("CUDA failure"),
  /** A shared-memory segment could not be created or attached ({@code /dev/shm} full). */
  SHARED_MEMORY("shared memory failure"),
  /** Another library or system call failed: {@code Call to ... failed}. */
  CALL_FAILED("call failed");

  private final String description;

  NcclFailureClass(String description) {
    this.description = description;
  }

  /** Human wording for summaries, e.g. "bootstrap failure". */
  public String description() {
    return description;
  }

  /** The evidence value, e.g. {@code socket_connect}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }
}
