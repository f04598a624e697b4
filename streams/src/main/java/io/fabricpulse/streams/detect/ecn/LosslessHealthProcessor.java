package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.NodeClocks;
import io.fabricpulse.streams.detect.DetectorProcessor;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Per-port ECN and lossless checks over the RoCE records of one node partition of fabric.rates,
 * where the ECN, PFC and port samples of one netdev meet. One {@link AlertTracker} per rule on the
 * shared tracker store; alerts keyed by alert_id. Punctuation resolves each subject at its node's
 * clock ({@link NodeClocks}), not at stream time another node may have driven ahead. A check that
 * throws leaves a dead letter ({@link DetectorFailures}) and the other rules still judge the
 * sample.
 */
final class LosslessHealthProcessor extends DetectorProcessor<CounterRates> {

  private record Checked(PortCheck check, AlertTracker tracker) {}

  private final List<PortCheck> checks;
  private final List<Checked> checked = new ArrayList<>();
  private KeyValueStore<String, EcnWindow> windows;
  private NodeClocks clocks;

  LosslessHealthProcessor(List<PortCheck> checks, DetectorFailures failures) {
    super(failures);
    this.checks = List.copyOf(checks);
  }

  @Override
  protected void open() {
    this.windows = context().getStateStore(LosslessHealthDetector.WINDOW_STORE);
    this.clocks = new NodeClocks(context().getStateStore(LosslessHealthDetector.NODE_CLOCK_STORE));
    for (PortCheck c : checks) {
      checked.add(
          new Checked(c, tracker(c.rule(), c.policy(), LosslessHealthDetector.TRACKER_STORE)));
    }
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  protected void judge(Record<String, CounterRates> record) {
    CounterRates rates = record.value();
    Lineage lineage = Lineage.of(context(), record.headers());
    RoceSample sample = new RoceSample(rates);
    clocks.advance(rates.getCluster(), rates.getNode(), sample.time());
    for (Checked c : checked) {
      // one rule that throws leaves a dead letter; the other rules still judge the sample
      guard(
          record,
          c.tracker().rule().id(),
          () ->
              c.check()
                  .evaluate(sample, windows, lineage)
                  .flatMap(c.tracker()::observe)
                  .ifPresent(a -> forward(a, record.timestamp())));
    }
  }

  private void punctuate(long streamTime) {
    for (Checked c : checked) {
      c.tracker()
          .punctuate(subject -> clocks.nowOf(subject, streamTime))
          .forEach(a -> forward(a, streamTime));
    }
  }
}
