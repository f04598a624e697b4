package io.fabricpulse.collectors.topology;

import io.fabricpulse.collectors.core.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@code ibnetdiscover -p} or {@code iblinkinfo -l} (no shell) with a timeout. The agent
 * starts a sweep only when the previous one has finished, so one collector never has two sweeps in
 * the fabric at once; a sweep that hangs (an SM that stopped answering) is killed at the timeout.
 */
public final class CommandFabricSweep implements FabricSweepSource {
  private final List<String> command;
  private final Duration timeout;

  public CommandFabricSweep(String executable, List<String> args, Duration timeout) {
    List<String> all = new ArrayList<>();
    all.add(executable);
    all.addAll(args);
    this.command = List.copyOf(all);
    this.timeout = timeout;
  }

  public List<String> command() {
    return command;
  }

  @Override
  public String sweep() throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(command, timeout);
  }
}
