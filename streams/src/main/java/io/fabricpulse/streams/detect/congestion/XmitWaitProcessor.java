package io.fabricpulse.streams.detect.congestion;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.detect.DetectorProcessor;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Judges each switch-port sample with every xmit_wait rule. The alert fires after the rule's
 * congested sweeps in a row and resolves after its hysteresis of clean sweeps of the same port: it
 * is judged at the port's own sample times only, never against other switches' clocks (a switch the
 * fabric role stopped reading keeps its alert until it is read again).
 */
final class XmitWaitProcessor extends DetectorProcessor<CounterRates> {

  private final List<XmitWaitCheck> checks;
  private final List<AlertTracker> trackers = new ArrayList<>();

  XmitWaitProcessor(List<XmitWaitCheck> checks, DetectorFailures failures) {
    super(failures);
    this.checks = checks;
  }

  @Override
  protected void open() {
    checks.forEach(
        c -> trackers.add(tracker(c.rule(), c.policy(), XmitWaitDetector.TRACKER_STORE)));
  }

  @Override
  protected void judge(Record<String, CounterRates> record) {
    Lineage lineage = Lineage.of(context());
    for (int i = 0; i < checks.size(); i++) {
      XmitWaitCheck check = checks.get(i);
      AlertTracker tracker = trackers.get(i);
      guard(
          record,
          check.rule().id(),
          () ->
              check
                  .judge(record.value(), lineage)
                  .flatMap(tracker::observe)
                  .ifPresent(a -> forward(a, record.timestamp())));
    }
  }
}
