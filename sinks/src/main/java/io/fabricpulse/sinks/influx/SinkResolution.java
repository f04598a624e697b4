package io.fabricpulse.sinks.influx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Which fields are written at full resolution and which as 10 s aggregates. Rules are glob patterns
 * ({@code *} = any characters) over the field name, optionally qualified by a measurement glob:
 * {@code "fabric_pfc_rates.*"} matches every field of the PFC measurement, {@code "*err*"} a field
 * of any measurement. The first matching rule wins; fields no rule matches get the fallback.
 *
 * <p>{@link #defaults()} keeps the alert-relevant rates at full resolution, so a dashboard shows
 * exactly what a detector saw, and aggregates the bulk throughput counters, so a 10,000-node fleet
 * fits one InfluxDB node:
 *
 * <ul>
 *   <li>FULL: {@code pause_ratio_*}, {@code *pause_storm*} (pause storms [K-ethdoc]); {@code
 *       port_xmit_wait_*} (congestion [TG-ib]); link state {@code rate_gbps}, {@code state_active},
 *       {@code netdev_mtu}, {@code link_*}, {@code *link_down*}; error counters {@code *err*},
 *       {@code *discard*}, {@code *dropped*}, {@code *overrun*}, {@code out_of_*}, {@code
 *       *_timeout*}, {@code *retrans*} [GCM-ibc][K-mlx5cnt]; ECN and CNP {@code *ecn*}, {@code
 *       *cnp*}, {@code *_marked_*} [NE-ib][K-ethdoc]; physical-layer {@code *_phy_*} and {@code
 *       *module_*}.
 *   <li>AGG_10S: everything else, e.g. {@code rx_bytes_per_s}, {@code port_xmit_packets_*}, {@code
 *       rx_prio3_pause_*} (frame counts), {@code rx_write_requests_*}.
 * </ul>
 *
 * <p>Operators override with {@link #withOverrides(Map)}: their rules are tried before the
 * defaults. Alerts are events and always written at full resolution.
 */
public final class SinkResolution {

  private static final Map<String, Resolution> DEFAULT_FULL_RULES = defaultRules();

  private final List<Rule> rules;
  private final Resolution fallback;
  private final Map<String, Resolution> cache = new ConcurrentHashMap<>();

  private SinkResolution(List<Rule> rules, Resolution fallback) {
    this.rules = List.copyOf(rules);
    this.fallback = fallback;
  }

  /** The documented defaults: alert-relevant fields FULL, the rest AGG_10S. */
  public static SinkResolution defaults() {
    return of(DEFAULT_FULL_RULES, Resolution.AGG_10S);
  }

  /** Every field at full resolution (no aggregation). */
  public static SinkResolution allFull() {
    return of(Map.of(), Resolution.FULL);
  }

  /** Rules in the map's iteration order (use a LinkedHashMap), then {@code fallback}. */
  public static SinkResolution of(Map<String, Resolution> patterns, Resolution fallback) {
    List<Rule> rules = new ArrayList<>();
    patterns.forEach((pattern, resolution) -> rules.add(Rule.parse(pattern, resolution)));
    return new SinkResolution(rules, fallback);
  }

  /** These rules first, then this configuration's rules and fallback. */
  public SinkResolution withOverrides(Map<String, Resolution> patterns) {
    List<Rule> merged = new ArrayList<>();
    patterns.forEach((pattern, resolution) -> merged.add(Rule.parse(pattern, resolution)));
    merged.addAll(rules);
    return new SinkResolution(merged, fallback);
  }

  public Resolution resolve(String measurement, String field) {
    if (measurement.equals(InfluxSchema.ALERTS)) {
      return Resolution.FULL;
    }
    return cache.computeIfAbsent(measurement + "." + field, key -> lookup(measurement, field));
  }

  private Resolution lookup(String measurement, String field) {
    for (Rule rule : rules) {
      if (rule.matches(measurement, field)) {
        return rule.resolution();
      }
    }
    return fallback;
  }

  /** The rules as written, for logs and docs. */
  public Map<String, Resolution> rules() {
    Map<String, Resolution> out = new LinkedHashMap<>();
    rules.forEach(rule -> out.put(rule.text(), rule.resolution()));
    return out;
  }

  public Resolution fallback() {
    return fallback;
  }

  @Override
  public String toString() {
    return "SinkResolution" + rules() + " else " + fallback;
  }

  private static Map<String, Resolution> defaultRules() {
    Map<String, Resolution> full = new LinkedHashMap<>();
    for (String pattern :
        List.of(
            "pause_ratio_*",
            "*pause_storm*",
            "port_xmit_wait_*",
            InfluxSchema.RATE_GBPS,
            InfluxSchema.STATE_ACTIVE,
            InfluxSchema.NETDEV_MTU,
            "link_*",
            "*link_down*",
            "*err*",
            "*discard*",
            "*dropped*",
            "*overrun*",
            "out_of_*",
            "*_timeout*",
            "*retrans*",
            "*ecn*",
            "*cnp*",
            "*_marked_*",
            "*_phy_*",
            "*module_*")) {
      full.put(pattern, Resolution.FULL);
    }
    return full;
  }

  private record Rule(String text, Pattern measurement, Pattern field, Resolution resolution) {

    static Rule parse(String text, Resolution resolution) {
      if (text == null || text.isBlank()) {
        throw new IllegalArgumentException("empty resolution pattern");
      }
      if (resolution == null) {
        throw new IllegalArgumentException("pattern " + text + ": resolution is required");
      }
      int dot = text.indexOf('.');
      Pattern measurement = dot < 0 ? null : glob(text.substring(0, dot));
      Pattern field = glob(dot < 0 ? text : text.substring(dot + 1));
      return new Rule(text, measurement, field, resolution);
    }

    boolean matches(String measurementName, String fieldName) {
      return (measurement == null || measurement.matcher(measurementName).matches())
          && field.matcher(fieldName).matches();
    }

    /** '*' matches any run of characters; everything else is literal. */
    private static Pattern glob(String glob) {
      String[] parts = glob.split("\\*", -1);
      StringBuilder regex = new StringBuilder(Pattern.quote(parts[0]));
      for (int i = 1; i < parts.length; i++) {
        regex.append(".*").append(Pattern.quote(parts[i]));
      }
      return Pattern.compile(regex.toString());
    }
  }
}
