package io.fabricpulse.streams.detect.ibdiagnet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricFinding;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FindingKind;
import io.fabricpulse.avro.FindingSeverity;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * ibdiagnet runs on sm01, as the fabric role publishes them (one FabricFindings per run), under the
 * bundled rules. The lines are those of the synthetic fixture
 * collectors/src/test/resources/ibdiagnet/ibdiagnet2-speed-width-mismatch-synthetic.log as the
 * collector's parser reads them.
 */
class IbdiagnetFindingDetectorTest {
  private static final Instant RUN_1 = Instant.parse("2025-04-02T08:15:00Z");
  private static final Instant RUN_2 = RUN_1.plusSeconds(3600);
  private static final Instant RUN_3 = RUN_2.plusSeconds(3600);
  private static final String LOG = "/var/tmp/ibdiagnet2/ibdiagnet2.log";

  private static final FabricFinding SLOW_LINK =
      FabricFinding.newBuilder()
          .setLine(16)
          .setSeverity(FindingSeverity.ERROR)
          .setSection("Speed / Width checks")
          .setKind(FindingKind.LINK_SPEED)
          .setSubject("S0002c90300688830/N0002c90300688830/P20")
          .setSubjectGuid("0x0002c90300688830")
          .setSubjectPort("20")
          .setPeer("S0002c90300165e63/N0002c90300165e60/P1")
          .setPeerGuid("0x0002c90300165e60")
          .setPeerPort("1")
          .setActual("2.5")
          .setExpected("10")
          .setText(
              "Link: S0002c90300688830/N0002c90300688830/P20<-->S0002c90300165e63/N0002c90300165e60/P1"
                  + " - Unexpected actual link speed 2.5 (enable_speed1=\"2.5 or 5 or 10\","
                  + " enable_speed2=\"2.5 or 5 or 10\" therefore final speed should be 10)")
          .build();

  private static final FabricFinding NARROW_LINK =
      FabricFinding.newBuilder()
          .setLine(22)
          .setSeverity(FindingSeverity.WARNING)
          .setSection("Speed / Width checks")
          .setKind(FindingKind.LINK_WIDTH)
          .setSubject("Sb0cf0e0300d33fc0/Nb0cf0e0300d33fc0/P7")
          .setSubjectGuid("0xb0cf0e0300d33fc0")
          .setSubjectPort("7")
          .setPeer("gpu007/mlx5_3/P1")
          .setPeerPort("1")
          .setActual("2x")
          .setText(
              "Link: Sb0cf0e0300d33fc0/Nb0cf0e0300d33fc0/P7<-->gpu007/mlx5_3/P1 - Unexpected width,"
                  + " actual link width is 2x")
          .build();

  private static final FabricFinding SYMBOL_ERRORS =
      FabricFinding.newBuilder()
          .setLine(9)
          .setSeverity(FindingSeverity.ERROR)
          .setSection("Port Counters")
          .setKind(FindingKind.PORT_COUNTER)
          .setSubject("Sb0cf0e0300d33fc0/Nb0cf0e0300d33fc0/P12")
          .setSubjectGuid("0xb0cf0e0300d33fc0")
          .setSubjectPort("12")
          .setText(
              "Sb0cf0e0300d33fc0/Nb0cf0e0300d33fc0/P12 - \"symbol_error_counter\" increased during"
                  + " the run (difference value=118,difference allowed threshold=1)")
          .build();

  private static final FabricFinding DUPLICATE_DESCRIPTION =
      FabricFinding.newBuilder()
          .setLine(30)
          .setSeverity(FindingSeverity.WARNING)
          .setSection("Nodes Information")
          .setKind(FindingKind.OTHER)
          .setText("Node Description \"MF0;ib-switch:MQM9700/U1\" is duplicated")
          .build();

  private static RuleSet defaults;
  @TempDir Path stateDir;
  private TopologyTestDriver driver;
  private TestInputTopic<String, FabricFindings> runs;
  private TestOutputTopic<String, Alert> alerts;
  private TestOutputTopic<String, Alert> active;

  @BeforeAll
  static void loadDefaultRules() throws Exception {
    defaults = RuleSet.load(RepoPaths.alertRules());
  }

  @BeforeEach
  void start(TestInfo info) {
    Properties props = DriverSettings.of("ibdiagnet-test", stateDir.toString());
    FabricTopics topics = FabricTopics.defaults();
    DetectorSerdes serdes = DetectorSerdes.forRegistry("mock://ibdiagnet-" + info.getDisplayName());
    StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
    IbdiagnetFindingDetector.addTo(new DetectorInputs(builder, topics, serdes), defaults);
    driver = new TopologyTestDriver(builder.build(), props, RUN_1);
    runs =
        driver.createInputTopic(
            topics.ibdiagnet().name(),
            new StringSerializer(),
            serdes.value(FabricFindings.class).serializer());
    alerts =
        driver.createOutputTopic(
            topics.alerts().name(), new StringDeserializer(), serdes.alert().deserializer());
    active =
        driver.createOutputTopic(
            topics.alertsActive().name(), new StringDeserializer(), serdes.alert().deserializer());
  }

  @AfterEach
  void stop() {
    driver.close();
  }

  private void run(Instant time, FabricFinding... findings) {
    FabricFindings run =
        FabricFindings.newBuilder()
            .setCluster("c1")
            .setObservedBy("sm01")
            .setRunTime(time)
            .setSourceFile(LOG)
            .setFindings(List.of(findings))
            .build();
    runs.pipeInput("c1/sm01", run, time);
  }

  private static Map<String, Alert> byRule(List<Alert> alerts) {
    return alerts.stream().collect(Collectors.toMap(Alert::getRule, a -> a));
  }

  @Test
  void aRunWithASlowLinkANarrowLinkAndRisingSymbolErrorsFiresOneAlertEachWithTheToolsLine() {
    run(RUN_1, SYMBOL_ERRORS, SLOW_LINK, NARROW_LINK, DUPLICATE_DESCRIPTION);

    Map<String, Alert> fired = byRule(alerts.readValuesToList());
    assertEquals(3, fired.size(), fired.toString());
    Alert slow = fired.get("ibdiagnet-link-speed");
    assertEquals(AlertKind.IBDIAGNET_FINDING, slow.getKind());
    assertEquals(AlertState.FIRING, slow.getState());
    assertEquals("0x0002c90300688830", slow.getNode());
    assertEquals("S0002c90300688830/N0002c90300688830/P20", slow.getDevice());
    assertEquals(20, slow.getPort());
    assertEquals(RUN_1, slow.getStartedAt());
    assertEquals(SLOW_LINK.getText(), slow.getEvidence().get("line"));
    assertEquals(LOG, slow.getEvidence().get("source_file"));
    assertEquals("16", slow.getEvidence().get("line_number"));
    assertEquals("10", slow.getEvidence().get("expected"));
    assertTrue(
        slow.getEvidence()
            .get("line")
            .startsWith(
                "Link: S0002c90300688830/N0002c90300688830/P20<-->"
                    + "S0002c90300165e63/N0002c90300165e60/P1 - "),
        "the line names both ends of the link");
    assertEquals("S0002c90300165e63/N0002c90300165e60/P1", slow.getLabels().get("peer"));
    assertEquals("fabric", slow.getLabels().get("team"));
    assertEquals(
        "ibdiagnet run of sm01 (2025-04-02T08:15:00Z): " + SLOW_LINK.getText(), slow.getSummary());

    assertEquals("gpu007/mlx5_3/P1", fired.get("ibdiagnet-link-width").getLabels().get("peer"));
    assertEquals(12, fired.get("ibdiagnet-port-counter").getPort());
    assertTrue(
        fired.values().stream().noneMatch(a -> a.getEvidence().get("line").contains("duplicated")),
        "OTHER findings have no bundled rule");
  }

  @Test
  void aLaterRunResolvesWhatItNoLongerReportsAndKeepsTheRestFiringWithoutRepeats() {
    run(RUN_1, SYMBOL_ERRORS, SLOW_LINK, NARROW_LINK);
    alerts.readValuesToList();

    run(RUN_2, SLOW_LINK); // the width recovered, the counter check is clean
    List<Alert> second = alerts.readValuesToList();
    assertEquals(2, second.size(), second.toString());
    assertTrue(second.stream().allMatch(a -> a.getState() == AlertState.RESOLVED));
    assertTrue(second.stream().allMatch(a -> a.getResolvedAt().equals(RUN_2)));
    assertEquals(
        List.of("ibdiagnet-link-width", "ibdiagnet-port-counter"),
        second.stream().map(Alert::getRule).sorted().toList());

    run(RUN_2, SLOW_LINK, NARROW_LINK); // the same run read again is not judged twice
    assertEquals(List.of(), alerts.readValuesToList());

    run(RUN_3); // a clean run
    List<Alert> third = alerts.readValuesToList();
    assertEquals(1, third.size(), third.toString());
    assertEquals("ibdiagnet-link-speed", third.get(0).getRule());
    assertEquals(AlertState.RESOLVED, third.get(0).getState());
    assertEquals(RUN_3, third.get(0).getResolvedAt());

    var tombstones = active.readRecordsToList();
    assertNull(tombstones.get(tombstones.size() - 1).value(), "resolved leaves a tombstone");
  }
}
