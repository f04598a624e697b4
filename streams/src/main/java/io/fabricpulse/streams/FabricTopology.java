package io.fabricpulse.streams;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.schemas.serde.AvroSerdeConfig;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.deadletters.UndecodableRecords;
import io.fabricpulse.streams.detect.DetectorModule;
import io.fabricpulse.streams.detect.capability.LinkCapabilityDetector;
import io.fabricpulse.streams.detect.congestion.XmitWaitDetector;
import io.fabricpulse.streams.detect.ecn.LosslessHealthDetector;
import io.fabricpulse.streams.detect.gpu.GpuHealthDetector;
import io.fabricpulse.streams.detect.ibdiagnet.IbdiagnetFindingDetector;
import io.fabricpulse.streams.detect.link.LinkHealthDetector;
import io.fabricpulse.streams.detect.nccl.NcclTransportDetector;
import io.fabricpulse.streams.detect.pfc.PauseStormDetector;
import io.fabricpulse.streams.detect.silence.CollectorSilenceDetector;
import io.fabricpulse.streams.detect.sm.SubnetManagerDetector;
import io.fabricpulse.streams.query.QueryStores;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rates.RateTopology;
import io.fabricpulse.streams.rules.RuleSet;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;

/**
 * Every topology of the pipeline in one Kafka Streams application: the detectors (built with the
 * DSL on one StreamsBuilder, sharing one source per topic) and the rate stage (Processor API, added
 * to the same Topology). {@code streams}, {@code demo}, {@code detect}, {@code replay} and the
 * tests all build it here, so they run the same processors with the same names.
 */
public final class FabricTopology {
  /** Default application id (prefix of every internal topic and consumer group). */
  public static final String APPLICATION_ID = "fabricpulse-streams";

  /** Every detector family, in topology order. */
  public static final List<DetectorModule> MODULES =
      List.of(
          PauseStormDetector.MODULE,
          LinkHealthDetector.MODULE,
          LosslessHealthDetector.MODULE,
          NcclTransportDetector.MODULE,
          SubnetManagerDetector.MODULE,
          GpuHealthDetector.MODULE,
          CollectorSilenceDetector.MODULE,
          IbdiagnetFindingDetector.MODULE,
          LinkCapabilityDetector.MODULE,
          XmitWaitDetector.MODULE);

  private FabricTopology() {}

  /**
   * @param registryUrl {@code schema.registry.url} of every Avro serde (e.g. {@code mock://demo})
   * @param streamsConfig the application's settings (naming enforcement and optimizations apply)
   */
  public static Topology build(
      FabricTopics topics,
      String registryUrl,
      RuleSet rules,
      RateConfig rates,
      Properties streamsConfig) {
    return build(
        topics,
        Map.of(AvroSerdeConfig.SCHEMA_REGISTRY_URL, registryUrl),
        rules,
        rates,
        streamsConfig);
  }

  /**
   * Builds the pipeline and installs its dead-letter handling into {@code streamsConfig} (the
   * config the application must then run with): a record a source cannot decode goes to fabric.dlq
   * ({@link UndecodableRecords}).
   *
   * @param registryConfig the schema-registry settings of every Avro serde, with Confluent's keys
   *     ({@code schema.registry.url}, {@code basic.auth.user.info}, {@code auto.register.schemas},
   *     {@code use.latest.version}, ...)
   * @param streamsConfig the application's settings (naming enforcement and optimizations apply)
   */
  public static Topology build(
      FabricTopics topics,
      Map<String, ?> registryConfig,
      RuleSet rules,
      RateConfig rates,
      Properties streamsConfig) {
    UndecodableRecords.install(streamsConfig, topics.deadLetters().name(), registryConfig);
    StreamsBuilder builder = new StreamsBuilder();
    DetectorInputs inputs = new DetectorInputs(builder, topics, new DetectorSerdes(registryConfig));
    for (DetectorModule module : MODULES) {
      module.addTo(inputs, rules);
    }
    if (StreamsSettings.queryStores(streamsConfig)) {
      QueryStores.addTo(inputs);
    }
    Topology topology = builder.build(streamsConfig);
    return RateTopology.addTo(topology, topics, ValueSerdes.registry(registryConfig), rates);
  }

  /** The alert kinds the running detectors can raise (the demo checks only these). */
  public static Set<AlertKind> detectedKinds() {
    Set<AlertKind> kinds = EnumSet.noneOf(AlertKind.class);
    MODULES.forEach(m -> kinds.addAll(m.kinds()));
    return kinds;
  }
}
