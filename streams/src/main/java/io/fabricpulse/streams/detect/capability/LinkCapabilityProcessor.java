package io.fabricpulse.streams.detect.capability;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.peers.PeerLabels;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Judges each fabric.topology record: a link below what both ends support holds (and fires at once:
 * the sweep has already seen the trained link), any other record of the link, or its tombstone, is
 * clean at its time. The alert's subject is the host end of a host link (so it reads like the
 * host's own link alerts) or end_a of a switch-to-switch link; it carries the topology join's
 * labels itself ({@link LinkPeers}: {@code peer}, {@code peer_node}, {@code peer_type}, {@code
 * peer_guid}, {@code peer_port} name the other end, {@code link_id} and {@code incident} the
 * cable), since its input is the link record the join would look up.
 */
final class LinkCapabilityProcessor extends DetectorProcessor<FabricLink> {

  private final List<Rule> rules;
  private final List<AlertTracker> trackers = new ArrayList<>();
  private KeyValueStore<String, String> links;

  LinkCapabilityProcessor(List<Rule> rules, DetectorFailures failures) {
    super(failures);
    this.rules = rules;
  }

  @Override
  protected void open() {
    links = context().getStateStore(LinkCapabilityDetector.LINK_STORE);
    rules.forEach(
        r ->
            trackers.add(tracker(r, FiringPolicy.IMMEDIATE, LinkCapabilityDetector.TRACKER_STORE)));
  }

  /** A tombstone: the sweep no longer sees the link, which is clean from then on. */
  @Override
  protected void marker(Record<String, FabricLink> record) {
    judge(record);
  }

  @Override
  protected void judge(Record<String, FabricLink> record) {
    String linkId = record.key();
    if (linkId == null) {
      return;
    }
    Lineage lineage = Lineage.of(context());
    FabricLink link = record.value();
    String previous = links.get(linkId);
    for (AlertTracker tracker : trackers) {
      guard(
          record,
          tracker.rule().id(),
          () -> {
            if (link != null && below(link)) {
              AlertSubject subject = subject(link);
              if (tracker
                  .rule()
                  .selectors()
                  .matches(subject.cluster(), subject.node(), subject.device(), null, null)) {
                forward(tracker.observe(holds(link, subject, lineage)), record.timestamp());
              }
            } else if (previous != null) {
              AlertSubject gone = Subjects.decode(previous);
              forward(
                  tracker.observe(Observation.clean(gone, record.timestamp(), lineage)),
                  record.timestamp());
            }
          });
    }
    if (link != null && below(link)) {
      links.put(linkId, Subjects.encode(subject(link)));
    } else {
      links.delete(linkId);
    }
  }

  static boolean below(FabricLink link) {
    int width = activeWidth(link);
    LinkSpeed speed = activeSpeed(link);
    boolean narrower =
        link.getPossibleWidth() != null && width > 0 && link.getPossibleWidth() > width;
    boolean slower =
        link.getPossibleSpeed() != null
            && speed != null
            && link.getPossibleSpeed().ordinal() > speed.ordinal();
    return narrower || slower;
  }

  /** The narrower of the two ends' widths (0 when neither says). */
  static int activeWidth(FabricLink link) {
    Integer a = link.getEndA().getWidth();
    Integer b = link.getEndB().getWidth();
    if (a == null || b == null) {
      return a != null ? a : b != null ? b : 0;
    }
    return Math.min(a, b);
  }

  static LinkSpeed activeSpeed(FabricLink link) {
    LinkSpeed a = link.getEndA().getSpeed();
    LinkSpeed b = link.getEndB().getSpeed();
    if (a == null || b == null) {
      return a != null ? a : b;
    }
    return a.ordinal() <= b.ordinal() ? a : b;
  }

  /** The host end of a host link, else end_a. */
  static AlertSubject subject(FabricLink link) {
    return Subjects.of(link.getCluster(), subjectEnd(link));
  }

  private static LinkPort subjectEnd(FabricLink link) {
    return link.getEndB().getNodeType() == FabricNodeType.CA
            && link.getEndA().getNodeType() != FabricNodeType.CA
        ? link.getEndB()
        : link.getEndA();
  }

  private static Observation holds(FabricLink link, AlertSubject subject, Lineage lineage) {
    LinkPort self = subjectEnd(link);
    LinkPort peer = self == link.getEndA() ? link.getEndB() : link.getEndA();
    int width = activeWidth(link);
    LinkSpeed speed = activeSpeed(link);
    int possibleWidth = link.getPossibleWidth() != null ? link.getPossibleWidth() : width;
    LinkSpeed possibleSpeed = link.getPossibleSpeed() != null ? link.getPossibleSpeed() : speed;
    String active = width + "X " + (speed == null ? "?" : speed.name());
    String possible = possibleWidth + "X " + (possibleSpeed == null ? "?" : possibleSpeed.name());
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("link_id", link.getLinkId());
    evidence.put("end", Subjects.label(self));
    evidence.put("peer_end", Subjects.label(peer));
    evidence.put("active", active);
    evidence.put("supported_by_both_ends", possible);
    evidence.put("source", link.getSource().name());
    evidence.put("observed_by", link.getObservedBy());
    Map<String, String> labels = PeerLabels.of(peer, link, AlertKind.LINK_BELOW_CAPABILITY);
    Message summary =
        Message.of(
            "link_below_capability.firing",
            Subjects.label(self),
            Subjects.label(peer),
            active,
            possible);
    return Observation.holds(
            subject,
            link.getTime().toEpochMilli(),
            gbps(width, speed),
            gbps(possibleWidth, possibleSpeed),
            "Gb/s",
            summary,
            evidence,
            lineage)
        .firingNow()
        .withLabels(labels);
  }

  /** Nominal data rate: lanes x SDR 2.5, DDR 5, QDR and FDR10 10, FDR 14, EDR 25, HDR 50, ... */
  static double gbps(int lanes, LinkSpeed speed) {
    if (speed == null) {
      return 0;
    }
    double lane =
        switch (speed) {
          case SDR -> 2.5;
          case DDR -> 5;
          case QDR, FDR10 -> 10;
          case FDR -> 14;
          case EDR -> 25;
          case HDR -> 50;
          case NDR -> 100;
          case XDR -> 200;
        };
    return lanes * lane;
  }

  private void forward(Optional<Alert> alert, long timestamp) {
    alert.ifPresent(a -> forward(a, timestamp));
  }
}
