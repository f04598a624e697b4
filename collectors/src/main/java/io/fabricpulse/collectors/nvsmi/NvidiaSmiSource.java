package io.fabricpulse.collectors.nvsmi;

import java.io.IOException;
import java.util.List;

/** Runs nvidia-smi on the node; tests and the simulator substitute canned output. */
public interface NvidiaSmiSource {

  /** {@code nvidia-smi --help-query-gpu}. */
  String helpQueryGpu() throws IOException, InterruptedException;

  /** {@code nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits}. */
  String queryGpu(List<String> fields) throws IOException, InterruptedException;

  /** {@code nvidia-smi -q}, the fallback when the query interface fails. */
  String queryAll() throws IOException, InterruptedException;
}
