package io.fabricpulse.streams.detect.ecn;

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
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * lossless_drop on a RoCE port: packets dropped where a lossless fabric drops none
 * (docs/thresholds.md P6; operators' requirement [FN-002]: rx_no_buffer must stay 0). One alert per
 * port, whichever counters rose:
 *
 * <ul>
 *   <li>{@code rx_prio<N>_buf_discard}, {@code rx_prio<N>_cong_discard} for N in
 *       lossless_priorities: "must be zero" on lossless priorities [K-ethdoc];
 *   <li>receive-buffer drops of the port: ethtool {@code rx_out_of_buffer}, {@code rx_discards_phy}
 *       [K-ethdoc] and hw_counters {@code out_of_buffer} [K-mlx5cnt]. {@code rx_discards_phy} is
 *       port-wide, so it counts whatever priority the drop was on.
 * </ul>
 *
 * Drops on priorities outside lossless_priorities are lossy by design and ignored.
 */
final class LosslessDropCheck implements PortCheck {

  private final Rule rule;
  private final List<String> counters = new ArrayList<>();
  private final long minDrops;
  private final String lossless;

  LosslessDropCheck(Rule rule) {
    this.rule = rule;
    this.minDrops = rule.thresholds().integer("min_drops");
    List<Integer> priorities = rule.thresholds().priorities("lossless_priorities");
    for (int p : priorities) {
      counters.add("rx_prio" + p + "_buf_discard");
      counters.add("rx_prio" + p + "_cong_discard");
    }
    counters.add(RoceSample.RX_OUT_OF_BUFFER);
    counters.add(RoceSample.RX_DISCARDS_PHY);
    counters.add(RoceSample.OUT_OF_BUFFER);
    this.lossless = String.join(",", priorities.stream().map(String::valueOf).toList());
  }

  @Override
  public Rule rule() {
    return rule;
  }

  @Override
  public FiringPolicy policy() {
    return FiringPolicy.IMMEDIATE;
  }

  @Override
  public Optional<Observation> evaluate(
      RoceSample s, KeyValueStore<String, EcnWindow> windows, Lineage lineage) {
    CounterRates r = s.record();
    AlertSubject subject = RoceSample.subjectOf(r);
    if (!rule.selectors()
        .matches(r.getCluster(), r.getNode(), r.getDevice(), r.getNetdev(), null)) {
      return Optional.empty();
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    List<String> rising = new ArrayList<>();
    long total = 0;
    boolean any = false;
    for (String counter : counters) {
      OptionalLong d = s.delta(counter);
      if (d.isEmpty()) {
        continue;
      }
      any = true;
      if (d.getAsLong() > 0) {
        total += d.getAsLong();
        rising.add(counter + " +" + d.getAsLong());
        evidence.put(counter + "_delta", Long.toString(d.getAsLong()));
      }
    }
    if (!any) {
      return Optional.empty();
    }
    long time = s.time();
    if (total < minDrops) {
      return Optional.of(Observation.clean(subject, time, lineage));
    }
    evidence.put("lossless_priorities", lossless);
    PortCheck.putSampleFacts(evidence, s);
    Message summary =
        Message.of("lossless_drop.firing", subject.shortName(), total, String.join(", ", rising));
    return Optional.of(
        Observation.holds(subject, time, total, minDrops, "packets", summary, evidence, lineage));
  }
}
