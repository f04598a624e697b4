package io.fabricpulse.collectors.nvsmi;

import io.fabricpulse.collectors.core.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Runs the {@code nvidia-smi} binary (no shell) with a timeout: a GPU that fell off the bus can
 * make nvidia-smi hang for tens of seconds, and the collector must not hang with it.
 */
public final class CommandNvidiaSmiSource implements NvidiaSmiSource {
  private final String nvidiaSmi;
  private final Duration timeout;

  /**
   * @param nvidiaSmi path or name of the binary (resolved through PATH)
   * @param timeout how long one run may take before it is killed
   */
  public CommandNvidiaSmiSource(String nvidiaSmi, Duration timeout) {
    this.nvidiaSmi = nvidiaSmi;
    this.timeout = timeout;
  }

  @Override
  public String helpQueryGpu() throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(List.of(nvidiaSmi, "--help-query-gpu"), timeout);
  }

  @Override
  public String queryGpu(List<String> fields) throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(queryCommand(fields), timeout);
  }

  @Override
  public String queryAll() throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(List.of(nvidiaSmi, "-q"), timeout);
  }

  /** The argument vector of one CSV query. */
  public List<String> queryCommand(List<String> fields) {
    return List.of(
        nvidiaSmi, "--query-gpu=" + String.join(",", fields), "--format=csv,noheader,nounits");
  }
}
