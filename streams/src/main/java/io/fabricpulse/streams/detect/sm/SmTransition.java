package io.fabricpulse.streams.detect.sm;

import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.streams.detect.sm.SmClusterState.PollerActivity;
import io.fabricpulse.streams.detect.sm.SmClusterState.Sweep;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How one SM record changes a cluster's {@link SmClusterState} (a pure function), and what it
 * showed: a failover, a confirmation of the current master, or neither.
 *
 * <ul>
 *   <li>sminfo answering state MASTER [SMINFO]: the first answer establishes the master; a
 *       different GUID or LID afterwards is a failover (docs/formats.md, sminfo; docs/thresholds.md
 *       S1).
 *   <li>{@code Entering MASTER state} logged by a host other than the known master host [OSM-sm] is
 *       a failover; when the master is known only by GUID (no log seen from it yet), a MASTER log
 *       counts as a failover only if the master had been missing, else it names the master's host.
 *   <li>an sminfo poll that fails or answers another state, or the master host logging a non-MASTER
 *       state or {@code SM port is down}, is a miss: the start of a possible absence. A standby
 *       logging DISCOVERING/STANDBY is neither (it is not the master).
 *   <li>a record older than the latest MASTER confirmation is stale evidence and never changes the
 *       master or starts a miss (only its heavy sweep counts). In order this cannot happen; it
 *       guards the records of a source that lagged past source_timeout ({@link SmSourceClocks}).
 * </ul>
 */
record SmTransition(SmClusterState state, SmMaster failedOver, boolean confirmsMaster) {

  static final String MASTER = "MASTER";

  /**
   * @param keepSweepsMs how long heavy sweeps are kept (the longest SM_UNSTABLE window)
   */
  static SmTransition apply(SmClusterState before, SmSweep r, long keepSweepsMs) {
    long t = r.getTime().toEpochMilli();
    SmMaster master = before.master();
    long seenAt = before.masterSeenAt();
    long missAt = before.firstMissAt();
    Map<String, PollerActivity> pollers = new HashMap<>(before.pollers());
    List<Sweep> sweeps = new ArrayList<>();
    for (Sweep s : before.sweeps()) {
      if (t - s.time() < keepSweepsMs) {
        sweeps.add(s);
      }
    }
    SmMaster oldMaster = null;
    boolean confirms = false;
    boolean stale = seenAt != SmClusterState.NONE && t < seenAt;

    if (stale) {
      // older than what we know of the master: it cannot say who the master is now
    } else if (r.getSource() == SmSource.SMINFO) {
      boolean answeredMaster =
          r.getEvent() == SmEventKind.SMINFO_POLL && MASTER.equals(r.getSmState());
      if (answeredMaster) {
        if (master == null) {
          master = new SmMaster(r.getSmGuid(), r.getSmLid(), null);
        } else if (master.differsFrom(r.getSmGuid(), r.getSmLid())) {
          oldMaster = master;
          master = new SmMaster(r.getSmGuid(), r.getSmLid(), null);
        } else {
          master = master.withAnswer(r.getSmGuid(), r.getSmLid());
        }
        seenAt = t;
        missAt = SmClusterState.NONE;
        confirms = oldMaster == null;
        updatePoller(pollers, r);
      } else if (master != null && missAt == SmClusterState.NONE) {
        missAt = t;
      }
    } else if (r.getEvent() == SmEventKind.STATE_CHANGE && MASTER.equals(r.getSmState())) {
      String host = r.getNode();
      if (master == null) {
        master = new SmMaster(null, null, host);
      } else if (master.host() != null && !master.host().equals(host)) {
        oldMaster = master;
        master = new SmMaster(null, null, host);
      } else if (master.host() == null && missAt != SmClusterState.NONE) {
        oldMaster = master;
        master = new SmMaster(null, null, host);
      } else {
        master = new SmMaster(master.guid(), master.lid(), host);
      }
      seenAt = t;
      missAt = SmClusterState.NONE;
      confirms = oldMaster == null;
    } else if (master != null && r.getNode().equals(master.host())) {
      boolean steppedDown =
          r.getEvent() == SmEventKind.SM_PORT_DOWN || r.getEvent() == SmEventKind.STATE_CHANGE;
      if (steppedDown) {
        if (missAt == SmClusterState.NONE) {
          missAt = t;
        }
      } else if (missAt == SmClusterState.NONE) {
        // the master host logging its work (sweeps, SUBNET UP) is alive
        seenAt = t;
        confirms = true;
      }
    }
    if (r.getEvent() == SmEventKind.HEAVY_SWEEP || r.getEvent() == SmEventKind.FORCED_HEAVY_SWEEP) {
      sweeps.add(new Sweep(t, r.getEvent() == SmEventKind.FORCED_HEAVY_SWEEP, r.getTrap()));
    }
    SmClusterState after = new SmClusterState(master, seenAt, missAt, pollers, sweeps);
    return new SmTransition(after, oldMaster, confirms);
  }

  /** Whether this record showed a failover; the old master is {@link #failedOver()}. */
  boolean isFailover() {
    return failedOver != null;
  }

  private static void updatePoller(Map<String, PollerActivity> pollers, SmSweep r) {
    Long count = r.getActivityCount();
    if (count == null) {
      return;
    }
    PollerActivity prev = pollers.get(r.getNode());
    String guid = r.getSmGuid();
    int stale = 0;
    if (prev != null
        && java.util.Objects.equals(prev.masterGuid(), guid)
        && count == prev.activityCount()) {
      stale = prev.stalePolls() + 1;
    }
    // a decrease is a restarted SM or a 32-bit wrap [SMINFO]: a new baseline, not a hang
    pollers.put(r.getNode(), new PollerActivity(guid, count, stale));
  }
}
