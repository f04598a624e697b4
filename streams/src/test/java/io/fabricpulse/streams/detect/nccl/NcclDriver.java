package io.fabricpulse.streams.detect.nccl;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.TrackerStateSerde;
import io.fabricpulse.streams.detect.link.LinkHealthDetector;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DetectorDriver;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;

/** The NCCL detector topology, built as production builds it, under a TopologyTestDriver. */
final class NcclDriver extends DetectorDriver {

  static final String APP_ID = "nccl-test";

  final TestInputTopic<String, NcclLog> nccl;
  final TestOutputTopic<String, NcclTransport> transports;

  /** The NCCL detectors alone: an NCCL_ERROR goes out at once, without link alerts. */
  NcclDriver(RuleSet rules, Path stateDir, String registryScope) {
    this(NcclTransportDetector::addTo, rules, stateDir, registryScope);
  }

  /** The link and NCCL detectors, in the order of the pipeline: NCCL_ERROR attaches link alerts. */
  static NcclDriver withLinkDetector(RuleSet rules, Path stateDir, String registryScope) {
    return new NcclDriver(
        (inputs, r) -> {
          LinkHealthDetector.addTo(inputs, r);
          NcclTransportDetector.addTo(inputs, r);
        },
        rules,
        stateDir,
        registryScope);
  }

  private NcclDriver(
      BiConsumer<DetectorInputs, RuleSet> families,
      RuleSet rules,
      Path stateDir,
      String registryScope) {
    super(APP_ID, families, rules, stateDir, registryScope, Instant.ofEpochMilli(NcclLines.T0));
    nccl = input(topics.nccl());
    transports =
        output(topics.ncclTransport().name(), serdes.value(NcclTransport.class).deserializer());
  }

  void pipe(NcclLines lines, NcclLog... logs) {
    for (NcclLog log : logs) {
      nccl.pipeInput(lines.key(), log, log.getTime());
    }
  }

  void pipe(CounterRates port) {
    pipe(PortRates.key(port.getNode(), port.getDevice()), port);
  }

  /** Advances stream time with a tombstone on fabric.raw.nccl (the detector skips it). */
  void tick(int second) {
    nccl.pipeInput("c1/clock", null, NcclLines.T0 + second * 1000L);
  }

  /**
   * Moves stream time far enough past {@code second} that the job stage has judged every host alert
   * up to it: the host task's progress tick promises {@link JobStageProgress#SETTLE} less than its
   * stream time, and ticks go out at its punctuation.
   */
  void settle(int second) {
    tick(second + (int) JobStageProgress.SETTLE.toSeconds() + 2);
  }

  /** Every store's changelog, as a restart would restore them. */
  Map<String, List<KeyValue<String, Object>>> storeChangelogs() {
    Map<String, Deserializer<?>> stores = new LinkedHashMap<>();
    stores.put(NcclTransportDetector.VERDICT_STORE, VerdictSerde.serde().deserializer());
    stores.put(NcclTransportDetector.NODE_PORTS_STORE, NodePorts.serde().deserializer());
    stores.put(NcclTransportDetector.PORT_STATE_STORE, new StringDeserializer());
    stores.put(NcclTransportDetector.TRACKER_STORE, new TrackerStateSerde().deserializer());
    stores.put(NcclTransportDetector.JOB_INCIDENT_STORE, serdes.alert().deserializer());
    stores.put(NcclTransportDetector.JOB_PENDING_STORE, serdes.alert().deserializer());
    stores.put(NcclTransportDetector.JOB_PROGRESS_STORE, new LongDeserializer());
    return changelogs(stores);
  }
}
