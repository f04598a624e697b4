package io.fabricpulse.streams.detect.capability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.alerts.DetectorInputs;
import io.fabricpulse.streams.alerts.DetectorSerdes;
import io.fabricpulse.streams.peers.PeerLabels;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.testing.DriverSettings;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
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
 * Cables on fabric.topology as the fabric role publishes them from iblinkinfo -l sweeps every 5
 * minutes: the ibsim fabric's ISL leaf01 port 8 <-> spine01 port 2 trained at 1X where both ends
 * support 4X (collectors/testdata/iblinkinfo/ibsim-iblinkinfo-l-leaf01-spine01-1x.txt), and a host
 * link at HDR where both ends support NDR.
 */
class LinkCapabilityDetectorTest {
  private static final Instant T0 = Instant.parse("2026-12-01T11:30:00Z");
  private static final String ISL = "c1/0x0000000000200000:8<->0x0000000000200002:2";
  private static final String HOST_LINK = "c1/0x7cfe9003003b4bde:1<->0x7cfe9003009ce5b0:12";

  private static RuleSet defaults;
  @TempDir Path stateDir;
  private TopologyTestDriver driver;
  private TestInputTopic<String, FabricLink> topology;
  private TestOutputTopic<String, Alert> alerts;
  private TestOutputTopic<String, Alert> active;

  @BeforeAll
  static void loadDefaultRules() throws Exception {
    defaults = RuleSet.load(RepoPaths.alertRules());
  }

  @BeforeEach
  void start(TestInfo info) {
    Properties props = DriverSettings.of("capability-test", stateDir.toString());
    FabricTopics topics = FabricTopics.defaults();
    DetectorSerdes serdes =
        DetectorSerdes.forRegistry("mock://capability-" + info.getDisplayName());
    StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
    LinkCapabilityDetector.addTo(new DetectorInputs(builder, topics, serdes), defaults);
    driver = new TopologyTestDriver(builder.build(), props, T0);
    topology =
        driver.createInputTopic(
            topics.topology().name(),
            new StringSerializer(),
            serdes.value(FabricLink.class).serializer());
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

  private static LinkPort end(
      FabricNodeType type,
      String guid,
      String description,
      int lid,
      int port,
      int width,
      LinkSpeed speed) {
    return LinkPort.newBuilder()
        .setGuid(guid)
        .setNodeType(type)
        .setNodeDescription(description)
        .setLid(lid)
        .setPort(port)
        .setWidth(width)
        .setSpeed(speed)
        .build();
  }

  private static FabricLink isl(Instant time, int width, Integer couldBe) {
    return FabricLink.newBuilder()
        .setCluster("c1")
        .setLinkId(ISL)
        .setObservedBy("sm01")
        .setSource(TopologySource.IBLINKINFO)
        .setSweepSeq(1)
        .setTime(time)
        .setEndA(
            end(FabricNodeType.SWITCH, "0x0000000000200000", "leaf01", 1, 8, width, LinkSpeed.SDR))
        .setEndB(
            end(FabricNodeType.SWITCH, "0x0000000000200002", "spine01", 4, 2, width, LinkSpeed.SDR))
        .setPossibleWidth(couldBe)
        .build();
  }

  private static FabricLink hostLink(Instant time, LinkSpeed speed, LinkSpeed couldBe) {
    return FabricLink.newBuilder()
        .setCluster("c1")
        .setLinkId(HOST_LINK)
        .setObservedBy("sm01")
        .setSource(TopologySource.IBLINKINFO)
        .setSweepSeq(1)
        .setTime(time)
        .setEndA(end(FabricNodeType.CA, "0x7cfe9003003b4bde", "gpu007 mlx5_3", 134, 1, 4, speed))
        .setEndB(end(FabricNodeType.SWITCH, "0x7cfe9003009ce5b0", "leaf-07", 1719, 12, 4, speed))
        .setPossibleSpeed(couldBe)
        .build();
  }

  private void pipe(String key, FabricLink link, Instant time) {
    topology.pipeInput(key, link, time);
  }

  @Test
  void anIslAt1xWhereBothEndsSupport4xIsOneAlertNamingBothEndsResolvedWhenItRetrains() {
    pipe(ISL, isl(T0, 1, 4), T0);
    List<Alert> fired = alerts.readValuesToList();
    assertEquals(1, fired.size(), "one cable, one alert, whichever end reports it");
    Alert a = fired.get(0);
    assertEquals(AlertKind.LINK_BELOW_CAPABILITY, a.getKind());
    assertEquals("link-below-capability", a.getRule());
    assertEquals(AlertState.FIRING, a.getState());
    assertEquals("leaf01", a.getNode());
    assertEquals("0x0000000000200000", a.getDevice());
    assertEquals(8, a.getPort());
    assertEquals(T0, a.getStartedAt());
    assertEquals(2.5, a.getValue());
    assertEquals(10.0, a.getThreshold());
    assertEquals("Gb/s", a.getUnit());
    assertEquals(
        "leaf01 port 8 <-> spine01 port 2 runs at 1X SDR, both ends support 4X SDR",
        a.getSummary());
    assertEquals("spine01 port 2", a.getLabels().get("peer"));
    assertEquals("spine01", a.getLabels().get("peer_node"));
    assertEquals("0x0000000000200002", a.getLabels().get("peer_guid"));
    assertEquals("2", a.getLabels().get("peer_port"));
    assertEquals("SWITCH", a.getLabels().get("peer_type"));
    assertEquals(ISL, a.getEvidence().get("link_id"));
    assertEquals(ISL, a.getLabels().get("link_id"));
    // the cable's incident key, the same the topology join gives both ends' own link alerts
    assertEquals(
        PeerLabels.incident(AlertKind.LINK_BELOW_CAPABILITY, ISL), a.getLabels().get("incident"));

    pipe(ISL, isl(T0.plusSeconds(300), 1, 4), T0.plusSeconds(300)); // republished: no repeat
    assertEquals(List.of(), alerts.readValuesToList());

    pipe(ISL, isl(T0.plusSeconds(600), 4, null), T0.plusSeconds(600)); // reseated, back at 4X
    List<Alert> resolved = alerts.readValuesToList();
    assertEquals(1, resolved.size());
    assertEquals(AlertState.RESOLVED, resolved.get(0).getState());
    assertEquals(a.getAlertId(), resolved.get(0).getAlertId());
    assertEquals(T0.plusSeconds(600), resolved.get(0).getResolvedAt());
    var records = active.readRecordsToList();
    assertNull(records.get(records.size() - 1).value());
  }

  @Test
  void aHostLinkBelowItsSpeedNamesTheHostPortAndItsSwitchPortAndResolvesWhenTheLinkIsGone() {
    pipe(HOST_LINK, hostLink(T0, LinkSpeed.HDR, LinkSpeed.NDR), T0);
    Alert a = alerts.readValuesToList().get(0);
    assertEquals("gpu007", a.getNode());
    assertEquals("mlx5_3", a.getDevice());
    assertEquals(1, a.getPort());
    assertEquals("leaf-07 port 12", a.getLabels().get("peer"));
    assertEquals("leaf-07", a.getLabels().get("peer_node"));
    assertEquals("0x7cfe9003009ce5b0", a.getLabels().get("peer_guid"));
    assertEquals("12", a.getLabels().get("peer_port"));
    assertEquals("SWITCH", a.getLabels().get("peer_type"));
    assertEquals(HOST_LINK, a.getLabels().get("link_id"));
    assertEquals(
        "gpu007 mlx5_3 port 1 <-> leaf-07 port 12 runs at 4X HDR, both ends support 4X NDR",
        a.getSummary());

    topology.pipeInput(HOST_LINK, null, T0.plusSeconds(300)); // the sweep no longer sees it
    List<Alert> resolved = alerts.readValuesToList();
    assertEquals(1, resolved.size());
    assertEquals(AlertState.RESOLVED, resolved.get(0).getState());
    assertEquals(T0.plusSeconds(300), resolved.get(0).getResolvedAt());
  }

  @Test
  void aLinkAtTheBestBothEndsSupportStaysSilent() {
    pipe(ISL, isl(T0, 4, null), T0);
    pipe(HOST_LINK, hostLink(T0, LinkSpeed.NDR, null), T0);
    topology.pipeInput(ISL, null, T0.plusSeconds(300));
    assertEquals(List.of(), alerts.readValuesToList());
  }
}
