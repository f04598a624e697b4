package io.fabricpulse.collectors.sim;

import io.fabricpulse.collectors.nccl.NcclLogLine;
import java.util.List;

/** The NCCL job logs of one simulated node, shaped like {@code NcclLogTailer.poll()}. */
public interface NcclLineSource {

  /** Lines the node's NCCL processes wrote since the previous call, with file and line number. */
  List<NcclLogLine> poll();
}
