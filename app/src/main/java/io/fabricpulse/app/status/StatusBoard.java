package io.fabricpulse.app.status;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.sinks.influx.InfluxSchema;
import io.fabricpulse.sinks.influx.SinkPoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the live status page shows, kept up to date from the pipeline's topics ({@link StatusFeed}):
 * the active alerts (fabric.alerts.active), the latest link, subnet-manager and NCCL fallback
 * events (fabric.alerts), the most congested ports and every node's pause ratio per priority
 * (fabric.rates, read through the sink's names so the page and the dashboards show the same
 * numbers), the NCCL transport of every job and host (fabric.nccl.transport), and the health of the
 * parts that run it ({@link HealthCheck}s). Thread safe: the feed writes, the page's HTTP threads
 * read {@link #snapshot()} and {@link #health()}.
 */
public final class StatusBoard {

  /** Alert kinds shown as link events: the rows of the link-health timeline. */
  static final Set<AlertKind> LINK_EVENT_KINDS =
      EnumSet.of(
          AlertKind.LINK_FLAP,
          AlertKind.LINK_DOWN,
          AlertKind.LINK_DEGRADED,
          AlertKind.PHY_ERRORS,
          AlertKind.MTU_MISMATCH,
          AlertKind.SM_FAILOVER,
          AlertKind.SM_ABSENT,
          AlertKind.GDR_FALLBACK,
          AlertKind.NET_FALLBACK_SOCKET);

  private static final int LINK_EVENTS_KEPT = 50;
  private static final int TOP_PORTS = 10;
  private static final String XMIT_WAIT = "port_xmit_wait" + InfluxSchema.PER_SECOND_SUFFIX;
  private static final int PRIORITIES = 8;

  private final Map<String, Alert> active = new LinkedHashMap<>();
  private final Deque<Alert> linkEvents = new ArrayDeque<>();
  private final Map<String, PortWait> portWait = new TreeMap<>();
  private final Map<String, Double[]> pauseByNode = new TreeMap<>();
  private final Map<String, NcclTransport> transports = new TreeMap<>();
  private final List<HealthCheck> checks = new CopyOnWriteArrayList<>();
  private long updates;

  /** A port's latest xmit wait (ticks per second: time its sender had data but no credits). */
  record PortWait(String node, String device, String port, double ticksPerSecond, long timeMs) {}

  /** fabric.alerts.active: the current state of an alert; null value = resolved (tombstone). */
  public synchronized void activeAlert(String alertId, Alert alert) {
    updates++;
    if (alert == null) {
      active.remove(alertId);
    } else {
      active.put(alertId, alert);
    }
  }

  /** fabric.alerts: every state change; link-family FIRING ones become link events. */
  public synchronized void alertChange(Alert alert) {
    updates++;
    if (LINK_EVENT_KINDS.contains(alert.getKind())) {
      linkEvents.addFirst(alert);
      while (linkEvents.size() > LINK_EVENTS_KEPT) {
        linkEvents.removeLast();
      }
    }
  }

  /** One rates point as the sink names it ({@link InfluxSchema#ratesPoint}). */
  public synchronized void rates(SinkPoint point) {
    updates++;
    String node = point.tags().get(InfluxSchema.TAG_NODE);
    Object wait = point.fields().get(XMIT_WAIT);
    if (wait instanceof Double w && point.tags().containsKey(InfluxSchema.TAG_DEVICE)) {
      String device = point.tags().get(InfluxSchema.TAG_DEVICE);
      String port = point.tags().getOrDefault(InfluxSchema.TAG_PORT, "");
      portWait.put(
          node + "/" + device + "/" + port, new PortWait(node, device, port, w, point.timeMs()));
    }
    for (int prio = 0; prio < PRIORITIES; prio++) {
      Object ratio = point.fields().get(InfluxSchema.PAUSE_RATIO_PREFIX + "prio" + prio);
      if (ratio instanceof Double r) {
        String row = node + " " + point.tags().getOrDefault(InfluxSchema.TAG_NETDEV, "");
        pauseByNode.computeIfAbsent(row, k -> new Double[PRIORITIES])[prio] = r;
      }
    }
  }

  /** fabric.nccl.transport: the latest verdict per job and host. */
  public synchronized void transport(NcclTransport verdict) {
    updates++;
    transports.put(verdict.getJob() + "/" + verdict.getHost(), verdict);
  }

  /** Adds a part whose health the page reports, in the order added. */
  public void addCheck(HealthCheck check) {
    checks.add(check);
  }

  /**
   * {@code ok} (every check passes; true with none) and {@code checks}: each check's {@code name},
   * {@code ok} and {@code detail}. Not under the board's lock: a probe never waits for the feed.
   */
  public Map<String, Object> health() {
    List<Map<String, Object>> results = new ArrayList<>();
    boolean ok = true;
    for (HealthCheck check : checks) {
      HealthCheck.Result r = check.run();
      ok &= r.ok();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", check.name());
      m.put("ok", r.ok());
      m.put("detail", r.detail());
      results.add(m);
    }
    Map<String, Object> health = new LinkedHashMap<>();
    health.put("ok", ok);
    health.put("checks", results);
    return health;
  }

  /** Everything the page shows, as plain maps and lists (serialised to JSON). */
  public Map<String, Object> snapshot() {
    Map<String, Object> health = health();
    Map<String, Object> s = tables();
    s.put("health", health);
    return s;
  }

  private synchronized Map<String, Object> tables() {
    Map<String, Object> s = new LinkedHashMap<>();
    List<Map<String, Object>> alerts = new ArrayList<>();
    active.values().stream()
        .sorted(
            Comparator.comparing((Alert a) -> a.getSeverity().ordinal())
                .reversed()
                .thenComparing(Alert::getStartedAt))
        .forEach(a -> alerts.add(alert(a)));
    s.put("activeAlerts", alerts);
    List<Map<String, Object>> ports = new ArrayList<>();
    portWait.values().stream()
        .filter(p -> p.ticksPerSecond() > 0)
        .sorted(Comparator.comparingDouble(PortWait::ticksPerSecond).reversed())
        .limit(TOP_PORTS)
        .forEach(
            p -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("node", p.node());
              m.put("device", p.device());
              m.put("port", p.port());
              m.put("xmitWaitPerS", p.ticksPerSecond());
              m.put("time", p.timeMs());
              ports.add(m);
            });
    s.put("congestedPorts", ports);
    List<Map<String, Object>> strip = new ArrayList<>();
    pauseByNode.forEach(
        (row, ratios) -> {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("row", row);
          m.put("pauseRatio", Arrays.asList(ratios.clone())); // null: no counter
          strip.add(m);
        });
    s.put("pauseStrip", strip);
    s.put("linkEvents", linkEvents.stream().map(StatusBoard::alert).toList());
    List<Map<String, Object>> nccl = new ArrayList<>();
    transports
        .values()
        .forEach(
            t -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("job", t.getJob());
              m.put("host", t.getHost());
              m.put("net", t.getNet());
              m.put("gdr", t.getGdr());
              m.put("time", t.getTime().toEpochMilli());
              nccl.add(m);
            });
    s.put("ncclTransport", nccl);
    s.put("updates", updates);
    return s;
  }

  private static Map<String, Object> alert(Alert a) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("alertId", a.getAlertId());
    m.put("kind", a.getKind().name());
    m.put("severity", a.getSeverity().name());
    m.put("state", a.getState().name());
    m.put("node", a.getNode());
    m.put("subject", subject(a));
    m.put("startedAt", a.getStartedAt().toEpochMilli());
    m.put("summary", a.getSummary());
    return m;
  }

  private static String subject(Alert a) {
    List<String> parts = new ArrayList<>();
    if (a.getDevice() != null) {
      parts.add(a.getDevice() + (a.getPort() != null ? "/" + a.getPort() : ""));
    }
    if (a.getNetdev() != null) {
      parts.add(a.getNetdev());
    }
    if (a.getPriority() != null) {
      parts.add("prio " + a.getPriority());
    }
    if (a.getGpu() != null) {
      parts.add("GPU " + a.getGpu());
    }
    if (a.getJob() != null) {
      parts.add(a.getJob());
    }
    return String.join(" ", parts);
  }
}
