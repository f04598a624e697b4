package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.rules.Rule;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * pfc_misconfig: pause frames (kind PFC_PAUSE, rx or tx: mlx5 {@code rx/tx_prio<N>_pause}, legacy
 * {@code prio<N>_rx/tx_pause}, ice {@code rx/tx_priority_<N>_xoff.nic}) on a priority that is not
 * in the rule's lossless_priorities. PFC belongs only on the RDMA priority; the per-priority
 * counters exist only where PFC is enabled [K-ethdoc][K-enstats]. Fires on the first such sample.
 */
final class PfcMisconfigCheck {

  private final Rule rule;
  private final List<Integer> lossless;
  private final long minFrames;

  PfcMisconfigCheck(Rule rule) {
    this.rule = rule;
    this.lossless = rule.thresholds().priorities("lossless_priorities");
    this.minFrames = rule.thresholds().integer("min_pause_frames");
  }

  Rule rule() {
    return rule;
  }

  FiringPolicy policy() {
    return FiringPolicy.IMMEDIATE;
  }

  List<Observation> evaluate(PfcSample s, Lineage lineage) {
    CounterRates r = s.record();
    AlertSubject port =
        AlertSubject.node(r.getCluster(), r.getNode())
            .withDevice(r.getDevice())
            .withNetdev(r.getNetdev());
    long time = r.getTime().toEpochMilli();
    List<Observation> out = new ArrayList<>();
    for (int prio : s.priorities()) {
      if (lossless.contains(prio)
          || !rule.selectors()
              .matches(r.getCluster(), r.getNode(), r.getDevice(), r.getNetdev(), prio)) {
        continue;
      }
      OptionalLong rx = s.pauseFrames(CounterDirection.RX, prio);
      OptionalLong tx = s.pauseFrames(CounterDirection.TX, prio);
      if (rx.isEmpty() && tx.isEmpty()) {
        continue;
      }
      AlertSubject subject = port.withPriority(prio);
      long frames = rx.orElse(0) + tx.orElse(0);
      if (frames < minFrames) {
        out.add(Observation.clean(subject, time, lineage));
        continue;
      }
      Map<String, String> evidence = new LinkedHashMap<>();
      rx.ifPresent(
          v ->
              PauseStormCheck.putDelta(
                  evidence, s, PfcSample.pauseFrameMeaning(CounterDirection.RX, prio), v));
      tx.ifPresent(
          v ->
              PauseStormCheck.putDelta(
                  evidence, s, PfcSample.pauseFrameMeaning(CounterDirection.TX, prio), v));
      evidence.put("lossless_priorities", losslessText());
      PauseStormCheck.putSampleFacts(evidence, r);
      Message summary =
          Message.of("pfc_misconfig.firing", subject.shortName(), frames, prio, losslessText());
      out.add(
          Observation.holds(
              subject, time, frames, minFrames, "pause frames", summary, evidence, lineage));
    }
    return out;
  }

  private String losslessText() {
    return lossless.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
