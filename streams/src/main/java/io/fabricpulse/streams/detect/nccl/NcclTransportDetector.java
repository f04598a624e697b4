package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.AlertSinks;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.alerts.FiringPolicy;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.detect.link.LinkProgress;
import io.fabricpulse.streams.rules.RuleSet;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * The NCCL transport detectors (docs/thresholds.md G1, G2; issue 4 detector 3): GDR_FALLBACK,
 * NET_FALLBACK_SOCKET and NCCL_ERROR per (host, job) over fabric.raw.nccl, with each host's RDMA
 * port inventory from fabric.rates, and the transport verdicts on fabric.nccl.transport.
 *
 * <pre>
 * source-fabric-raw-nccl -> nccl-logs-only -> nccl-logs-key-by-host
 *   -> repartition nccl-logs-by-host -> nccl-logs-as-input ---------------------------+
 * source-fabric-rates -> nccl-port-state-changes [nccl-port-last-state]               |
 *   -> repartition nccl-port-changes-by-node -> nccl-port-changes-as-input -> nccl-inputs-merge
 * link-results-cast (the link family's alerts and node progress markers, shared in-topology)
 *   -> nccl-link-state-key-by-node -> repartition nccl-link-state-by-node
 *   -> nccl-link-state-as-input -> nccl-link-state-merge
 *   -> nccl-transport-detector [nccl-transport-verdicts, nccl-node-ports, nccl-alert-tracker,
 *                               nccl-node-link-alerts, nccl-node-link-clocks, nccl-held-errors]
 *      -> nccl-dead-letters-only -> nccl-dead-letters-cast -> nccl-sink-dlq (fabric.dlq)
 *      -> nccl-transports-only -> nccl-transports-cast -> nccl-to-transport (fabric.nccl.transport)
 *      -> nccl-alerts-and-ticks-only -> nccl-alerts-cast -> nccl-alerts-key-by-cluster
 *         -> repartition nccl-alerts-by-cluster
 *         -> nccl-job-incidents [nccl-job-incidents, nccl-job-pending, nccl-job-progress]
 *         -> fabric.alerts, fabric.alerts.active
 * </pre>
 *
 * The input repartitions key by {@code cluster/host} (= cluster/node) with the partition count of
 * fabric.raw.nccl, so a host's log lines, its port changes and its link alerts meet in one task
 * even when the job log was collected on another node (a Slurm job's output holds the lines of
 * every host). The link alerts come from the link family inside the topology (never read back from
 * fabric.alerts): an NCCL_ERROR waits, in the node's link event time, for the link alerts of its
 * node up to its line's time plus a grace ({@link NodeLinkAlerts}), so the same input gives the
 * same alert whatever the load. Without the link family in the topology an NCCL_ERROR goes out at
 * once, without link alerts. The job stage judges a job's host alerts in event-time order up to the
 * host tasks' progress ({@link JobStageProgress}), so a job's page does not depend on which host's
 * record arrives first either.
 */
public final class NcclTransportDetector {

  /** One verdict per (cluster/host | host|job:ID or host|file:PATH). */
  public static final String VERDICT_STORE = "nccl-transport-verdicts";

  /** RDMA port inventory per cluster/node (= NCCL host). */
  public static final String NODE_PORTS_STORE = "nccl-node-ports";

  /** Last (state, phys_state, link_layer) per cluster/node/port, to forward changes only. */
  public static final String PORT_STATE_STORE = "nccl-port-last-state";

  /** The link detector's alerts per cluster/node|alert_id|raised-at ({@link NodeLinkAlerts}). */
  public static final String NODE_LINK_ALERTS_STORE = "nccl-node-link-alerts";

  /** Per cluster/node, the time up to which the link detector has sent its alerts. */
  public static final String NODE_LINK_CLOCK_STORE = "nccl-node-link-clocks";

  /** NCCL_ERROR records waiting for their node's link alerts ({@link NodeLinkAlerts}). */
  public static final String HELD_ERRORS_STORE = "nccl-held-errors";

  /** Repartition of the link detector's alerts and progress markers by cluster/node. */
  public static final String LINK_STATE_BY_NODE = "nccl-link-state-by-node";

  /** Trackers of the gdr_fallback, net_fallback_socket and nccl_error rules. */
  public static final String TRACKER_STORE = "nccl-alert-tracker";

  /** Repartitions (internal topics {@code <application.id>-<name>-repartition}). */
  public static final String LOGS_BY_HOST = "nccl-logs-by-host";

  public static final String PORT_CHANGES_BY_NODE = "nccl-port-changes-by-node";

  public static final String PROCESSOR = "nccl-transport-detector";

  /** Open job-level GDR/socket alerts per rule|cluster/job=ID (hosts in evidence "hosts"). */
  public static final String JOB_INCIDENT_STORE = "nccl-job-incidents";

  /** Host alerts of jobs waiting for the host tasks' watermark, by time|rule|job|host|state. */
  public static final String JOB_PENDING_STORE = "nccl-job-pending";

  /** The latest time each host task reported to the job stage ({@link JobStageProgress}). */
  public static final String JOB_PROGRESS_STORE = "nccl-job-progress";

  /** Repartition of the per-host alerts and the host tasks' progress ticks by cluster. */
  public static final String ALERTS_BY_CLUSTER = "nccl-alerts-by-cluster";

  /**
   * The longest an NCCL alert waits, in event time, before it goes out: an NCCL_ERROR for its
   * node's link alerts ({@link NodeLinkAlerts#GRACE}), a job's host alert for the other host tasks
   * ({@link JobStageProgress#SETTLE}). An offline run ends by moving time this far.
   */
  public static final Duration LONGEST_WAIT =
      NodeLinkAlerts.GRACE.compareTo(JobStageProgress.SETTLE) >= 0
          ? NodeLinkAlerts.GRACE
          : JobStageProgress.SETTLE;

  /** A verdict or an error is a finding, not a level that must persist: it fires at once. */
  static final FiringPolicy POLICY = FiringPolicy.IMMEDIATE;

  /** The NCCL family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          "nccl",
          EnumSet.of(AlertKind.GDR_FALLBACK, AlertKind.NET_FALLBACK_SOCKET, AlertKind.NCCL_ERROR),
          NcclTransportDetector::addTo);

  private NcclTransportDetector() {}

  /** The stores of the job stage ({@link JobIncidents}); its stories build the stage alone. */
  static void addJobStageStores(DetectorInputs inputs) {
    inputs.addStore(JOB_INCIDENT_STORE, inputs.serdes().alert());
    inputs.addStore(JOB_PENDING_STORE, inputs.serdes().alert());
    inputs.addStore(JOB_PROGRESS_STORE, Serdes.Long());
  }

  /** Adds the NCCL detectors to the inputs' builder. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    FabricTopics topics = inputs.topics();
    DetectorSerdes serdes = inputs.serdes();
    inputs.addStore(VERDICT_STORE, VerdictSerde.serde());
    inputs.addStore(NODE_PORTS_STORE, NodePorts.serde());
    inputs.addStore(PORT_STATE_STORE, Serdes.String());
    addJobStageStores(inputs);
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    inputs.addStore(NODE_LINK_ALERTS_STORE, serdes.alert());
    inputs.addStore(NODE_LINK_CLOCK_STORE, Serdes.Long());
    inputs.addStore(HELD_ERRORS_STORE, serdes.alert());
    int partitions = topics.nccl().partitions();

    KStream<String, SpecificRecord> logs =
        inputs.stream(topics.nccl(), NcclLog.class)
            .filter((key, log) -> log != null, Named.as("nccl-logs-only"))
            .selectKey(
                (key, log) ->
                    log.getCluster()
                        + "/"
                        + (log.getHost() != null ? log.getHost() : log.getNode()),
                Named.as("nccl-logs-key-by-host"))
            .repartition(
                Repartitioned.<String, NcclLog>as(LOGS_BY_HOST)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(serdes.value(NcclLog.class))
                    .withNumberOfPartitions(partitions))
            .mapValues(log -> (SpecificRecord) log, Named.as("nccl-logs-as-input"));
    KStream<String, SpecificRecord> portChanges =
        inputs
            .rates()
            .process(PortStateChanges::new, Named.as("nccl-port-state-changes"), PORT_STATE_STORE)
            .repartition(
                Repartitioned.<String, CounterRates>as(PORT_CHANGES_BY_NODE)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(serdes.rates())
                    .withNumberOfPartitions(partitions))
            .mapValues(r -> (SpecificRecord) r, Named.as("nccl-port-changes-as-input"));
    NcclChecks checks = new NcclChecks(rules);
    KStream<String, SpecificRecord> input = logs.merge(portChanges, Named.as("nccl-inputs-merge"));
    Optional<KStream<String, Alert>> linkState = inputs.shared(LinkProgress.SHARED_STREAM);
    if (linkState.isPresent()) {
      input =
          input.merge(
              linkState
                  .get()
                  .selectKey(
                      (key, a) -> a == null ? key : a.getCluster() + "/" + a.getNode(),
                      Named.as("nccl-link-state-key-by-node"))
                  .repartition(
                      Repartitioned.<String, Alert>as(LINK_STATE_BY_NODE)
                          .withKeySerde(Serdes.String())
                          .withValueSerde(serdes.alert())
                          .withNumberOfPartitions(partitions))
                  .mapValues(a -> (SpecificRecord) a, Named.as("nccl-link-state-as-input")),
              Named.as("nccl-link-state-merge"));
    }
    boolean linkAlertsShared = linkState.isPresent();
    KStream<String, SpecificRecord> out =
        DetectorProcessor.addProcessor(
            inputs,
            "nccl",
            PROCESSOR,
            input,
            failures -> new NcclTransportProcessor(checks, linkAlertsShared, failures),
            VERDICT_STORE,
            NODE_PORTS_STORE,
            TRACKER_STORE,
            NODE_LINK_ALERTS_STORE,
            NODE_LINK_CLOCK_STORE,
            HELD_ERRORS_STORE);
    out.filter((key, v) -> v instanceof NcclTransport, Named.as("nccl-transports-only"))
        .mapValues(v -> (NcclTransport) v, Named.as("nccl-transports-cast"))
        .to(
            topics.ncclTransport().name(),
            Produced.with(Serdes.String(), serdes.value(NcclTransport.class))
                .withName("nccl-to-transport"));
    KStream<String, Alert> alerts =
        out.filter(
                (key, v) -> v == null || v instanceof Alert, Named.as("nccl-alerts-and-ticks-only"))
            .mapValues(v -> (Alert) v, Named.as("nccl-alerts-cast"))
            // a progress tick (null value) is keyed by its cluster already
            .selectKey(
                (key, a) -> a == null ? key : a.getCluster(),
                Named.as("nccl-alerts-key-by-cluster"))
            .repartition(
                Repartitioned.<String, Alert>as(ALERTS_BY_CLUSTER)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(serdes.alert()))
            .process(
                () -> new JobIncidents(partitions),
                Named.as("nccl-job-incidents"),
                JOB_INCIDENT_STORE,
                JOB_PENDING_STORE,
                JOB_PROGRESS_STORE);
    AlertSinks.addTo(alerts, "nccl", topics, serdes.alert());
  }
}
