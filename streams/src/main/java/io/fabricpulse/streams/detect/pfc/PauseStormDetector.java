package io.fabricpulse.streams.detect.pfc;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.streams.alerts.AlertSinks;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.DetectorProcessor;
import io.fabricpulse.streams.order.UpstreamWatermark;
import io.fabricpulse.streams.peers.LinkPeers;
import io.fabricpulse.streams.rules.Detector;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;

/**
 * The PFC detectors (docs/thresholds.md, PFC): PAUSE_STORM and PFC_MISCONFIG per (node, netdev,
 * priority) over fabric.rates, and PAUSE_PROPAGATION per cluster over the storms.
 *
 * <p>Paging: one storm incident pages its origin port(s) at once and one PAUSE_PROPAGATION; each
 * victim's FIRING is held for the propagation window ({@link VictimHold}) and folded into the
 * incident if one opens, or published late otherwise ({@link PausePropagationProcessor}).
 *
 * <pre>
 * source-fabric-rates -> pfc-rates-only -> pfc-port-detector [pfc-pause-storm-tracker, -held]
 *   -> pfc-dead-letters-only -> pfc-dead-letters-cast -> pfc-sink-dlq (fabric.dlq)
 *   -> pfc-results-only -> pfc-results-cast
 *   -> pfc-storm-alerts (and progress ticks) -> pfc-storms-key-by-cluster
 *        -> repartition pfc-storms-by-cluster -> pfc-storms-as-input
 * source-fabric-topology -> pfc-links-only -> pfc-links-key-by-cluster
 *        -> repartition pfc-links-by-cluster -> pfc-links-as-input
 *   both -> pfc-propagation-inputs-merge
 *        -> pfc-pause-propagation [pfc-pause-propagation-storms, -tracker, -victims, -pending,
 *                                  -progress, -links]
 *   -> pfc-other-alerts
 *   both -> pfc-alerts-merge -> the topology join by netdev ({@link LinkPeers#joinByNetdev}:
 *        the switch port at the other end of a storm's port, when the topology knows it)
 *        -> fabric.alerts, fabric.alerts.active
 * </pre>
 */
public final class PauseStormDetector {

  /** Per-port trackers of the pause_storm and pfc_misconfig rules (key rule|subject). */
  public static final String TRACKER_STORE = "pfc-pause-storm-tracker";

  /** Storm alerts per cluster (key cluster|alert_id), FIRING or recently RESOLVED. */
  public static final String PROPAGATION_STORMS_STORE = "pfc-pause-propagation-storms";

  /** Trackers of the pause_propagation rules (key rule|cluster). */
  public static final String PROPAGATION_TRACKER_STORE = "pfc-pause-propagation-tracker";

  /** Victims' FIRING PAUSE_STORMs held by the port stage (key due time|alert_id). */
  public static final String HELD_STORMS_STORE = "pfc-pause-storm-held";

  /** Victim storms (key cluster|alert_id): HELD, FOLDED into an incident, or PUBLISHED. */
  public static final String PROPAGATION_VICTIMS_STORE = "pfc-pause-propagation-victims";

  /**
   * Storm records waiting until every port-stage task has passed their time (key {@code <event
   * time>|<source>|<offset>|<page>}), so they are judged in event-time order ({@link
   * UpstreamWatermark}).
   */
  public static final String PROPAGATION_PENDING_STORE = "pfc-pause-propagation-pending";

  /** The latest time each port-stage task reported to the propagation stage (key source). */
  public static final String PROPAGATION_PROGRESS_STORE = "pfc-pause-propagation-progress";

  /** The cluster's links from fabric.topology (key link_id), to trace incidents across switches. */
  public static final String PROPAGATION_LINKS_STORE = "pfc-pause-propagation-links";

  /** Repartition (internal topic {@code <application.id>-pfc-storms-by-cluster-repartition}). */
  public static final String STORMS_BY_CLUSTER = "pfc-storms-by-cluster";

  /** Repartition of fabric.topology by cluster, co-partitioned with {@link #STORMS_BY_CLUSTER}. */
  public static final String LINKS_BY_CLUSTER = "pfc-links-by-cluster";

  /** Every store of the propagation stage. */
  static final String[] PROPAGATION_STORE_NAMES = {
    PROPAGATION_STORMS_STORE,
    PROPAGATION_TRACKER_STORE,
    PROPAGATION_VICTIMS_STORE,
    PROPAGATION_PENDING_STORE,
    PROPAGATION_PROGRESS_STORE,
    PROPAGATION_LINKS_STORE
  };

  public static final String PORT_PROCESSOR = "pfc-port-detector";
  public static final String PROPAGATION_PROCESSOR = "pfc-pause-propagation";

  /** The PFC family as the pipeline registers it. */
  public static final DetectorModule MODULE =
      DetectorModule.of(
          "pfc",
          EnumSet.of(AlertKind.PAUSE_STORM, AlertKind.PAUSE_PROPAGATION, AlertKind.PFC_MISCONFIG),
          PauseStormDetector::addTo);

  private PauseStormDetector() {}

  /** Adds the PFC detectors to the inputs' builder; alerts go to both alert topics. */
  public static void addTo(DetectorInputs inputs, RuleSet rules) {
    Serde<Alert> alertSerde = inputs.serdes().alert();
    inputs.addStore(TRACKER_STORE, new TrackerStateSerde());
    inputs.addStore(HELD_STORMS_STORE, alertSerde);
    addPropagationStores(inputs);

    List<PauseStormCheck> stormChecks =
        rules.enabledFor(Detector.PAUSE_STORM).stream().map(PauseStormCheck::new).toList();
    List<PfcMisconfigCheck> misconfigChecks =
        rules.enabledFor(Detector.PFC_MISCONFIG).stream().map(PfcMisconfigCheck::new).toList();
    var propagationRules = rules.enabledFor(Detector.PAUSE_PROPAGATION);

    KStream<String, CounterRates> pfcRates =
        inputs
            .rates()
            .filter(
                (key, r) -> r != null && r.getSource() == RateSource.PFC,
                Named.as("pfc-rates-only"));
    KStream<String, Alert> portAlerts =
        DetectorProcessor.alertsOf(
            inputs,
            "pfc",
            PORT_PROCESSOR,
            pfcRates,
            failures ->
                new PfcDetectorProcessor(stormChecks, misconfigChecks, propagationRules, failures),
            TRACKER_STORE,
            HELD_STORMS_STORE);
    // a null value is a progress tick (StormPage.TICK), keyed by its cluster already
    KStream<String, Alert> stormAlerts =
        portAlerts.filter(
            (id, a) -> a == null || a.getKind() == AlertKind.PAUSE_STORM,
            Named.as("pfc-storm-alerts"));
    KStream<String, Alert> otherAlerts =
        portAlerts.filter(
            (id, a) -> a != null && a.getKind() != AlertKind.PAUSE_STORM,
            Named.as("pfc-other-alerts"));
    // both repartitions keyed by cluster with one partition count: a cluster's links and storms
    // meet in the same task
    int partitions = inputs.topics().rates().partitions();
    KStream<String, SpecificRecord> storms =
        stormAlerts
            .selectKey(
                (key, a) -> a == null ? key : a.getCluster(), Named.as("pfc-storms-key-by-cluster"))
            .repartition(
                Repartitioned.<String, Alert>as(STORMS_BY_CLUSTER)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(alertSerde)
                    .withNumberOfPartitions(partitions))
            .mapValues(a -> (SpecificRecord) a, Named.as("pfc-storms-as-input"));
    KStream<String, SpecificRecord> links =
        inputs.stream(inputs.topics().topology(), FabricLink.class)
            .filter((linkId, link) -> link != null, Named.as("pfc-links-only"))
            .selectKey((linkId, link) -> link.getCluster(), Named.as("pfc-links-key-by-cluster"))
            .repartition(
                Repartitioned.<String, FabricLink>as(LINKS_BY_CLUSTER)
                    .withKeySerde(Serdes.String())
                    .withValueSerde(inputs.serdes().value(FabricLink.class))
                    .withNumberOfPartitions(partitions))
            .mapValues(link -> (SpecificRecord) link, Named.as("pfc-links-as-input"));
    KStream<String, Alert> clusterAlerts =
        storms
            .merge(links, Named.as("pfc-propagation-inputs-merge"))
            .process(
                () -> new PausePropagationProcessor(propagationRules),
                Named.as(PROPAGATION_PROCESSOR),
                PROPAGATION_STORE_NAMES);
    AlertSinks.addTo(
        LinkPeers.joinByNetdev(
            inputs, otherAlerts.merge(clusterAlerts, Named.as("pfc-alerts-merge")), "pfc"),
        "pfc",
        inputs.topics(),
        alertSerde);
  }

  /** The propagation stage's stores ({@link #PROPAGATION_STORE_NAMES}). */
  static void addPropagationStores(DetectorInputs inputs) {
    Serde<Alert> alertSerde = inputs.serdes().alert();
    inputs.addStore(PROPAGATION_STORMS_STORE, alertSerde);
    inputs.addStore(PROPAGATION_TRACKER_STORE, new TrackerStateSerde());
    inputs.addStore(PROPAGATION_VICTIMS_STORE, Serdes.String());
    inputs.addStore(PROPAGATION_PENDING_STORE, alertSerde);
    inputs.addStore(PROPAGATION_PROGRESS_STORE, Serdes.Long());
    inputs.addStore(PROPAGATION_LINKS_STORE, inputs.serdes().value(FabricLink.class));
  }
}
