package io.fabricpulse.collectors.lldp;

import io.fabricpulse.collectors.core.CommandRunner;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Runs lldpd's {@code lldpcli} (no shell) with a timeout. lldpcli only asks the local lldpd over
 * its control socket ({@code /run/lldpd.socket}, group {@code _lldpd}): it sends no frame, so
 * reading it often costs the network nothing.
 */
public final class CommandLldpSource implements LldpSource {
  private final String lldpcli;
  private final Duration timeout;

  public CommandLldpSource(String lldpcli, Duration timeout) {
    this.lldpcli = lldpcli;
    this.timeout = timeout;
  }

  public List<String> neighborsCommand() {
    return List.of(lldpcli, "-f", "keyvalue", "show", "neighbors", "details");
  }

  @Override
  public String neighbors() throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(neighborsCommand(), timeout);
  }

  @Override
  public String chassis() throws IOException, InterruptedException {
    return CommandRunner.stdoutOf(List.of(lldpcli, "-f", "keyvalue", "show", "chassis"), timeout);
  }
}
