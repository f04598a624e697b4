package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.order.UpstreamWatermark;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Per-port PFC detection over fabric.rates (source PFC): pause_storm and pfc_misconfig rules, each
 * with an {@link AlertTracker} on the shared tracker store. Emits alerts keyed by alert_id; storm
 * alerts carry their {@link StormPage} and this task's source headers, victims' FIRINGs being held
 * by {@link VictimHold}.
 *
 * <p>Its clock is the latest PFC sample time it has processed, not the task's stream time: the task
 * reads all of fabric.rates, and the rate task may have written a node's sysfs records a minute
 * ahead of its ethtool ones (it interleaves the raw topics as their fetches arrive), so stream time
 * can run ahead of the PFC samples still to come. Judged by stream time, a storm would resolve, a
 * victim's hold end and a progress tick promise "everything before T is sent" while the PFC samples
 * before T were still on their way: the propagation stage then published a victim's page before the
 * storm that opens its incident arrived.
 *
 * <p>Progress: every {@link #PUNCTUATE_EVERY} of stream time it also emits one {@link
 * StormPage#TICK} per cluster it serves (key cluster, null value, timestamp its PFC clock less 1
 * ms: every storm record before that time is sent, while samples of that very time may still
 * follow), so the propagation stage, which merges the storms of several such tasks, knows how far
 * this one has got even while it has no storm to send ({@link UpstreamWatermark}). A storm record
 * is never sent at or below the last tick's time (an out-of-order sample's alert goes out just
 * after it; its started_at is unchanged), so the task keeps that promise.
 *
 * <p>A check that throws leaves a dead letter ({@link DetectorFailures}) and the other rules still
 * judge the same sample.
 */
final class PfcDetectorProcessor extends DetectorProcessor<CounterRates> {

  /** A check and the tracker of its rule. */
  private record Checked(
      BiFunction<PfcSample, Lineage, List<Observation>> check, AlertTracker tracker) {}

  private final List<PauseStormCheck> stormChecks;
  private final List<PfcMisconfigCheck> misconfigChecks;
  private final List<Rule> propagationRules;
  private final List<Checked> checked = new ArrayList<>();
  private VictimHold hold;
  private String source;
  private final Set<String> clusters = new TreeSet<>();
  private long lastTick = Long.MIN_VALUE;

  /** The latest PFC sample time processed; {@link Long#MIN_VALUE} before the first. */
  private long pfcClock = Long.MIN_VALUE;

  PfcDetectorProcessor(
      List<PauseStormCheck> stormChecks,
      List<PfcMisconfigCheck> misconfigChecks,
      List<Rule> propagationRules,
      DetectorFailures failures) {
    super(failures);
    this.stormChecks = stormChecks;
    this.misconfigChecks = misconfigChecks;
    this.propagationRules = propagationRules;
  }

  @Override
  protected void open() {
    this.source = "fabric.rates-" + context().taskId().partition();
    String store = PauseStormDetector.TRACKER_STORE;
    for (PauseStormCheck c : stormChecks) {
      checked.add(new Checked(c::evaluate, tracker(c.rule(), c.policy(), store)));
    }
    for (PfcMisconfigCheck c : misconfigChecks) {
      checked.add(new Checked(c::evaluate, tracker(c.rule(), c.policy(), store)));
    }
    hold =
        new VictimHold(
            propagationRules, context().getStateStore(PauseStormDetector.HELD_STORMS_STORE));
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  protected void judge(Record<String, CounterRates> record) {
    CounterRates rates = record.value();
    if (rates.getSource() != RateSource.PFC) {
      return;
    }
    clusters.add(rates.getCluster());
    pfcClock = Math.max(pfcClock, record.timestamp());
    Lineage lineage = Lineage.of(context());
    PfcSample sample = new PfcSample(rates);
    for (Checked c : checked) {
      // one rule that throws leaves a dead letter; the other rules still judge the sample
      guard(
          record,
          c.tracker().rule().id(),
          () -> {
            for (Observation o : c.check().apply(sample, lineage)) {
              c.tracker().observe(o).ifPresent(a -> hold(a, record.timestamp()));
            }
          });
    }
  }

  private void punctuate(long streamTime) {
    if (pfcClock == Long.MIN_VALUE) {
      return; // no PFC sample yet: nothing to judge, no progress to promise
    }
    long now = pfcClock; // never ahead of stream time: it is the latest PFC record's timestamp
    for (Checked c : checked) {
      c.tracker().punctuate(now).forEach(a -> hold(a, now));
    }
    hold.releaseDue(now).forEach(this::forward);
    // more samples of this very time may follow (other nodes of the partition): only the time
    // before it is complete
    long complete = now - 1;
    for (String cluster : clusters) {
      context().forward(new Record<>(cluster, null, complete, StormPage.TICK.headers(source)));
    }
    lastTick = Math.max(lastTick, complete);
  }

  /** An alert of a rule goes out through the victim hold (a victim's FIRING may wait). */
  private void hold(Alert alert, long timestamp) {
    hold.route(alert, timestamp, pfcClock).forEach(this::forward);
  }

  private void forward(VictimHold.Handoff h) {
    Alert a = h.alert();
    if (a.getKind() != AlertKind.PAUSE_STORM) {
      context().forward(new Record<>(a.getAlertId(), a, h.timestamp(), h.page().headers()));
      return;
    }
    long timestamp = Math.max(h.timestamp(), lastTick + 1);
    context().forward(new Record<>(a.getAlertId(), a, timestamp, h.page().headers(source)));
  }
}
