package io.fabricpulse.streams.detect.sm;

import java.util.List;
import java.util.Map;

/**
 * What the SM detectors remember about one cluster, in event time.
 *
 * @param master the current master, null until one was seen
 * @param masterSeenAt event time of the latest MASTER confirmation (sminfo answer or master log)
 * @param firstMissAt event time of the first sminfo poll (or master step-down) without a MASTER
 *     answer since then; {@link #NONE} while the master answers
 * @param pollers per sminfo poller node: the activity count it last saw and how many MASTER answers
 *     in a row did not increase it
 * @param sweeps heavy sweeps logged within the longest SM_UNSTABLE window, oldest first
 */
record SmClusterState(
    SmMaster master,
    long masterSeenAt,
    long firstMissAt,
    Map<String, PollerActivity> pollers,
    List<Sweep> sweeps) {

  static final long NONE = Long.MIN_VALUE;

  static final SmClusterState EMPTY = new SmClusterState(null, NONE, NONE, Map.of(), List.of());

  SmClusterState {
    pollers = Map.copyOf(pollers);
    sweeps = List.copyOf(sweeps);
  }

  /** The activity count one poller saw from one master. */
  record PollerActivity(String masterGuid, long activityCount, int stalePolls) {}

  /** One logged heavy sweep; forced = "Forcing heavy sweep. Received trap/signal" [OSM-trap]. */
  record Sweep(long time, boolean forced, Integer trap) {}
}
