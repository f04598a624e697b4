package io.fabricpulse.collectors.sim;

import java.util.List;

/** A followed log file of a simulated host (the OpenSM log), shaped like a tailer's poll. */
public interface LogLineSource {

  /** Complete lines written since the previous call, without line terminators. */
  List<String> poll();
}
