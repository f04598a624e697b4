package io.fabricpulse.collectors.nccl;

import java.util.List;

/** Where NCCL log lines come from: the {@link NcclLogTailer} on a node, or the fabric simulator. */
public interface NcclLineSource {

  /** Lines the node's NCCL processes wrote since the previous call, with file and line number. */
  List<NcclLogLine> poll();
}
