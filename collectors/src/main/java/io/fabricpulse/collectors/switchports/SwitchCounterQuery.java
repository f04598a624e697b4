package io.fabricpulse.collectors.switchports;

import java.io.IOException;
import java.util.List;

/** Where a switch's port counters come from: perfquery run on the SM or management host. */
public interface SwitchCounterQuery {
  /**
   * The text perfquery prints for {@code ports} of the switch at {@code lid}.
   *
   * @param extended PortCountersExtended ({@code -x}) rather than PortCounters
   * @throws IOException when perfquery cannot run, fails or exceeds its timeout
   */
  String query(int lid, List<Integer> ports, boolean extended)
      throws IOException, InterruptedException;
}
