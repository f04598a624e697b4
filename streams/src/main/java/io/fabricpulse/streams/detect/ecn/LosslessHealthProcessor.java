package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.NodeClocks;
import io.fabricpulse.streams.alerts.TrackerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
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
final class LosslessHealthProcessor
    implements Processor<String, CounterRates, String, SpecificRecord> {

  static final Duration PUNCTUATE_EVERY = Duration.ofSeconds(1);

  private record Checked(PortCheck check, AlertTracker tracker) {}

  private final List<PortCheck> checks;
  private final DetectorFailures failures;
  private final List<Checked> checked = new ArrayList<>();
  private ProcessorContext<String, SpecificRecord> context;
  private DetectorFailures.Task failed;
  private KeyValueStore<String, EcnWindow> windows;
  private NodeClocks clocks;

  LosslessHealthProcessor(List<PortCheck> checks, DetectorFailures failures) {
    this.checks = List.copyOf(checks);
    this.failures = failures;
  }

  @Override
  public void init(ProcessorContext<String, SpecificRecord> context) {
    this.context = context;
    this.failed = failures.open(context);
    KeyValueStore<String, TrackerState> trackers =
        context.getStateStore(LosslessHealthDetector.TRACKER_STORE);
    this.windows = context.getStateStore(LosslessHealthDetector.WINDOW_STORE);
    this.clocks = new NodeClocks(context.getStateStore(LosslessHealthDetector.NODE_CLOCK_STORE));
    for (PortCheck c : checks) {
      checked.add(new Checked(c, new AlertTracker(c.rule(), c.policy(), trackers)));
    }
    failed.schedule(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  public void process(Record<String, CounterRates> record) {
    CounterRates rates = record.value();
    if (rates == null) {
      return;
    }
    Lineage lineage = Lineage.of(context, record.headers());
    RoceSample sample;
    try {
      sample = new RoceSample(rates);
      clocks.advance(rates.getCluster(), rates.getNode(), sample.time());
    } catch (RuntimeException e) {
      failed.failed(record, null, e);
      return;
    }
    for (Checked c : checked) {
      // one rule that throws leaves a dead letter; the other rules still judge the sample
      failed.guard(
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

  private void forward(Alert alert, long timestamp) {
    context.forward(new Record<>(alert.getAlertId(), alert, timestamp));
  }

  @Override
  public void close() {
    failed.close();
  }
}
