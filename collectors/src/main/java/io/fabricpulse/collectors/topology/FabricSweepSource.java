package io.fabricpulse.collectors.topology;

import java.io.IOException;

/** Where a topology sweep's text comes from: ibnetdiscover or iblinkinfo run on the SM host. */
public interface FabricSweepSource {
  /** One sweep's output; throws when the tool cannot run, fails or exceeds its timeout. */
  String sweep() throws IOException, InterruptedException;
}
