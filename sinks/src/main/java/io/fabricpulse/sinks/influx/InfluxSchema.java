package io.fabricpulse.sinks.influx;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.BridgeCounters;
import io.fabricpulse.avro.CounterDirection;
import io.fabricpulse.avro.CounterKind;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The one place where time-series names are defined: measurements, tags and fields written by the
 * sink, built from {@link CounterRates} (topic fabric.rates) and {@link Alert} (fabric.alerts).
 * {@code sinks/TIMESERIES.md} documents the same table for dashboard authors; change both together.
 *
 * <table>
 *   <caption>Measurements</caption>
 *   <tr><th>measurement</th><th>from</th><th>tags</th><th>time</th></tr>
 *   <tr><td>{@code fabric_port_rates}</td><td>CounterRates, source PORT or PERFQUERY</td>
 *       <td>cluster, node, device, port, netdev</td><td>sample time (event time), ms</td></tr>
 *   <tr><td>{@code fabric_pfc_rates}</td><td>CounterRates, source PFC</td>
 *       <td>cluster, node, device, port, netdev</td><td>sample time, ms</td></tr>
 *   <tr><td>{@code fabric_ecn_rates}</td><td>CounterRates, source ECN</td>
 *       <td>cluster, node, device, port, netdev</td><td>sample time, ms</td></tr>
 *   <tr><td>{@code <rates measurement>_10s}</td><td>10 s aggregates of the fields resolved
 *       {@code AGG_10S} by {@link SinkResolution}</td><td>same as the rates measurement</td>
 *       <td>start of the event-time bucket (multiple of 10 s since the epoch)</td></tr>
 *   <tr><td>{@code fabric_alerts}</td><td>Alert</td>
 *       <td>cluster, node, kind, severity, state, rule, device, port, netdev, priority, gpu</td>
 *       <td>started_at for FIRING, resolved_at for RESOLVED</td></tr>
 *   <tr><td>{@code fabric_gpu}, {@code fabric_gpu_xid}, {@code fabric_nccl_transport}</td>
 *       <td>GpuEcc, GpuXid, NcclTransport</td><td>cluster, node and gpu / xid, kind / host, job,
 *       net</td><td>the record's time</td></tr>
 *   <tr><td>{@code fabricpulse_topics}, {@code fabricpulse_sink}</td>
 *       <td>the pipeline about itself ({@link PipelineHealth})</td><td>topic / group</td>
 *       <td>wall clock of the sink</td></tr>
 * </table>
 *
 * <table>
 *   <caption>Fields of the rates measurements (one point per CounterRates record)</caption>
 *   <tr><th>field</th><th>type</th><th>unit</th><th>from</th></tr>
 *   <tr><td>{@code <counter>_per_s}</td><td>double</td><td>counter unit per second</td>
 *       <td>CounterRate.per_second</td></tr>
 *   <tr><td>{@code <counter>_delta}</td><td>long</td><td>counter unit (bytes for *_data)</td>
 *       <td>CounterRate.delta</td></tr>
 *   <tr><td>{@code rx_bytes_per_s}, {@code tx_bytes_per_s}</td><td>double</td><td>bytes/s</td>
 *       <td>per_second of port_rcv_data, port_xmit_data (already x4 by the rate stage)</td></tr>
 *   <tr><td>{@code pause_ratio_prio<N>}, {@code pause_ratio_global}</td><td>double</td>
 *       <td>fraction of time paused (0..1)</td>
 *       <td>per_second of the rx counter of kind PFC_PAUSE_DURATION on priority N /
 *       GLOBAL_PAUSE_DURATION (&micro;s/s) divided by 1e6, whatever the driver's name</td></tr>
 *   <tr><td>{@code pause_frames_<rx|tx>_prio<N>_per_s}</td><td>double</td><td>frames/s</td>
 *       <td>per_second of the counter of kind PFC_PAUSE (mlx5 pause, ice XOFF frames)</td></tr>
 *   <tr><td>{@code ecn_marked_per_s}, {@code cnp_sent_per_s}, {@code cnp_handled_per_s},
 *       {@code cnp_ignored_per_s}</td><td>double</td><td>packets/s</td>
 *       <td>per_second of the counter of that kind (mlx5 np_/rp_ or irdma names)</td></tr>
 *   <tr><td>{@code rate_gbps}</td><td>double</td><td>Gb/s</td><td>link speed</td></tr>
 *   <tr><td>{@code state_active}</td><td>long</td><td>1 = ACTIVE, 0 = other</td>
 *       <td>logical port state</td></tr>
 *   <tr><td>{@code netdev_mtu}</td><td>long</td><td>bytes</td><td>netdev MTU</td></tr>
 * </table>
 *
 * <p>A counter tagged {@code saturated}, {@code first} or {@code unavailable} has no known rate: it
 * produces no field at all (a gap on the dashboard), never a zero. Counter names are used as they
 * are, with any character outside {@code [A-Za-z0-9_]} replaced by {@code _} (e.g. Intel's {@code
 * tx_priority_0_xon.nic}), because QuestDB and Flux column names do not accept them.
 *
 * <table>
 *   <caption>Fields of fabric_alerts (one point per alert state change)</caption>
 *   <tr><th>field</th><th>type</th><th>unit</th></tr>
 *   <tr><td>{@code alert_id}</td><td>string</td><td>stable incident id</td></tr>
 *   <tr><td>{@code summary}</td><td>string</td><td>one human-readable line</td></tr>
 *   <tr><td>{@code value}, {@code threshold}</td><td>double</td><td>{@code unit} field</td></tr>
 *   <tr><td>{@code unit}</td><td>string</td><td>unit of value and threshold</td></tr>
 *   <tr><td>{@code job}</td><td>string</td><td>subject job, when any</td></tr>
 * </table>
 */
public final class InfluxSchema {

  public static final String PORT_RATES = "fabric_port_rates";
  public static final String PFC_RATES = "fabric_pfc_rates";
  public static final String ECN_RATES = "fabric_ecn_rates";
  public static final String ALERTS = "fabric_alerts";
  public static final String GPU = "fabric_gpu";
  public static final String GPU_XID = "fabric_gpu_xid";
  public static final String NCCL_TRANSPORT = "fabric_nccl_transport";

  /** One point per FabricLink record of fabric.topology: a cable as a sweep saw it. */
  public static final String LINKS = "fabric_links";

  /** The pipeline about itself: end offsets of its topics (records in and out of each stage). */
  public static final String PIPELINE_TOPICS = "fabricpulse_topics";

  /** The pipeline about itself: the sink's counters and its consumer lag. */
  public static final String PIPELINE_SINK = "fabricpulse_sink";

  /**
   * The pipeline about itself: each alert bridge's counters per robot, from fabric.bridge.counters
   * (BridgeCounters).
   */
  public static final String PIPELINE_BRIDGE = "fabricpulse_bridge";

  /**
   * The pipeline about itself: the lag of the pipeline's other consumer groups (the streams
   * application, the bridges) per topic, read by the sink ({@link GroupLag}).
   */
  public static final String PIPELINE_CONSUMER_LAG = "fabricpulse_consumer_lag";

  /** Field of fabricpulse_consumer_lag: records after the group's committed offsets. */
  public static final String LAG = "lag";

  /** Suffix of the measurement that holds the 10 s aggregates of a rates measurement. */
  public static final String AGGREGATE_SUFFIX = "_10s";

  public static final String TAG_CLUSTER = "cluster";
  public static final String TAG_NODE = "node";
  public static final String TAG_DEVICE = "device";
  public static final String TAG_PORT = "port";
  public static final String TAG_NETDEV = "netdev";
  public static final String TAG_KIND = "kind";
  public static final String TAG_SEVERITY = "severity";
  public static final String TAG_STATE = "state";
  public static final String TAG_RULE = "rule";
  public static final String TAG_PRIORITY = "priority";
  public static final String TAG_GPU = "gpu";
  public static final String TAG_XID = "xid";
  public static final String TAG_HOST = "host";
  public static final String TAG_JOB = "job";
  public static final String TAG_NET = "net";
  public static final String TAG_TOPIC = "topic";
  public static final String TAG_GROUP = "group";
  public static final String TAG_BRIDGE = "bridge";
  public static final String TAG_INSTANCE = "instance";
  public static final String TAG_ROBOT = "robot";
  public static final String TAG_LINK_ID = "link_id";

  /** {@value #LINK_ISL} (switch to switch) or {@value #LINK_HOST} (a CA at one end). */
  public static final String TAG_LINK_TYPE = "link_type";

  public static final String LINK_ISL = "isl";
  public static final String LINK_HOST = "host";

  /** The ends of a link, named as their alerts name them (node, port) and as one label. */
  public static final String TAG_NODE_A = "node_a";

  public static final String TAG_PORT_A = "port_a";
  public static final String TAG_NODE_B = "node_b";
  public static final String TAG_PORT_B = "port_b";

  public static final String PER_SECOND_SUFFIX = "_per_s";
  public static final String DELTA_SUFFIX = "_delta";
  public static final String RX_BYTES_PER_S = "rx_bytes_per_s";
  public static final String TX_BYTES_PER_S = "tx_bytes_per_s";
  public static final String PAUSE_RATIO_PREFIX = "pause_ratio_";
  public static final String PAUSE_FRAMES_PREFIX = "pause_frames_";
  public static final String RATE_GBPS = "rate_gbps";
  public static final String STATE_ACTIVE = "state_active";
  public static final String NETDEV_MTU = "netdev_mtu";

  public static final String ALERT_ID = "alert_id";
  public static final String SUMMARY = "summary";
  public static final String VALUE = "value";
  public static final String THRESHOLD = "threshold";
  public static final String UNIT = "unit";
  public static final String JOB = "job";

  /** Alert fields from the topology join's labels (streams/peers), when the alert has them. */
  public static final List<String> ALERT_PEER_FIELDS = List.of("peer", "peer_node", "incident");

  public static final String END_A = "end_a";
  public static final String END_B = "end_b";
  public static final String WIDTH_A = "width_a";
  public static final String WIDTH_B = "width_b";
  public static final String LANE_GBPS_A = "lane_gbps_a";
  public static final String LANE_GBPS_B = "lane_gbps_b";
  public static final String POSSIBLE_WIDTH = "possible_width";
  public static final String POSSIBLE_RATE_GBPS = "possible_rate_gbps";
  public static final String BELOW_CAPABILITY = "below_capability";

  /** Fields of fabric_gpu: the GpuEcc field names; booleans become 1 (true) or 0. */
  public static final List<String> GPU_FIELDS =
      List.of(
          "ecc_corrected_volatile",
          "ecc_uncorrected_volatile",
          "ecc_corrected_aggregate",
          "ecc_uncorrected_aggregate",
          "retired_pages_sbe",
          "retired_pages_dbe",
          "retired_pages_pending",
          "remapped_rows_correctable",
          "remapped_rows_uncorrectable",
          "remapped_rows_pending",
          "remapped_rows_failure",
          "temperature_gpu",
          "temperature_memory");

  public static final String MESSAGE = "message";
  public static final String EVENTS = "events";
  public static final String GDR = "gdr";
  public static final String NCCL_VERSION = "nccl_version";
  public static final String COMM_ID = "comm_id";
  public static final String END_OFFSET = "end_offset";

  /** Fields of fabricpulse_sink: the sink's counters ({@link SinkMetrics}) and its lag. */
  public static final String RECORDS_CONSUMED = "records_consumed";

  public static final String MALFORMED_RECORDS = "malformed_records";
  public static final String POINTS_WRITTEN = "points_written";
  public static final String WRITE_REQUESTS = "write_requests";
  public static final String WRITE_FAILURES = "write_failures";
  public static final String POINTS_REJECTED = "points_rejected";
  public static final String LATE_SAMPLES = "late_samples";
  public static final String REWRITTEN_BUCKETS = "rewritten_buckets";
  public static final String OFFSET_COMMITS = "offset_commits";
  public static final String CONSUMER_LAG = "consumer_lag";

  /**
   * Fields of fabricpulse_bridge: the BridgeCounters field names (counters since that bridge
   * started), {@code pending} (a gauge) and {@code locked} (1 while in a throttle lockout, else 0).
   */
  public static final List<String> BRIDGE_FIELDS =
      List.of(
          "messages_sent",
          "alerts_delivered",
          "alerts_digested",
          "throttled",
          "too_large",
          "failures",
          "undelivered",
          "pending",
          "locked");

  /** Every measurement the sink writes, for dashboards' checks and the docs. */
  public static final List<String> MEASUREMENTS =
      List.of(
          PORT_RATES,
          PFC_RATES,
          ECN_RATES,
          PORT_RATES + AGGREGATE_SUFFIX,
          PFC_RATES + AGGREGATE_SUFFIX,
          ECN_RATES + AGGREGATE_SUFFIX,
          ALERTS,
          GPU,
          GPU_XID,
          NCCL_TRANSPORT,
          LINKS,
          PIPELINE_TOPICS,
          PIPELINE_SINK,
          PIPELINE_BRIDGE,
          PIPELINE_CONSUMER_LAG);

  /** Tags that mean "no rate is known": no field is written for them [DESIGN 4]. */
  private static final Set<RateTag> NO_RATE =
      EnumSet.of(RateTag.saturated, RateTag.first, RateTag.unavailable);

  private static final Pattern NOT_A_NAME_CHAR = Pattern.compile("[^A-Za-z0-9_]");
  private static final Pattern STATE_NUMBER_PREFIX = Pattern.compile("^\\d+:\\s*");

  /** Pause durations are microseconds of pause per second of wall time [K-enstats]. */
  private static final double MICROS_PER_SECOND = 1e6;

  private InfluxSchema() {}

  public static String measurementFor(RateSource source) {
    return switch (source) {
      case PORT, PERFQUERY -> PORT_RATES;
      case PFC -> PFC_RATES;
      case ECN -> ECN_RATES;
    };
  }

  /** The measurement holding the 10 s aggregates of {@code measurement}. */
  public static String aggregateMeasurement(String measurement) {
    return measurement + AGGREGATE_SUFFIX;
  }

  /** Field names by counter name: a fleet has a few hundred counter names, seen every sample. */
  private static final Map<String, String> FIELD_NAMES = new ConcurrentHashMap<>();

  private static final int MAX_CACHED_FIELD_NAMES = 10_000;

  /** Field-safe form of a counter name: characters outside [A-Za-z0-9_] become '_'. */
  public static String fieldName(String counter) {
    String cached = FIELD_NAMES.get(counter);
    if (cached != null) {
      return cached;
    }
    String name = NOT_A_NAME_CHAR.matcher(counter).replaceAll("_");
    if (FIELD_NAMES.size() < MAX_CACHED_FIELD_NAMES) {
      FIELD_NAMES.put(counter, name);
    }
    return name;
  }

  /** True when the rate stage knew the increase: tags normal, wrap, clear and reboot. */
  public static boolean hasKnownRate(CounterRate rate) {
    return rate.getTag() != null && !NO_RATE.contains(rate.getTag());
  }

  public static SortedMap<String, String> tags(CounterRates rates) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_CLUSTER, rates.getCluster());
    tags.put(TAG_NODE, rates.getNode());
    putIfPresent(tags, TAG_DEVICE, rates.getDevice());
    putIfPresent(tags, TAG_PORT, rates.getPort());
    putIfPresent(tags, TAG_NETDEV, rates.getNetdev());
    return tags;
  }

  /**
   * Every field of one rates record, at full resolution (the sink then splits them by {@link
   * SinkResolution}). Empty when the record carries nothing writable, e.g. a first sample of a port
   * without link attributes.
   */
  public static Optional<SinkPoint> ratesPoint(CounterRates rates) {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (CounterRate rate : rates.getRates()) {
      if (!hasKnownRate(rate)) {
        continue;
      }
      String name = fieldName(rate.getName());
      if (rate.getPerSecond() != null) {
        fields.put(name + PER_SECOND_SUFFIX, rate.getPerSecond());
        putDerived(fields, rate, rate.getPerSecond());
      }
      if (rate.getDelta() != null) {
        fields.put(name + DELTA_SUFFIX, rate.getDelta());
      }
    }
    if (rates.getRateGbps() != null) {
      fields.put(RATE_GBPS, rates.getRateGbps());
    }
    if (rates.getState() != null) {
      fields.put(STATE_ACTIVE, isActive(rates.getState()) ? 1L : 0L);
    }
    if (rates.getNetdevMtu() != null) {
      fields.put(NETDEV_MTU, rates.getNetdevMtu().longValue());
    }
    if (fields.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new SinkPoint(
            measurementFor(rates.getSource()),
            tags(rates),
            fields,
            rates.getTime().toEpochMilli()));
  }

  /** One point per alert state change, at the event time of that change. */
  public static SinkPoint alertPoint(Alert alert) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_CLUSTER, alert.getCluster());
    putIfPresent(tags, TAG_NODE, alert.getNode());
    tags.put(TAG_KIND, alert.getKind().name());
    tags.put(TAG_SEVERITY, alert.getSeverity().name());
    tags.put(TAG_STATE, alert.getState().name());
    tags.put(TAG_RULE, alert.getRule());
    putIfPresent(tags, TAG_DEVICE, alert.getDevice());
    putIfPresent(tags, TAG_PORT, alert.getPort());
    putIfPresent(tags, TAG_NETDEV, alert.getNetdev());
    putIfPresent(tags, TAG_PRIORITY, alert.getPriority());
    putIfPresent(tags, TAG_GPU, alert.getGpu());

    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put(ALERT_ID, alert.getAlertId());
    fields.put(SUMMARY, alert.getSummary());
    if (alert.getValue() != null) {
      fields.put(VALUE, alert.getValue());
    }
    if (alert.getThreshold() != null) {
      fields.put(THRESHOLD, alert.getThreshold());
    }
    if (alert.getUnit() != null) {
      fields.put(UNIT, alert.getUnit());
    }
    if (alert.getJob() != null) {
      fields.put(JOB, alert.getJob());
    }
    for (String label : ALERT_PEER_FIELDS) {
      String value = alert.getLabels() == null ? null : alert.getLabels().get(label);
      if (value != null && !value.isEmpty()) {
        fields.put(label, value);
      }
    }
    long time =
        alert.getResolvedAt() != null
            ? alert.getResolvedAt().toEpochMilli()
            : alert.getStartedAt().toEpochMilli();
    return new SinkPoint(ALERTS, tags, fields, time);
  }

  /** One point per nvidia-smi sample of one GPU, at the sample time; nulls ([N/A]) omitted. */
  public static SinkPoint gpuPoint(GpuEcc sample) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_CLUSTER, sample.getCluster());
    tags.put(TAG_NODE, sample.getNode());
    tags.put(TAG_GPU, Integer.toString(sample.getGpu()));
    Map<String, Object> fields = new LinkedHashMap<>();
    for (String name : GPU_FIELDS) {
      Object value = sample.get(name);
      if (value instanceof Boolean b) {
        fields.put(name, b ? 1L : 0L);
      } else if (value instanceof Number n) {
        fields.put(name, n.longValue());
      }
    }
    if (fields.isEmpty()) {
      fields.put(EVENTS, 1L); // a GPU without ECC reporting still shows it was sampled
    }
    return new SinkPoint(GPU, tags, fields, sample.getTime().toEpochMilli());
  }

  /** One point per Xid event (or fallen-off-the-bus line), at the time of the kernel line. */
  public static SinkPoint xidPoint(GpuXid event) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_CLUSTER, event.getCluster());
    tags.put(TAG_NODE, event.getNode());
    tags.put(TAG_KIND, event.getKind().name());
    putIfPresent(tags, TAG_GPU, event.getGpu());
    putIfPresent(tags, TAG_XID, event.getXid());
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put(EVENTS, 1L);
    fields.put(MESSAGE, event.getMessage());
    return new SinkPoint(GPU_XID, tags, fields, event.getTime().toEpochMilli());
  }

  /**
   * One point per NCCL transport verdict of a job (or communicator) on a host, at the time of the
   * line that set it. {@code net} is a tag (IB, Socket, IBext_v8, ...; absent while unknown),
   * {@code gdr} 1 or 0 (absent when the log does not say).
   */
  public static SinkPoint transportPoint(NcclTransport verdict) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_CLUSTER, verdict.getCluster());
    tags.put(TAG_NODE, verdict.getNode());
    tags.put(TAG_HOST, verdict.getHost());
    putIfPresent(tags, TAG_JOB, verdict.getJob());
    putIfPresent(tags, TAG_NET, verdict.getNet());
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put(EVENTS, 1L);
    if (verdict.getGdr() != null) {
      fields.put(GDR, verdict.getGdr() ? 1L : 0L);
    }
    if (verdict.getNcclVersion() != null) {
      fields.put(NCCL_VERSION, verdict.getNcclVersion());
    }
    if (verdict.getCommId() != null) {
      fields.put(COMM_ID, verdict.getCommId());
    }
    return new SinkPoint(NCCL_TRANSPORT, tags, fields, verdict.getTime().toEpochMilli());
  }

  /**
   * One point per FabricLink record (a cable as one sweep saw it), at the sweep's time. Tags: the
   * link id, {@code link_type} ({@value #LINK_ISL} when both ends are switches, else {@value
   * #LINK_HOST}), each end's node and port named as that end's alerts and switch-port rates name
   * them (a host end {@code gpu007 mlx5_3} as node {@code gpu007}; a switch by its plain
   * NodeDescription, else its GUID: docs/switch-ports.md). Fields: each end's label ({@code leaf-07
   * port 12}), active width and per-lane Gb/s, the rate of the link ({@code rate_gbps}: the
   * narrower width times the slower lane), what both ends support (iblinkinfo's {@code Could be}:
   * {@code possible_width}, {@code possible_rate_gbps}, the active value when the tool printed
   * none) and {@code below_capability} 1 when the link runs below it.
   */
  public static SinkPoint linkPoint(FabricLink link) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_CLUSTER, link.getCluster());
    tags.put(TAG_LINK_ID, link.getLinkId());
    LinkPort a = link.getEndA();
    LinkPort b = link.getEndB();
    tags.put(
        TAG_LINK_TYPE,
        a.getNodeType() == FabricNodeType.SWITCH && b.getNodeType() == FabricNodeType.SWITCH
            ? LINK_ISL
            : LINK_HOST);
    tags.put(TAG_NODE_A, endNode(a));
    tags.put(TAG_PORT_A, Integer.toString(a.getPort()));
    tags.put(TAG_NODE_B, endNode(b));
    tags.put(TAG_PORT_B, Integer.toString(b.getPort()));
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put(END_A, endLabel(a));
    fields.put(END_B, endLabel(b));
    Double laneA = laneGbps(a.getSpeed());
    Double laneB = laneGbps(b.getSpeed());
    if (a.getWidth() != null) {
      fields.put(WIDTH_A, a.getWidth().longValue());
    }
    if (b.getWidth() != null) {
      fields.put(WIDTH_B, b.getWidth().longValue());
    }
    if (laneA != null) {
      fields.put(LANE_GBPS_A, laneA);
    }
    if (laneB != null) {
      fields.put(LANE_GBPS_B, laneB);
    }
    if (a.getWidth() != null && b.getWidth() != null && laneA != null && laneB != null) {
      int width = Math.min(a.getWidth(), b.getWidth());
      double lane = Math.min(laneA, laneB);
      int possibleWidth =
          link.getPossibleWidth() != null ? Math.max(link.getPossibleWidth(), width) : width;
      Double possibleLane = laneGbps(link.getPossibleSpeed());
      double bestLane = possibleLane != null ? Math.max(possibleLane, lane) : lane;
      fields.put(RATE_GBPS, width * lane);
      fields.put(POSSIBLE_WIDTH, (long) possibleWidth);
      fields.put(POSSIBLE_RATE_GBPS, possibleWidth * bestLane);
      fields.put(BELOW_CAPABILITY, possibleWidth > width || bestLane > lane ? 1L : 0L);
    }
    return new SinkPoint(LINKS, tags, fields, link.getTime().toEpochMilli());
  }

  private static String endNode(LinkPort end) {
    String d = end.getNodeDescription();
    if (end.getNodeType() == FabricNodeType.CA && d != null && d.matches("\\S+ \\S+")) {
      return d.split(" ")[0];
    }
    return d != null && d.matches("[A-Za-z0-9._:;@+-]+") ? d : end.getGuid();
  }

  private static String endLabel(LinkPort end) {
    String d = end.getNodeDescription();
    return (d != null && !d.isEmpty() ? d : end.getGuid()) + " port " + end.getPort();
  }

  /**
   * The nominal per-lane rate of a speed, as the sysfs rate and the switch-port records count it
   * (docs/switch-ports.md: SDR 2.5, DDR 5, QDR and FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR
   * 200 Gb/s), so a link's {@code rate_gbps} compares with its ports' {@code rate_gbps}.
   */
  static Double laneGbps(LinkSpeed speed) {
    if (speed == null) {
      return null;
    }
    return switch (speed) {
      case SDR -> 2.5;
      case DDR -> 5.0;
      case QDR, FDR10 -> 10.0;
      case FDR -> 14.0;
      case EDR -> 25.0;
      case HDR -> 50.0;
      case NDR -> 100.0;
      case XDR -> 200.0;
    };
  }

  /**
   * One point per BridgeCounters record: one robot of one running bridge, at the time the bridge
   * took the counters (the pipeline's clock, like the other fabricpulse_* measurements).
   */
  public static SinkPoint bridgePoint(BridgeCounters counters) {
    SortedMap<String, String> tags = new TreeMap<>();
    tags.put(TAG_BRIDGE, counters.getBridge());
    tags.put(TAG_INSTANCE, counters.getInstance());
    tags.put(TAG_ROBOT, counters.getRobot());
    Map<String, Object> fields = new LinkedHashMap<>();
    for (String name : BRIDGE_FIELDS) {
      Object value = counters.get(name);
      fields.put(name, value instanceof Boolean b ? (b ? 1L : 0L) : ((Number) value).longValue());
    }
    return new SinkPoint(PIPELINE_BRIDGE, tags, fields, counters.getTime().toEpochMilli());
  }

  /**
   * Fields named by the counter's typed meaning (kind, direction, priority from the rate stage), so
   * every driver's counters land in the same series: mlx5 {@code rx_prio3_pause_duration} and
   * legacy {@code prio3_rx_pause_duration} both give {@code pause_ratio_prio3}; mlx5 {@code
   * rx_prio3_pause} and ice {@code rx_priority_3_xoff.nic} both give {@code
   * pause_frames_rx_prio3_per_s}; mlx5 {@code rp_cnp_ignored} and irdma {@code cnpIgnored} both
   * give {@code cnp_ignored_per_s}.
   */
  private static void putDerived(Map<String, Object> fields, CounterRate rate, double perSecond) {
    // The rate stage already turned octets/4 into bytes [PQ], so these are plain copies.
    String counter = rate.getName();
    if (counter.equals("port_rcv_data")) {
      fields.put(RX_BYTES_PER_S, perSecond);
    } else if (counter.equals("port_xmit_data")) {
      fields.put(TX_BYTES_PER_S, perSecond);
    }
    CounterKind kind = rate.getKind();
    if (kind == null) {
      return;
    }
    boolean rx = rate.getDirection() == CounterDirection.RX;
    Integer prio = rate.getPriority();
    switch (kind) {
      // Not clamped to 1: a ratio slightly above 1 shows sampling jitter and is kept as measured.
      case PFC_PAUSE_DURATION -> {
        if (rx && prio != null) {
          fields.put(PAUSE_RATIO_PREFIX + "prio" + prio, perSecond / MICROS_PER_SECOND);
        }
      }
      case GLOBAL_PAUSE_DURATION -> {
        if (rx) {
          fields.put(PAUSE_RATIO_PREFIX + "global", perSecond / MICROS_PER_SECOND);
        }
      }
      case PFC_PAUSE -> {
        if (prio != null && rate.getDirection() != null) {
          String dir = rate.getDirection().name().toLowerCase(Locale.ROOT);
          fields.put(PAUSE_FRAMES_PREFIX + dir + "_prio" + prio + PER_SECOND_SUFFIX, perSecond);
        }
      }
      case ECN_MARKED, CNP_SENT, CNP_HANDLED, CNP_IGNORED ->
          fields.put(kind.name().toLowerCase(Locale.ROOT) + PER_SECOND_SUFFIX, perSecond);
      default -> {}
    }
  }

  /** sysfs gives "4: ACTIVE", the rate stage may carry "ACTIVE" [procfs]; ACTIVE_DEFER is not. */
  static boolean isActive(String state) {
    return STATE_NUMBER_PREFIX.matcher(state.trim()).replaceFirst("").equals("ACTIVE");
  }

  private static void putIfPresent(Map<String, String> tags, String name, Object value) {
    if (value != null) {
      tags.put(name, value.toString());
    }
  }
}
