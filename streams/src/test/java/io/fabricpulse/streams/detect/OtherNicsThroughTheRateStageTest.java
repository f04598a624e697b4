package io.fabricpulse.streams.detect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.ethtool.EthtoolRecords;
import io.fabricpulse.collectors.ethtool.EthtoolStat;
import io.fabricpulse.schemas.serde.AvroSerde;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw collector records of an Intel E810 and of a legacy-named mlx5 through the whole pipeline
 * (rate stage and every detector, as production builds it): the rate stage gives their counters the
 * meaning the detectors read, so they raise the same alerts as a modern mlx5 would. Records are
 * built by the collector's own {@link EthtoolRecords}, exactly as the node agent builds them.
 */
class OtherNicsThroughTheRateStageTest {

  private static final Instant T0 = Instant.parse("2025-03-01T03:00:00Z");

  @TempDir Path stateDir;

  private record Pipeline(
      TestInputTopic<String, PfcPauseFrames> pfc, TestInputTopic<String, EcnMarks> ecn) {}

  /** What the node's collector publishes at one second of the story. */
  private interface Story {
    void sample(Pipeline p, int second);
  }

  /** Pipes seconds 0..{@code seconds} of the story through the whole topology; its alerts. */
  private List<Alert> run(String scope, int seconds, Story story) throws Exception {
    Properties props = DriverSettings.of(FabricTopology.APPLICATION_ID, stateDir.toString());
    FabricTopics topics = FabricTopics.defaults();
    String registry = "mock://other-nics-" + scope;
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            FabricTopology.build(
                topics,
                registry,
                RuleSet.load(RepoPaths.alertRules()),
                RateConfig.defaults(),
                props),
            props,
            T0)) {
      StringSerializer keys = new StringSerializer();
      Pipeline p =
          new Pipeline(
              driver.createInputTopic(
                  topics.pfc().name(),
                  keys,
                  AvroSerde.forValues(PfcPauseFrames.class, registry).serializer()),
              driver.createInputTopic(
                  topics.ecn().name(),
                  keys,
                  AvroSerde.forValues(EcnMarks.class, registry).serializer()));
      for (int s = 0; s <= seconds; s++) {
        story.sample(p, s);
      }
      return driver
          .createOutputTopic(
              topics.alerts().name(),
              new StringDeserializer(),
              AvroSerde.forValues(Alert.class, registry).deserializer())
          .readValuesToList();
    }
  }

  private static List<EthtoolStat> stats(Map<String, Long> values) {
    List<EthtoolStat> out = new ArrayList<>();
    long line = 1;
    for (Map.Entry<String, Long> e : values.entrySet()) {
      out.add(new EthtoolStat(e.getKey(), e.getValue(), ++line));
    }
    return out;
  }

  private static SampleContext ctx(String node, int second) {
    return new SampleContext(
        new NodeIdentity("demo", node, "boot-1"), T0.plusSeconds(second), new AtomicLong(second));
  }

  private static List<String> pages(List<Alert> alerts) {
    return alerts.stream()
        .map(a -> a.getState() + " " + a.getKind() + " " + a.getStartedAt())
        .toList();
  }

  /**
   * gpu060's E810 (ice, ens801f0, RDMA device irdma0): XOFF on priority 0 at 5 s (PFC also enabled
   * on priority 0), irdma CNPs ignored at 10 s, 3 packets dropped at 15 s.
   */
  @Test
  void anE810RaisesPfcMisconfigEcnMisconfigAndLosslessDropThroughTheRateStage() throws Exception {
    long[] xoff0 = {6434};
    long[] ignored = {0};
    long[] dropped = {0};
    List<Alert> alerts =
        run(
            "ice",
            20,
            (p, s) -> {
              xoff0[0] += s == 5 ? 120 : 0;
              ignored[0] += s == 10 ? 40 : 0;
              dropped[0] += s == 15 ? 3 : 0;
              Map<String, Long> ethtool = new LinkedHashMap<>();
              ethtool.put("rx_unicast", 77_215L + s * 1000L);
              ethtool.put("tx_priority_0_xon.nic", 1L);
              ethtool.put("tx_priority_0_xoff.nic", xoff0[0]);
              ethtool.put("tx_priority_3_xon.nic", 17L + s * 50L);
              ethtool.put("tx_priority_3_xoff.nic", 52_211L + s * 60L);
              ethtool.put("rx_dropped.nic", dropped[0]);
              SampleContext c = ctx("gpu060", s);
              Instant t = c.time();
              p.pfc()
                  .pipeInput(
                      "demo/gpu060",
                      EthtoolRecords.pfcPauseFrames(
                          c, "ens801f0", EthtoolRecords.ICE_DRIVER, "irdma0", stats(ethtool)),
                      t);
              Map<String, Long> hw = new LinkedHashMap<>();
              hw.put("RxECNMrkd", 900L * s);
              hw.put("cnpSent", 900L * s);
              hw.put("cnpHandled", 400L * s);
              hw.put("cnpIgnored", ignored[0]);
              p.ecn()
                  .pipeInput(
                      "demo/gpu060",
                      EthtoolRecords.ecnMarks(
                          c,
                          "ens801f0",
                          EthtoolRecords.ICE_DRIVER,
                          "irdma0",
                          1,
                          stats(ethtool),
                          hw),
                      t);
            });
    assertEquals(
        List.of(
            "FIRING PFC_MISCONFIG " + T0.plusSeconds(5),
            "FIRING ECN_MISCONFIG " + T0.plusSeconds(10),
            "FIRING LOSSLESS_DROP " + T0.plusSeconds(15)),
        pages(alerts),
        alerts.toString());
    assertEquals("120", alerts.get(0).getEvidence().get("tx_priority_0_xoff.nic_delta"));
    assertEquals("40", alerts.get(1).getEvidence().get("cnpIgnored_delta"));
    assertEquals("3", alerts.get(2).getEvidence().get("rx_dropped.nic_delta"));
  }

  /** gpu050's mlx5 with pre-4.10 names pauses its peer 95% of the time on priority 3 from 1 s. */
  @Test
  void aLegacyNamedMlx5StormOriginRaisesPauseStormThroughTheRateStage() throws Exception {
    long[] txPauseUs = {0};
    long[] txPause = {0};
    List<Alert> alerts =
        run(
            "legacy",
            5,
            (p, s) -> {
              txPauseUs[0] += s >= 1 ? 950_000 : 0;
              txPause[0] += s >= 1 ? 12_000 : 0;
              Map<String, Long> ethtool = new LinkedHashMap<>();
              ethtool.put("prio3_rx_pause", 4417L);
              ethtool.put("prio3_rx_pause_duration", 88_340L);
              ethtool.put("prio3_tx_pause", txPause[0]);
              ethtool.put("prio3_tx_pause_duration", txPauseUs[0]);
              ethtool.put("in_discards", 9L);
              SampleContext c = ctx("gpu050", s);
              p.pfc()
                  .pipeInput(
                      "demo/gpu050",
                      EthtoolRecords.pfcPauseFrames(
                          c, "eth2", EthtoolRecords.MLX5_DRIVER, "mlx5_0", stats(ethtool)),
                      c.time());
            });
    assertEquals(List.of("FIRING PAUSE_STORM " + T0.plusSeconds(1)), pages(alerts));
    Alert storm = alerts.get(0);
    assertEquals(3, storm.getPriority());
    assertEquals("origin", storm.getLabels().get("role"));
    assertEquals(0.95, storm.getValue(), 1e-9);
    assertEquals("12000", storm.getEvidence().get("prio3_tx_pause_delta"));
  }
}
