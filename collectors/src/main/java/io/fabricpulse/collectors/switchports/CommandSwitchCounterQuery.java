package io.fabricpulse.collectors.switchports;

import io.fabricpulse.collectors.core.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs {@code perfquery [-x] <lid> <port>,<port>,...} (no shell) with a timeout: one PerfMgt GMP
 * per listed port, the comma list perfquery accepts for PortCounters and PortCountersExtended
 * [PQ-man]. A switch is one process, and the sweep asks one switch at a time.
 */
public final class CommandSwitchCounterQuery implements SwitchCounterQuery {
  private final String executable;
  private final Duration timeout;

  public CommandSwitchCounterQuery(String executable, Duration timeout) {
    this.executable = executable;
    this.timeout = timeout;
  }

  /** The command line for one switch, e.g. {@code perfquery -x 1 1,2,7,8}. */
  public List<String> command(int lid, List<Integer> ports, boolean extended) {
    List<String> command = new ArrayList<>();
    command.add(executable);
    if (extended) {
      command.add("-x");
    }
    command.add(Integer.toString(lid));
    command.add(ports.stream().map(String::valueOf).collect(Collectors.joining(",")));
    return command;
  }

  @Override
  public String query(int lid, List<Integer> ports, boolean extended)
      throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(command(lid, ports, extended), timeout);
  }
}
