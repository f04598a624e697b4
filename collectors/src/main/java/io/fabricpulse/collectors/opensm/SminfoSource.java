package io.fabricpulse.collectors.opensm;

import java.io.IOException;

/** Runs {@code sminfo} on the node; tests and the simulator substitute canned output. */
public interface SminfoSource {

  /** One poll of the subnet manager. An exception means the tool could not be run at all. */
  SminfoOutput run() throws IOException, InterruptedException;
}
