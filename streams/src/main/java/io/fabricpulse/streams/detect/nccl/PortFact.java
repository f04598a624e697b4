package io.fabricpulse.streams.detect.nccl;

/**
 * What the NCCL detector knows about one RDMA port of a node, from its fabric.rates PORT records.
 *
 * @param state logical state of the latest record (ACTIVE, DOWN, INIT, ...), null when not reported
 * @param physState physical state of the latest record (LinkUp, Polling, ...), may be null
 * @param linkLayer InfiniBand or Ethernet (RoCE), may be null
 * @param seenAt event time of the latest record, ms
 * @param lastNonActiveState the latest state other than ACTIVE seen, null if never
 * @param lastNonActiveAt event time of that record, ms, or {@link #NEVER}
 * @param linkDownedAt event time of the latest link_downed increase (tag normal or wrap), or {@link
 *     #NEVER}
 * @param linkDownedDelta that increase
 */
record PortFact(
    String state,
    String physState,
    String linkLayer,
    long seenAt,
    String lastNonActiveState,
    long lastNonActiveAt,
    long linkDownedAt,
    long linkDownedDelta) {

  static final long NEVER = Long.MIN_VALUE;

  static final String ACTIVE = "ACTIVE";

  boolean active() {
    return ACTIVE.equalsIgnoreCase(state);
  }
}
