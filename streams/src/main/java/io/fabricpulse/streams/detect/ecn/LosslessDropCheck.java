package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
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
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * lossless_drop on a RoCE port: packets dropped where a lossless fabric drops none
 * (docs/thresholds.md P6; operators' requirement [FN-002]: rx_no_buffer must stay 0). One alert per
 * port, whichever counters rose:
 *
 * <ul>
 *   <li>PRIO_BUF_DISCARD, PRIO_CONG_DISCARD ({@code rx_prio<N>_buf_discard}, {@code
 *       rx_prio<N>_cong_discard}) for N in lossless_priorities: "must be zero" on lossless
 *       priorities [K-ethdoc];
 *   <li>receive drops of the port: OUT_OF_BUFFER (ethtool {@code rx_out_of_buffer} [K-ethdoc],
 *       hw_counters {@code out_of_buffer} [K-mlx5cnt]) and received DISCARDS_PHY (mlx5 {@code
 *       rx_discards_phy}, legacy {@code in_discards}, ice {@code rx_dropped.nic}). Port discards
 *       are port-wide, so they count whatever priority the drop was on.
 * </ul>
 *
 * Drops on priorities outside lossless_priorities are lossy by design and ignored.
 */
final class LosslessDropCheck implements PortCheck {

  private final Rule rule;
  private final List<Integer> priorities;
  private final long minDrops;
  private final String lossless;

  LosslessDropCheck(Rule rule) {
    this.rule = rule;
    this.minDrops = rule.thresholds().integer("min_drops");
    this.priorities = rule.thresholds().priorities("lossless_priorities");
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
    for (CounterRate counter : dropCounters(s)) {
      any = true;
      long d = counter.getDelta();
      if (d > 0) {
        total += d;
        rising.add(counter.getName() + " +" + d);
        evidence.put(counter.getName() + "_delta", Long.toString(d));
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

  /** The usable drop counters of the sample: lossless priorities' discards, then port-wide ones. */
  private List<CounterRate> dropCounters(RoceSample s) {
    List<CounterRate> out = new ArrayList<>();
    for (int p : priorities) {
      out.addAll(s.usable(CounterKind.PRIO_BUF_DISCARD, p));
      out.addAll(s.usable(CounterKind.PRIO_CONG_DISCARD, p));
    }
    out.addAll(s.usable(CounterKind.OUT_OF_BUFFER, null));
    for (CounterRate r : s.usable(CounterKind.DISCARDS_PHY, null)) {
      if (r.getDirection() == CounterDirection.RX) {
        out.add(r);
      }
    }
    return out;
  }
}
