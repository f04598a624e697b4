package io.fabricpulse.app.replay;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The key rates of an alert's port around its detection: for the sample times {@link #OFFSETS} from
 * the detection, the latest rates of the port (device and port, or netdev) at or before each, and
 * of its counters the {@link #COUNTERS} with the highest rate in that span (those that moved), by
 * name on ties. Alerts without a port (GPU, job, cluster) have none.
 */
public final class PortRatesAround {
  public static final List<Duration> OFFSETS =
      List.of(
          Duration.ofSeconds(-30),
          Duration.ofSeconds(-10),
          Duration.ZERO,
          Duration.ofSeconds(10),
          Duration.ofSeconds(30));

  static final int COUNTERS = 6;

  /** One counter's per-second rate at each offset (null where unknown). */
  public record Row(String counter, String unit, List<Double> perSecond) {}

  /**
   * @param port how the port is named ({@code gpu007/mlx5_2/1}, {@code gpu007 ens9f0np0})
   */
  public record Table(String port, List<Row> rows) {}

  private PortRatesAround() {}

  /** The table of the alert's port, or null when the alert has no port or no rates were kept. */
  public static Table of(ReplayedAlert replayed, Map<String, List<NodeRates>> ratesByNode) {
    Alert a = replayed.alert();
    if (a.getNode() == null || (a.getDevice() == null && a.getNetdev() == null)) {
      return null;
    }
    List<NodeRates> node = ratesByNode.getOrDefault(a.getNode(), List.of());
    List<CounterRates> samples = new ArrayList<>();
    for (Duration offset : OFFSETS) {
      samples.add(latestAtOrBefore(node, a, replayed.detectedAt().plus(offset)));
    }
    Map<String, Double> peak = new TreeMap<>();
    Map<String, String> units = new LinkedHashMap<>();
    for (CounterRates s : samples) {
      if (s == null) {
        continue;
      }
      for (CounterRate r : s.getRates()) {
        if (r.getPerSecond() != null && r.getPerSecond() != 0) {
          peak.merge(r.getName(), Math.abs(r.getPerSecond()), Math::max);
          units.putIfAbsent(r.getName(), r.getUnit());
        }
      }
    }
    if (samples.stream().allMatch(s -> s == null)) {
      return null;
    }
    List<String> top =
        peak.entrySet().stream()
            .sorted(
                Comparator.comparing(Map.Entry<String, Double>::getValue)
                    .reversed()
                    .thenComparing(Map.Entry::getKey))
            .limit(COUNTERS)
            .map(Map.Entry::getKey)
            .toList();
    List<Row> rows = new ArrayList<>();
    for (String counter : top) {
      List<Double> values = new ArrayList<>();
      for (CounterRates s : samples) {
        values.add(s == null ? null : perSecond(s, counter));
      }
      rows.add(new Row(counter, units.get(counter), values));
    }
    String port =
        a.getNode()
            + (a.getDevice() != null ? "/" + a.getDevice() : "")
            + (a.getPort() != null ? "/" + a.getPort() : "")
            + (a.getNetdev() != null ? " " + a.getNetdev() : "");
    return new Table(port, rows);
  }

  private static Double perSecond(CounterRates sample, String counter) {
    for (CounterRate r : sample.getRates()) {
      if (r.getName().equals(counter)) {
        return r.getPerSecond();
      }
    }
    return null;
  }

  /** The alert's port in the latest NodeRates at or before {@code at} that carries it. */
  private static CounterRates latestAtOrBefore(List<NodeRates> node, Alert a, Instant at) {
    CounterRates best = null;
    for (NodeRates rates : node) {
      if (rates.getTime().isAfter(at)) {
        continue;
      }
      for (CounterRates port : NodeRecords.views(rates)) {
        if (matches(port, a) && (best == null || !port.getTime().isBefore(best.getTime()))) {
          best = port;
        }
      }
    }
    return best;
  }

  private static boolean matches(CounterRates port, Alert a) {
    if (a.getDevice() != null && a.getDevice().equals(port.getDevice())) {
      return a.getPort() == null || a.getPort().equals(port.getPort());
    }
    return a.getNetdev() != null && a.getNetdev().equals(port.getNetdev());
  }
}
