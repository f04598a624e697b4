package io.fabricpulse.collectors.topology;

import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.LinkPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Pure comparison of two topology sweeps of one collector.
 *
 * <p>A link in the new sweep only APPEARED, one in the old sweep only DISAPPEARED, one in both with
 * another width or speed at either end RENEGOTIATED (the dirty-fibre symptom: 4x to 2x, NDR to
 * HDR). Other differences (a LID reassigned by the SM, a renamed node) change no link state: they
 * update fabric.topology without a change record. The first sweep after a start has nothing to
 * compare with: it publishes every link and no change.
 */
public final class TopologyDiffer {
  private TopologyDiffer() {}

  /** The first sweep: every link to fabric.topology, no change log. */
  public static TopologyDiff baseline(TopologySnapshot first) {
    return new TopologyDiff(new ArrayList<>(first.links().values()), List.of(), List.of());
  }

  public static TopologyDiff diff(TopologySnapshot previous, TopologySnapshot current) {
    List<FabricLink> upserts = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    List<FabricLinkChange> changes = new ArrayList<>();
    TreeSet<String> ids = new TreeSet<>(previous.links().keySet());
    ids.addAll(current.links().keySet());
    for (String id : ids) {
      FabricLink before = previous.links().get(id);
      FabricLink after = current.links().get(id);
      if (before == null) {
        upserts.add(after);
        changes.add(change(previous, current, id, LinkChangeKind.APPEARED, null, after));
      } else if (after == null) {
        removed.add(id);
        changes.add(change(previous, current, id, LinkChangeKind.DISAPPEARED, before, null));
      } else {
        if (!sameState(before, after)) {
          changes.add(change(previous, current, id, LinkChangeKind.RENEGOTIATED, before, after));
        }
        if (!sameExceptSweep(before, after)) {
          upserts.add(after);
        }
      }
    }
    return new TopologyDiff(upserts, removed, changes);
  }

  private static boolean sameState(FabricLink before, FabricLink after) {
    return sameRate(before.getEndA(), after.getEndA())
        && sameRate(before.getEndB(), after.getEndB());
  }

  private static boolean sameRate(LinkPort before, LinkPort after) {
    return Objects.equals(before.getWidth(), after.getWidth())
        && before.getSpeed() == after.getSpeed();
  }

  private static boolean sameExceptSweep(FabricLink before, FabricLink after) {
    FabricLink aligned =
        FabricLink.newBuilder(after)
            .setSweepSeq(before.getSweepSeq())
            .setTime(before.getTime())
            .build();
    return aligned.equals(before);
  }

  private static FabricLinkChange change(
      TopologySnapshot previous,
      TopologySnapshot current,
      String id,
      LinkChangeKind kind,
      FabricLink before,
      FabricLink after) {
    TopologySweep sweep = current.sweep();
    return FabricLinkChange.newBuilder()
        .setCluster(sweep.cluster())
        .setLinkId(id)
        .setObservedBy(sweep.observedBy())
        .setSweepSeq(sweep.sweepSeq())
        .setTime(sweep.time())
        .setPreviousTime(previous.sweep().time())
        .setChange(kind)
        .setBefore(before)
        .setAfter(after)
        .build();
  }
}
