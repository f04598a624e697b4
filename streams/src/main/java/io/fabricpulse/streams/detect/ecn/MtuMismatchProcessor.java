package io.fabricpulse.streams.detect.ecn;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.AlertTracker;
import io.fabricpulse.streams.alerts.DetectorFailures;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.Lineage;
import io.fabricpulse.streams.alerts.Message;
import io.fabricpulse.streams.alerts.Observation;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.rules.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * mtu_mismatch per cluster (input repartitioned by cluster): every RoCE netdev's MTU is kept in
 * {@link LosslessHealthDetector#MTU_PORTS_STORE}; a netdev whose MTU differs from the fabric MTU
 * fires, one alert per netdev ("one 1500-byte hop throttles the whole path", operators' requirement
 * [FN-002]). The fabric MTU is the rule's fabric_mtu, or else the MTU a strict majority of the
 * cluster's RoCE netdevs report once at least min_ports are known (no majority, no verdict). When a
 * cluster's fabric MTU changes (first samples of a cluster), all its netdevs are judged again.
 *
 * <p>Input comes from several rate tasks through the repartition, in no event-time order, and that
 * is harmless: the census is state (each netdev's latest MTU; an older sample of a netdev is
 * ignored), and each netdev is judged at its own sample time, so its tracker only ever sees its own
 * timeline.
 *
 * <p>Netdevs not reported for {@link #STALE_AFTER} of stream time leave the census, and their alert
 * resolves: a node that is gone has no MTU to fix (COLLECTOR_SILENT covers a dead node).
 */
final class MtuMismatchProcessor extends DetectorProcessor<CounterRates> {

  static final Duration PUNCTUATE_EVERY = Duration.ofSeconds(10);
  static final Duration STALE_AFTER = Duration.ofMinutes(10);
  private static final StringSerializer KEYS = new StringSerializer();

  private record Judged(Rule rule, AlertTracker tracker) {}

  private final List<Rule> rules;
  private final List<Judged> judged = new ArrayList<>();

  /** Per cluster: MTU -> netdevs at it; derived from the store, built on first use. */
  private final Map<String, TreeMap<Integer, Integer>> census = new HashMap<>();

  /** Per rule|cluster: the fabric MTU the netdevs were last judged against. */
  private final Map<String, Integer> judgedAgainst = new HashMap<>();

  private KeyValueStore<String, PortMtu> ports;

  MtuMismatchProcessor(List<Rule> rules, DetectorFailures failures) {
    super(failures);
    this.rules = List.copyOf(rules);
  }

  @Override
  protected void open() {
    this.ports = context().getStateStore(LosslessHealthDetector.MTU_PORTS_STORE);
    for (Rule rule : rules) {
      judged.add(
          new Judged(
              rule,
              tracker(rule, FiringPolicy.IMMEDIATE, LosslessHealthDetector.MTU_TRACKER_STORE)));
    }
    punctuateEvery(PUNCTUATE_EVERY, this::punctuate);
  }

  @Override
  protected void judge(Record<String, CounterRates> record) {
    CounterRates r = record.value();
    if (r.getNetdevMtu() == null || r.getNetdev() == null) {
      return;
    }
    String cluster = r.getCluster();
    String key = portKey(cluster, r.getNode(), r.getNetdev());
    long time = r.getTime().toEpochMilli();
    Map<Integer, Integer> counts = census(cluster);
    PortMtu before = ports.get(key);
    if (before != null && before.seenAt() > time) {
      return; // an older sample of this netdev (the repartition merges several rate tasks)
    }
    PortMtu now = new PortMtu(r.getNetdevMtu(), time, r.getDevice());
    ports.put(key, now);
    if (before == null || before.mtu() != now.mtu()) {
      if (before != null) {
        counts.merge(before.mtu(), -1, Integer::sum);
        counts.remove(before.mtu(), 0);
      }
      counts.merge(now.mtu(), 1, Integer::sum);
    }
    Lineage lineage = Lineage.of(context());
    for (Judged j : judged) {
      Optional<Integer> fabric = fabricMtu(j.rule(), cluster);
      String against = j.rule().id() + "|" + cluster;
      if (!Objects.equals(judgedAgainst.get(against), fabric.orElse(null))) {
        judgedAgainst.put(against, fabric.orElse(null));
        judgeCluster(j, cluster, fabric, lineage, record.timestamp());
      } else {
        fabric
            .flatMap(f -> judge(j, key, now, f, time, lineage, cluster))
            .flatMap(j.tracker()::observe)
            .ifPresent(a -> forward(a, record.timestamp()));
      }
    }
  }

  private void judgeCluster(
      Judged j, String cluster, Optional<Integer> fabric, Lineage lineage, long timestamp) {
    if (fabric.isEmpty()) {
      return;
    }
    List<KeyValue<String, PortMtu>> all = clusterPorts(cluster);
    for (KeyValue<String, PortMtu> e : all) {
      // each netdev at its own latest sample time: the trigger's time belongs to another node,
      // which may be far ahead or behind this one in the repartition
      judge(j, e.key, e.value, fabric.get(), e.value.seenAt(), lineage, cluster)
          .flatMap(j.tracker()::observe)
          .ifPresent(a -> forward(a, timestamp));
    }
  }

  private Optional<Observation> judge(
      Judged j, String key, PortMtu port, int fabric, long time, Lineage lineage, String cluster) {
    String[] nodeAndNetdev = key.substring(cluster.length() + 1).split("/", 2);
    String node = nodeAndNetdev[0];
    String netdev = nodeAndNetdev[1];
    if (!j.rule().selectors().matches(cluster, node, port.device(), netdev, null)) {
      return Optional.empty();
    }
    AlertSubject subject = AlertSubject.node(cluster, node).withNetdev(netdev);
    if (port.mtu() == fabric) {
      return Optional.of(Observation.clean(subject, time, lineage));
    }
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("netdev_mtu", Integer.toString(port.mtu()));
    evidence.put("fabric_mtu", Integer.toString(fabric));
    evidence.put("fabric_mtu_from", fabricSource(j.rule(), cluster));
    if (port.device() != null) {
      evidence.put("device", port.device());
    }
    Message summary = Message.of("mtu_mismatch.firing", subject.shortName(), port.mtu(), fabric);
    return Optional.of(
        Observation.holds(subject, time, port.mtu(), fabric, "bytes", summary, evidence, lineage));
  }

  /** The rule's fabric_mtu, or the strict-majority MTU of the cluster's RoCE netdevs. */
  private Optional<Integer> fabricMtu(Rule rule, String cluster) {
    long configured = rule.thresholds().integer("fabric_mtu");
    if (configured > 0) {
      return Optional.of((int) configured);
    }
    Map<Integer, Integer> counts = census(cluster);
    int total = counts.values().stream().mapToInt(Integer::intValue).sum();
    if (total < rule.thresholds().integer("min_ports")) {
      return Optional.empty();
    }
    return counts.entrySet().stream()
        .filter(e -> 2L * e.getValue() > total)
        .map(Map.Entry::getKey)
        .findFirst();
  }

  private String fabricSource(Rule rule, String cluster) {
    if (rule.thresholds().integer("fabric_mtu") > 0) {
      return "rule " + rule.id();
    }
    Map<Integer, Integer> counts = census(cluster);
    int total = counts.values().stream().mapToInt(Integer::intValue).sum();
    StringBuilder s = new StringBuilder("majority of " + total + " RoCE netdevs (");
    List<String> parts = new ArrayList<>();
    counts.forEach((mtu, n) -> parts.add(n + " at " + mtu));
    return s.append(String.join(", ", parts)).append(')').toString();
  }

  private TreeMap<Integer, Integer> census(String cluster) {
    return census.computeIfAbsent(
        cluster,
        c -> {
          TreeMap<Integer, Integer> counts = new TreeMap<>();
          for (KeyValue<String, PortMtu> e : clusterPorts(c)) {
            counts.merge(e.value.mtu(), 1, Integer::sum);
          }
          return counts;
        });
  }

  private List<KeyValue<String, PortMtu>> clusterPorts(String cluster) {
    List<KeyValue<String, PortMtu>> all = new ArrayList<>();
    try (KeyValueIterator<String, PortMtu> it = ports.prefixScan(cluster + "|", KEYS)) {
      it.forEachRemaining(all::add);
    }
    return all;
  }

  /** Expires netdevs not reported for {@link #STALE_AFTER}, then resolves what is clean. */
  private void punctuate(long streamTime) {
    List<KeyValue<String, PortMtu>> stale = new ArrayList<>();
    try (KeyValueIterator<String, PortMtu> it = ports.all()) {
      while (it.hasNext()) {
        KeyValue<String, PortMtu> e = it.next();
        if (streamTime - e.value.seenAt() > STALE_AFTER.toMillis()) {
          stale.add(e);
        }
      }
    }
    for (KeyValue<String, PortMtu> e : stale) {
      ports.delete(e.key);
      String cluster = e.key.substring(0, e.key.indexOf('|'));
      TreeMap<Integer, Integer> counts = census(cluster);
      counts.merge(e.value.mtu(), -1, Integer::sum);
      counts.remove(e.value.mtu(), 0);
      for (Judged j : judged) {
        // judging a gone netdev against its own MTU is a clean observation: its alert resolves
        judge(j, e.key, e.value, e.value.mtu(), streamTime, Lineage.NONE, cluster)
            .flatMap(j.tracker()::observe)
            .ifPresent(a -> forward(a, streamTime));
      }
    }
    for (Judged j : judged) {
      j.tracker().punctuate(streamTime).forEach(a -> forward(a, streamTime));
    }
  }

  static String portKey(String cluster, String node, String netdev) {
    return cluster + "|" + node + "/" + netdev;
  }
}
