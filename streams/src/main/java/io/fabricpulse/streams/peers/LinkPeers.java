package io.fabricpulse.streams.peers;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.streams.alerts.AlertSubject;
import io.fabricpulse.streams.alerts.DetectorInputs;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The topology join: a port alert (node, device and port set) gets the other end of its cable from
 * fabric.topology as labels {@code peer} ({@code leaf-07 port 12}), {@code peer_node}, {@code
 * peer_guid}, {@code peer_port}, {@code peer_type}, {@code link_id}, and the link's incident key
 * {@value #INCIDENT}.
 *
 * <p>fabric.topology is keyed by link; processor {@value #INDEXER} re-keys every link by the alert
 * name of each of its two ends ({@code cluster/node/device=.../port=...}, {@link
 * io.fabricpulse.streams.detect.capability.Subjects}); a tombstone (a cable the sweep no longer
 * shows, as while its port is down) changes nothing, so a down or flapping port still names its
 * cable's other end. Both ends land in the versioned table {@value #TABLE_STORE} (through
 * repartition topic {@value #BY_PORT_TOPIC}). A family's alerts are re-keyed by their port ({@code
 * <family>-alerts-by-port}) and joined with that table at the alert's own event time: a versioned
 * table answers "which link did this port have at time t", so the labels depend on the alert's time
 * and the sweeps before it, not on which of the two arrived first. An alert whose port has no link
 * at its time (no sweep yet, a RoCE netdev, a node-level alert) passes unchanged.
 *
 * <pre>
 * source-fabric-topology -> peers-link-ends-by-port
 *   -> peers-links-by-port (repartition) -> peers-links-table [peers-links-by-port-store, versioned]
 * &lt;family&gt; alerts -> &lt;family&gt;-alerts-port-key -> &lt;family&gt;-alerts-by-port (repartition)
 *   -> &lt;family&gt;-peer-join -> &lt;family&gt;-alerts-by-id
 * </pre>
 *
 * <p>A sweep that arrives after an alert of a time it covers (the fabric role's first sweep after
 * its start, a topology partition behind the alerts) does not change that alert: the alert went out
 * without peer labels, and is not sent again; later records of the same alert (its RESOLVED) find
 * the link.
 */
public final class LinkPeers {

  public static final String INDEXER = "peers-link-ends-by-port";

  /** Name of the repartition topic of the links keyed by port. */
  public static final String BY_PORT_TOPIC = "peers-links-by-port";

  public static final String TABLE = "peers-links-table";

  /** The versioned table: port key -> the link it had at each time. */
  public static final String TABLE_STORE = "peers-links-by-port-store";

  /**
   * How long the table keeps a port's earlier links: an alert up to this much older than the newest
   * sweep still finds the link its port had then (the newest link of a port is kept forever).
   */
  public static final Duration HISTORY = Duration.ofDays(7);

  public static final String PEER = "peer";
  public static final String PEER_NODE = "peer_node";
  public static final String PEER_GUID = "peer_guid";

  /** What the other end is, as the sweep says: {@code SWITCH}, {@code CA} or {@code ROUTER}. */
  public static final String PEER_TYPE = "peer_type";

  public static final String PEER_PORT = "peer_port";
  public static final String LINK_ID = "link_id";

  /**
   * The incident key: the same for every alert of one kind on either end of one cable ({@link
   * PeerLabels#incident}). Alerts with the same key whose times overlap ({@code started_at} to
   * {@code resolved_at}) are one incident: a flap the host's sysfs and the switch's perfquery sweep
   * both see. The key does not depend on arrival order (the two ends' alerts come from two
   * partitions, in either order); a flap of the same cable after both ends resolved has the same
   * key but does not overlap: the next incident.
   */
  public static final String INCIDENT = "incident";

  /** Per netdev key the RDMA port key last seen with it ({@link NetdevPortIndexer} state). */
  public static final String NETDEV_PORTS_STORE = "peers-netdev-ports";

  public static final String NETDEV_INDEXER = "peers-netdev-ports-by-netdev";

  /** Name of the repartition topic of the netdev -> port index. */
  public static final String NETDEV_BY_NETDEV_TOPIC = "peers-netdev-ports-by-netdev";

  public static final String NETDEV_TABLE = "peers-netdev-ports-table";

  /** The versioned table: netdev key -> the RDMA port key it was at each time. */
  public static final String NETDEV_TABLE_STORE = "peers-netdev-ports-store";

  /**
   * The port key a RoCE alert's netdev resolved to, carried from the netdev join to the port join
   * through the internal topic between them, and removed there: no alert leaves with it.
   */
  static final String PORT_KEY_LABEL = "peers.port_key";

  private LinkPeers() {}

  /**
   * The topology join for RoCE port alerts (PAUSE_STORM, PFC_MISCONFIG, ECN_MISCONFIG,
   * ECN_NOT_EFFECTIVE, LOSSLESS_DROP), which name their port by netdev: the netdev is first
   * resolved to its RDMA port from the host's own port samples ({@link NetdevPortIndexer}, a
   * versioned table read at the alert's time), then joined with the links like {@link #join}. An
   * alert that names device and port joins directly; one whose netdev no port sample named by its
   * time, or whose port has no link, passes unchanged (a RoCE fabric has no IB topology: its links
   * are known only where a topology source names the hosts' RDMA ports).
   *
   * <pre>
   * source-fabric-rates -> peers-netdev-ports-by-netdev [peers-netdev-ports]
   *   -> peers-netdev-ports-by-netdev (repartition) -> peers-netdev-ports-table
   *      [peers-netdev-ports-store, versioned]
   * &lt;family&gt; alerts -> &lt;family&gt;-alerts-to-join -> &lt;family&gt;-alerts-netdev-key
   *   -> &lt;family&gt;-alerts-by-netdev
   *   (repartition) -> &lt;family&gt;-netdev-join -> &lt;family&gt;-alerts-port-key
   *   -> &lt;family&gt;-alerts-by-port (repartition) -> &lt;family&gt;-peer-join
   *   -> &lt;family&gt;-alerts-by-id
   * </pre>
   */
  public static KStream<String, Alert> joinByNetdev(
      DetectorInputs inputs, KStream<String, Alert> alerts, String family) {
    KTable<String, String> netdevPorts = inputs.once(NETDEV_TABLE, () -> netdevTable(inputs));
    Serde<Alert> alertSerde = inputs.serdes().alert();
    KStream<String, Alert> resolved =
        alerts
            .filter((id, alert) -> alert != null, Named.as(family + "-alerts-to-join"))
            .selectKey((id, alert) -> netdevKey(alert), Named.as(family + "-alerts-netdev-key"))
            .repartition(
                Repartitioned.<String, Alert>as(family + "-alerts-by-netdev")
                    .withKeySerde(Serdes.String())
                    .withValueSerde(alertSerde))
            .leftJoin(
                netdevPorts,
                LinkPeers::withPortKey,
                Joined.with(Serdes.String(), alertSerde, Serdes.String())
                    .withName(family + "-netdev-join"));
    return joinByPort(inputs, resolved, family, LinkPeers::resolvedPortKey);
  }

  private static KTable<String, String> netdevTable(DetectorInputs inputs) {
    inputs.addStore(NETDEV_PORTS_STORE, Serdes.String());
    return inputs
        .rates()
        .process(NetdevPortIndexer::new, Named.as(NETDEV_INDEXER), NETDEV_PORTS_STORE)
        .repartition(
            Repartitioned.<String, String>as(NETDEV_BY_NETDEV_TOPIC)
                .withKeySerde(Serdes.String())
                .withValueSerde(Serdes.String()))
        .toTable(
            Named.as(NETDEV_TABLE),
            versioned(
                inputs,
                Materialized.<String, String>as(
                        Stores.persistentVersionedKeyValueStore(NETDEV_TABLE_STORE, HISTORY))
                    .withKeySerde(Serdes.String())
                    .withValueSerde(Serdes.String())));
  }

  /** {@code cluster/node/netdev=...} of an alert that names node and netdev, else its alert_id. */
  static String netdevKey(Alert alert) {
    if (alert.getNode() == null || alert.getNetdev() == null) {
      return alert.getAlertId();
    }
    return AlertSubject.node(alert.getCluster(), alert.getNode())
        .withNetdev(alert.getNetdev())
        .key();
  }

  private static Alert withPortKey(Alert alert, String portKey) {
    if (portKey == null || alert == null) {
      return alert;
    }
    Map<String, String> labels = new LinkedHashMap<>(alert.getLabels());
    labels.put(PORT_KEY_LABEL, portKey);
    return Alert.newBuilder(alert).setLabels(labels).build();
  }

  private static Alert withoutPortKey(Alert alert) {
    if (alert == null || !alert.getLabels().containsKey(PORT_KEY_LABEL)) {
      return alert;
    }
    Map<String, String> labels = new LinkedHashMap<>(alert.getLabels());
    labels.remove(PORT_KEY_LABEL);
    return Alert.newBuilder(alert).setLabels(labels).build();
  }

  private static String resolvedPortKey(Alert alert) {
    String resolved = alert.getLabels().get(PORT_KEY_LABEL);
    return resolved != null ? resolved : portKey(alert);
  }

  /**
   * {@code alerts} (key alert_id) with the peer labels of their port's link; the result is keyed by
   * alert_id again.
   *
   * @param family prefix of the processor and topic names, e.g. {@code link}
   */
  public static KStream<String, Alert> join(
      DetectorInputs inputs, KStream<String, Alert> alerts, String family) {
    return joinByPort(inputs, alerts, family, LinkPeers::portKey);
  }

  /**
   * {@code alerts} re-keyed by {@code portKeyOf} ({@code <family>-alerts-by-port}), joined with the
   * links at their time, keyed by alert_id again.
   */
  private static KStream<String, Alert> joinByPort(
      DetectorInputs inputs,
      KStream<String, Alert> alerts,
      String family,
      Function<Alert, String> portKeyOf) {
    KTable<String, FabricLink> links = inputs.once(TABLE, () -> table(inputs));
    Serde<Alert> alertSerde = inputs.serdes().alert();
    return alerts
        .selectKey((id, alert) -> portKeyOf.apply(alert), Named.as(family + "-alerts-port-key"))
        .repartition(
            Repartitioned.<String, Alert>as(family + "-alerts-by-port")
                .withKeySerde(Serdes.String())
                .withValueSerde(alertSerde))
        .leftJoin(
            links,
            (port, alert, link) -> PeerLabels.add(port, withoutPortKey(alert), link),
            Joined.with(Serdes.String(), alertSerde, inputs.serdes().value(FabricLink.class))
                .withName(family + "-peer-join"))
        .selectKey((port, alert) -> alert.getAlertId(), Named.as(family + "-alerts-by-id"));
  }

  private static KTable<String, FabricLink> table(DetectorInputs inputs) {
    Serde<FabricLink> linkSerde = inputs.serdes().value(FabricLink.class);
    return inputs.stream(inputs.topics().topology(), FabricLink.class)
        .process(LinkEndsIndexer::new, Named.as(INDEXER))
        .repartition(
            Repartitioned.<String, FabricLink>as(BY_PORT_TOPIC)
                .withKeySerde(Serdes.String())
                .withValueSerde(linkSerde))
        .toTable(
            Named.as(TABLE),
            versioned(
                inputs,
                Materialized.<String, FabricLink>as(
                        Stores.persistentVersionedKeyValueStore(TABLE_STORE, HISTORY))
                    .withKeySerde(Serdes.String())
                    .withValueSerde(linkSerde)));
  }

  /**
   * A versioned table's store, without its changelog offline (Kafka Streams has no in-memory
   * versioned store, so it stays in RocksDB there).
   */
  private static <V> Materialized<String, V, KeyValueStore<Bytes, byte[]>> versioned(
      DetectorInputs inputs, Materialized<String, V, KeyValueStore<Bytes, byte[]>> table) {
    return inputs.offlineState() ? table.withLoggingDisabled() : table;
  }

  /**
   * The join key of an alert: its port ({@code cluster/node/device=.../port=...}) when the alert
   * names node, device and port, else its alert_id (which no port has, so the alert passes).
   */
  static String portKey(Alert alert) {
    if (alert.getNode() == null || alert.getDevice() == null || alert.getPort() == null) {
      return alert.getAlertId();
    }
    return AlertSubject.node(alert.getCluster(), alert.getNode())
        .withDevice(alert.getDevice())
        .withPort(alert.getPort())
        .key();
  }
}
