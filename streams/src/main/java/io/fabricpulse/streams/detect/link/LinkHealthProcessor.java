package io.fabricpulse.streams.detect.link;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.NodeClocks;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-port link detection over the port rates of one node partition (and, for RoCE ports, the
 * link_down_events_phy increases of their netdevs): LINK_FLAP, LINK_DOWN, LINK_DEGRADED and
 * PHY_ERRORS, each rule with an {@link AlertTracker} on the shared tracker store. LINK_DOWN is also
 * judged at every stream-time punctuation, so a down port that stops reporting while its node goes
 * on fires without further samples of its own. Punctuation judges each port at its node's clock
 * ({@link NodeClocks}: the node's latest sample), never at stream time, which another node of the
 * partition may have driven ahead: a port is never "down for 248 s" that its node saw down for 26.
 *
 * <p>A check that throws leaves a dead letter ({@link DetectorFailures}) and the other rules still
 * judge the same sample.
 */
final class LinkHealthProcessor extends DetectorProcessor<CounterRates> {

  private static final Logger LOG = LoggerFactory.getLogger(LinkHealthProcessor.class);

  /** Node clock a {@link LinkProgress} marker moves on at least (bounds the markers per node). */
  static final Duration MARK_EVERY = Duration.ofSeconds(5);

  private final List<FlapCheck> flapChecks;
  private final List<DownCheck> downChecks;
  private final List<DegradedCheck> degradedChecks;
  private final List<PhyErrorsCheck> phyChecks;
  private final long flapWindowMs;
  private final long settleMs;
  private final long reestablishMs;

  private KeyValueStore<String, PortLinkState> ports;
  private KeyValueStore<String, Long> downPorts;
  private KeyValueStore<String, String> netdevPorts;
  private NodeClocks clocks;
  private KeyValueStore<String, Long> nodeClocks;

  /** Per node, the clock its last progress marker carried (in memory: a restart sends anew). */
  private final Map<String, Long> marked = new HashMap<>();

  private final List<AlertTracker> flapTrackers = new ArrayList<>();
  private final List<AlertTracker> downTrackers = new ArrayList<>();
  private final List<AlertTracker> degradedTrackers = new ArrayList<>();
  private final List<AlertTracker> phyTrackers = new ArrayList<>();

  LinkHealthProcessor(
      List<FlapCheck> flapChecks,
      List<DownCheck> downChecks,
      List<DegradedCheck> degradedChecks,
      List<PhyErrorsCheck> phyChecks,
      DetectorFailures failures) {
    super(failures);
    this.flapChecks = flapChecks;
    this.downChecks = downChecks;
    this.degradedChecks = degradedChecks;
    this.phyChecks = phyChecks;
    this.flapWindowMs = flapChecks.stream().mapToLong(FlapCheck::windowMs).max().orElse(0);
    // one established value per port: the shortest settle and re-establish times of the rules
    this.settleMs = degradedChecks.stream().mapToLong(DegradedCheck::settleMs).min().orElse(60_000);
    this.reestablishMs =
        degradedChecks.stream()
            .mapToLong(DegradedCheck::reestablishMs)
            .min()
            .orElse(Duration.ofHours(24).toMillis());
  }

  @Override
  protected void open() {
    ports = context().getStateStore(LinkHealthDetector.PORT_STORE);
    downPorts = context().getStateStore(LinkHealthDetector.DOWN_PORTS_STORE);
    netdevPorts = context().getStateStore(LinkHealthDetector.NETDEV_STORE);
    nodeClocks = context().getStateStore(LinkHealthDetector.NODE_CLOCK_STORE);
    clocks = new NodeClocks(nodeClocks);
    String trackers = LinkHealthDetector.TRACKER_STORE;
    flapChecks.forEach(c -> flapTrackers.add(tracker(c.rule(), c.policy(), trackers)));
    downChecks.forEach(c -> downTrackers.add(tracker(c.rule(), c.policy(), trackers)));
    degradedChecks.forEach(c -> degradedTrackers.add(tracker(c.rule(), c.policy(), trackers)));
    phyChecks.forEach(c -> phyTrackers.add(tracker(c.rule(), c.policy(), trackers)));
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  /** A failure outside one rule's check (reading the sample, the port state) skips the record. */
  @Override
  protected void judge(Record<String, CounterRates> record) {
    CounterRates rates = record.value();
    Lineage lineage = lineageOf(record.headers());
    if (LinkHealthDetector.isPortSample(rates)) {
      onPortSample(new LinkSample(rates), lineage, record);
    } else if (rates.getSource() == RateSource.PFC) {
      onNetdevSample(new LinkSample(rates), lineage, record);
    }
  }

  private void onPortSample(LinkSample s, Lineage lineage, Record<String, CounterRates> record) {
    long timestamp = record.timestamp();
    CounterRates r = s.rates();
    String key = s.portKey();
    PortLinkState st = Optional.ofNullable(ports.get(key)).orElseGet(PortLinkState::new);
    long now = s.time();
    if (st.lastSampleAt != PortLinkState.NEVER && now <= st.lastSampleAt) {
      return; // the rate stage already drops older samples; never learn from one twice
    }
    clocks.advance(r.getCluster(), r.getNode(), now);
    boolean sameBoot = r.getBootId().equals(st.bootId);
    // a reboot or the first sample of a port is never a transition
    long transitions = sameBoot && st.active() && !s.active() ? 1 : 0;
    long downed = s.increase(LinkSample.LINK_DOWNED);
    PortLinkState.addEvents(st.transitions, now, transitions);
    PortLinkState.addEvents(st.linkDowned, now, downed);
    st.pruneEvents(now, flapWindowMs);
    boolean newDownEvent = transitions + downed > 0;

    st.cluster = r.getCluster();
    st.node = r.getNode();
    st.device = r.getDevice();
    st.port = r.getPort() == null ? 0 : r.getPort();
    st.netdev = r.getNetdev();
    st.bootId = r.getBootId();
    st.state = r.getState();
    st.lastSampleAt = now;
    boolean downRestarted = updateDownPeriod(st, key, s.active(), downed, now);
    if (st.netdev != null) {
      netdevPorts.put(s.netdevKey(), key);
    }
    st.symbolErrors.add(now, s.increase("symbol_error"));
    st.linkErrorRecovery.add(now, s.increase("link_error_recovery"));

    evaluateFlaps(st, now, newDownEvent, lineage, record);
    for (int i = 0; i < downChecks.size(); i++) {
      AlertTracker tracker = downTrackers.get(i);
      DownCheck check = downChecks.get(i);
      guard(
          record,
          check.rule().id(),
          () -> {
            String subject = LinkSubjects.of(st).key();
            if (downRestarted && tracker.firing(subject).isEmpty()) {
              // link_downed moved while down: the link trained and dropped again, a new drop
              tracker.observe(Observation.clean(LinkSubjects.of(st), now, lineage));
            }
            observe(tracker, check.evaluate(st, now, lineage), timestamp);
          });
    }
    DegradedCheck.Lowered lowered = learnEstablished(st, s, now);
    for (int i = 0; i < degradedChecks.size(); i++) {
      AlertTracker tracker = degradedTrackers.get(i);
      DegradedCheck check = degradedChecks.get(i);
      guard(
          record,
          check.rule().id(),
          () -> {
            if (lowered != null) {
              check
                  .accepted(tracker, st, lowered, now, lineage)
                  .ifPresent(a -> forward(a, timestamp));
            }
            observe(tracker, check.evaluate(st, s, lineage), timestamp);
          });
    }
    for (int i = 0; i < phyChecks.size(); i++) {
      AlertTracker tracker = phyTrackers.get(i);
      PhyErrorsCheck check = phyChecks.get(i);
      guard(
          record,
          check.rule().id(),
          () -> observe(tracker, check.evaluate(st, s, lineage), timestamp));
    }
    ports.put(key, st);
  }

  /**
   * Learns the port's established speed and width from this sample, before the link_degraded checks
   * judge it. Returns what was replaced when this sample re-established a lower value (held for
   * reestablish_after), else null.
   */
  private DegradedCheck.Lowered learnEstablished(PortLinkState st, LinkSample s, long now) {
    if (!s.active()) {
      st.speed.interrupt();
      st.lanes.interrupt();
      return null;
    }
    double gbpsBefore = st.speed.value;
    int lanesBefore = (int) st.lanes.value;
    long speedSince = st.speed.candidateSince;
    long lanesSince = st.lanes.candidateSince;
    double gbps = s.rates().getRateGbps() == null ? 0 : s.rates().getRateGbps();
    boolean speedLowered =
        st.speed.observe(gbps, now, settleMs, reestablishMs) == EstablishedValue.Change.LOWERED;
    boolean lanesLowered =
        st.lanes.observe(s.lanes(), now, settleMs, reestablishMs)
            == EstablishedValue.Change.LOWERED;
    if (!speedLowered && !lanesLowered) {
      return null;
    }
    long since =
        speedLowered && lanesLowered
            ? Math.min(speedSince, lanesSince)
            : speedLowered ? speedSince : lanesSince;
    return new DegradedCheck.Lowered(gbpsBefore, lanesBefore, since);
  }

  /**
   * Tracks the current down period. Returns true when link_downed increased during a down period
   * that had already started: the clock of "down with link_downed unchanged" restarts.
   */
  private boolean updateDownPeriod(
      PortLinkState st, String key, boolean active, long downed, long now) {
    if (active) {
      st.downSince = PortLinkState.NEVER;
      st.lastActiveAt = now;
      downPorts.delete(key);
      return false;
    }
    boolean restarted = st.down() && downed > 0;
    if (!st.down() || restarted) {
      st.downSince = now;
      if (st.lastActiveAt != PortLinkState.NEVER) {
        downPorts.put(key, now);
      }
    }
    return restarted;
  }

  /** RoCE: link_down_events_phy of the port's netdev [K-ethdoc] (F8). */
  private void onNetdevSample(LinkSample s, Lineage lineage, Record<String, CounterRates> record) {
    long increase = s.increase(LinkSample.LINK_DOWN_EVENTS_PHY);
    if (increase == 0 || s.rates().getNetdev() == null) {
      return;
    }
    String key = netdevPorts.get(s.netdevKey());
    PortLinkState st = key == null ? null : ports.get(key);
    if (st == null) {
      LOG.debug("link_down_events_phy on {} before any port sample of it", s.netdevKey());
      return;
    }
    long now = s.time();
    clocks.advance(st.cluster, st.node, now);
    PortLinkState.addEvents(st.phyDowns, now, increase);
    st.pruneEvents(now, flapWindowMs);
    evaluateFlaps(st, now, true, lineage, record);
    ports.put(key, st);
  }

  private void evaluateFlaps(
      PortLinkState st,
      long now,
      boolean newDownEvent,
      Lineage lineage,
      Record<String, CounterRates> record) {
    for (int i = 0; i < flapChecks.size(); i++) {
      AlertTracker tracker = flapTrackers.get(i);
      FlapCheck check = flapChecks.get(i);
      guard(
          record,
          check.rule().id(),
          () -> {
            boolean firing = tracker.firing(LinkSubjects.of(st).key()).isPresent();
            Observation o = check.evaluate(st, now, newDownEvent, firing, lineage);
            Optional<Alert> alert = tracker.observe(o);
            if (alert.isPresent() && alert.get().getState() == AlertState.FIRING) {
              // these events made this alert; a later one needs down_events new ones
              st.flapCountedUntil.put(tracker.rule().id(), now);
            }
            alert.ifPresent(a -> forward(a, record.timestamp()));
          });
    }
  }

  private void observe(AlertTracker tracker, Observation o, long timestamp) {
    if (o != null) {
      tracker.observe(o).ifPresent(a -> forward(a, timestamp));
    }
  }

  private void punctuate(long streamTime) {
    List<String> gone = new ArrayList<>();
    try (KeyValueIterator<String, Long> it = downPorts.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> e = it.next();
        PortLinkState st = ports.get(e.key);
        if (st == null || !st.down()) {
          gone.add(e.key);
          continue;
        }
        long nodeNow = clocks.nowOf(LinkSubjects.of(st).key(), streamTime);
        for (int i = 0; i < downChecks.size(); i++) {
          Observation o = downChecks.get(i).evaluate(st, nodeNow, Lineage.NONE);
          if (o.holds()) {
            observe(downTrackers.get(i), o, nodeNow);
          }
        }
      }
    }
    gone.forEach(downPorts::delete);
    for (List<AlertTracker> trackers :
        List.of(flapTrackers, downTrackers, degradedTrackers, phyTrackers)) {
      for (AlertTracker t : trackers) {
        t.punctuate(subject -> clocks.nowOf(subject, streamTime))
            .forEach(a -> forward(a, streamTime));
      }
    }
    markProgress(streamTime);
  }

  /**
   * After everything this punctuation judged: one {@link LinkProgress} marker per node whose clock
   * moved on by {@link #MARK_EVERY} since its last one, so a reader of the shared stream knows the
   * node's link alerts up to that time are sent.
   */
  private void markProgress(long streamTime) {
    try (KeyValueIterator<String, Long> it = nodeClocks.all()) {
      while (it.hasNext()) {
        KeyValue<String, Long> e = it.next();
        long clock = Math.min(e.value, streamTime);
        Long before = marked.get(e.key);
        if (before == null || clock >= before + MARK_EVERY.toMillis()) {
          marked.put(e.key, clock);
          context().forward(new Record<>(e.key, null, clock, LinkProgress.headers()));
        }
      }
    }
  }

  /** The raw sample behind the rates (lineage headers of the rate stage), else this record. */
  private Lineage lineageOf(Headers headers) {
    String topic = io.fabricpulse.streams.LineageHeaders.topic(headers);
    if (topic != null) {
      return new Lineage(
          topic,
          io.fabricpulse.streams.LineageHeaders.partition(headers),
          io.fabricpulse.streams.LineageHeaders.offset(headers));
    }
    return Lineage.of(context(), headers);
  }
}
