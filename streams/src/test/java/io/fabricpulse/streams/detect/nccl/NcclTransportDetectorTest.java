package io.fabricpulse.streams.detect.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.streams.FabricTopology;
import io.fabricpulse.streams.rates.RateConfig;
import io.fabricpulse.streams.rules.RuleSet;
import io.fabricpulse.streams.rules.RuleValidationException;
import io.fabricpulse.streams.testing.DetectorStories;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** Incident stories for the NCCL transport detectors, with the shipped alert-rules/ defaults. */
class NcclTransportDetectorTest extends DetectorStories {

  private NcclDriver driver(TestInfo info) {
    return driver(defaults, info);
  }

  private NcclDriver driver(RuleSet rules, TestInfo info) {
    return new NcclDriver(rules, stateDir, "nccl-" + info.getDisplayName());
  }

  private static Instant at(int second) {
    return Instant.ofEpochMilli(NcclLines.T0 + second * 1000L);
  }

  /** Job 4711 on gpu017: IB with both HCAs saying GDR Disabled and channels without /GDRDMA. */
  private static void job4711WithoutGdr(NcclDriver d, NcclLines gpu017) {
    d.pipe(
        gpu017,
        gpu017.version(0),
        gpu017.netSocketUsing(1),
        gpu017.netIbUsing(1, "mlx5_0", "mlx5_1"),
        gpu017.gdrHca(2, 0, "mlx5_0", false),
        gpu017.gdrHca(2, 1, "mlx5_1", false),
        gpu017.usingNetwork(3, "IB"),
        gpu017.channel(4, "IB", false),
        gpu017.channel(4, "IB", false));
  }

  /** A rules directory: the shipped files plus {@code extra} as zz-extra.yaml. */
  private RuleSet rulesWith(String file, String yaml) throws Exception {
    Path dir = Files.createDirectories(stateDir.resolve("rules-" + file));
    Files.writeString(dir.resolve(file), yaml);
    return RuleSet.load(dir);
  }

  @Test
  void job4711OnGpu017LogsNetIbWithoutGdrdmaFiresOneGdrFallbackNamingTheHcaLines(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4711");
      job4711WithoutGdr(d, gpu017);
      d.pipe(gpu017, gpu017.channel(600, "IB", false)); // ten minutes later, still without GDR
      d.tick(900);

      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertState.FIRING, a.getState());
      assertEquals(AlertKind.GDR_FALLBACK, a.getKind());
      assertEquals("nccl-gdr-fallback", a.getRule());
      assertEquals(Severity.WARNING, a.getSeverity());
      assertEquals("c1", a.getCluster());
      assertEquals("gpu017", a.getNode());
      assertEquals("4711", a.getJob());
      assertEquals(at(2), a.getStartedAt()); // the first Disabled HCA line
      assertEquals("IB", a.getEvidence().get("net"));
      assertEquals("false", a.getEvidence().get("gdr"));
      // it fires on the first Disabled HCA line, which also names the net (NET/IB : ...)
      assertEquals(
          "gpu017:4242:4249 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
          a.getEvidence().get("line.1"));
      assertFalse(a.getEvidence().containsKey("line.2"));
      assertEquals(
          "gpu017 job 4711: NCCL uses IB without GPUDirect RDMA, staging data through host memory"
              + " (NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0')",
          a.getSummary());
      assertEquals("fabric", a.getLabels().get("team"));

      List<NcclTransport> verdicts = d.transports.readValuesToList();
      // IB from "NET/IB : Using" (the bootstrap Socket line is no signal), then gdr false
      assertEquals(2, verdicts.size(), verdicts.toString());
      assertEquals("IB", verdicts.get(0).getNet());
      assertNull(verdicts.get(0).getGdr());
      NcclTransport last = verdicts.get(1);
      assertEquals("IB", last.getNet());
      assertEquals(false, last.getGdr());
      assertEquals("gpu017", last.getHost());
      assertEquals("4711", last.getJob());
      assertEquals("2.21.5", last.getNcclVersion());
      assertEquals(at(2), last.getTime());
      // the stored verdict names every Disabled HCA (and the channels without /GDRDMA)
      NcclTransportVerdict stored =
          (NcclTransportVerdict)
              d.driver
                  .getKeyValueStore(NcclTransportDetector.VERDICT_STORE)
                  .get("c1/gpu017|gpu017|job:4711");
      assertEquals(
          List.of(
              "gpu017:4242:4249 [0] NCCL INFO Using network IB",
              "gpu017:4242:4249 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
              "gpu017:4242:4249 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1"
                  + " 'mlx5_1'",
              "gpu017:4242:4249 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0"),
          stored.evidence());
    }
  }

  @Test
  void aJobWithoutGdrOnTwoHostsIsOneAlertListingBothHosts(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4720");
      NcclLines gpu018 = NcclLines.of("gpu018", "4720");
      job4711WithoutGdr(d, gpu017);
      job4711WithoutGdr(d, gpu018);
      d.tick(900);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals("gpu017", alerts.get(0).getNode());
      assertEquals("4720", alerts.get(0).getJob());
      // both hosts fired at the same instant: the page lists both from the start
      assertEquals("gpu017,gpu018", alerts.get(0).getEvidence().get("hosts"));
      Alert stored =
          (Alert)
              d.driver
                  .getKeyValueStore(NcclTransportDetector.JOB_INCIDENT_STORE)
                  .get("nccl-gdr-fallback|c1/job=4720");
      assertEquals("gpu017,gpu018", stored.getEvidence().get("hosts"));
      assertEquals(alerts.get(0).getAlertId(), stored.getAlertId());
      // both hosts published their own verdict
      assertEquals(
          List.of("gpu017", "gpu017", "gpu018", "gpu018"),
          d.transports.readValuesToList().stream().map(NcclTransport::getHost).toList());
    }
  }

  @Test
  void gdrCorrectlyInUseStaysSilent(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4712");
      d.pipe(
          gpu017,
          gpu017.netIbUsing(1, "mlx5_0", "mlx5_1"),
          gpu017.gdrHca(2, 0, "mlx5_0", true),
          gpu017.gdrHca(2, 1, "mlx5_1", true),
          gpu017.usingNetwork(3, "IB"),
          gpu017.channel(4, "IB", true),
          gpu017.ringSummary(5, 1));
      d.tick(600);
      assertTrue(d.alerts.isEmpty());
      List<NcclTransport> verdicts = d.transports.readValuesToList();
      NcclTransport last = verdicts.get(verdicts.size() - 1);
      assertEquals("IB", last.getNet());
      assertEquals(true, last.getGdr());
    }
  }

  @Test
  void bootstrapSocketLineWithAnIbDataPathStaysSilent(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4713");
      d.pipe(gpu017, gpu017.netSocketUsing(1));
      assertTrue(d.transports.isEmpty(), "the bootstrap line alone is no verdict");
      d.pipe(
          gpu017,
          gpu017.netIbUsing(1, "mlx5_0"),
          gpu017.usingNetwork(2, "IB"),
          gpu017.channel(3, "IB", true));
      d.tick(600);
      assertTrue(d.alerts.isEmpty());
      List<NcclTransport> verdicts = d.transports.readValuesToList();
      assertTrue(verdicts.stream().allMatch(v -> "IB".equals(v.getNet())), verdicts.toString());
    }
  }

  @Test
  void linesWithoutHostPrefixJudgeTheCollectingNode(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      NcclLines noPrefix = new NcclLines("gpu021", null, "4714");
      d.pipe(
          noPrefix,
          noPrefix.usingNetwork(1, "IB"),
          noPrefix.ringSummary(2, 0)); // 2.30: no per-GPU line, the ring summary says GDR 0
      d.settle(2);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size());
      assertEquals("gpu021", alerts.get(0).getNode());
      assertEquals(AlertKind.GDR_FALLBACK, alerts.get(0).getKind());
      assertEquals(
          "NCCL INFO Connected all rings, use ring PXN 0 GDR 0",
          alerts.get(0).getEvidence().get("line.2"));
    }
  }

  @Test
  void socketOnANodeWithActiveIbPortsIsNetFallbackSocketEvenWhereTheRuleExpectsNothing(
      TestInfo info) throws Exception {
    RuleSet anyNet =
        rulesWith(
            "nccl.yaml",
            """
            rules:
              - id: socket-where-ports-are-up
                detector: net_fallback_socket
                severity: CRITICAL
                thresholds:
                  expect_net: any
            """);
    try (NcclDriver d = driver(anyNet, info)) {
      d.pipe(PortRates.active("gpu017", "mlx5_0", 0));
      d.pipe(PortRates.active("gpu017", "mlx5_0", 1)); // unchanged: not forwarded again
      NcclLines gpu017 = NcclLines.of("gpu017", "4715");
      NcclLines cpu003 = NcclLines.of("cpu003", "4715"); // no RDMA ports reported
      for (NcclLines node : List.of(gpu017, cpu003)) {
        d.pipe(
            node,
            node.ibNoDevice(2),
            node.netSocketUsing(2),
            node.usingNetwork(3, "Socket"),
            node.channel(4, "Socket", false));
      }
      d.tick(600);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertKind.NET_FALLBACK_SOCKET, a.getKind());
      assertEquals("gpu017", a.getNode());
      assertEquals("mlx5_0:1", a.getEvidence().get("active_rdma_ports"));
      assertEquals(at(3), a.getStartedAt());
      assertEquals(
          "gpu017 job 4715: NCCL fell back to TCP sockets although ports mlx5_0:1 are ACTIVE",
          a.getSummary());
      assertEquals(1.0, a.getValue());
    }
  }

  @Test
  void aPortComingUpAfterTheSocketVerdictStillFires(TestInfo info) throws Exception {
    RuleSet anyNet =
        rulesWith(
            "nccl.yaml",
            """
            rules:
              - id: socket-where-ports-are-up
                detector: net_fallback_socket
                severity: CRITICAL
                thresholds:
                  expect_net: any
            """);
    try (NcclDriver d = driver(anyNet, info)) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4716");
      d.pipe(PortRates.port("gpu017", "mlx5_0", 0, "INIT", 0, RateTag.first));
      d.pipe(gpu017, gpu017.usingNetwork(3, "Socket"));
      assertTrue(d.alerts.isEmpty());
      d.pipe(PortRates.active("gpu017", "mlx5_0", 5));
      d.settle(5);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size());
      assertEquals(at(5), alerts.get(0).getStartedAt());
    }
  }

  @Test
  void socketWithoutPortRecordsFiresFromTheDefaultRuleExpectingIb(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      NcclLines gke = NcclLines.of("gke-a3-h100-1", "lab6");
      d.pipe(gke, gke.ibNoDevice(1), gke.netSocketUsing(1), gke.usingNetwork(2, "Socket"));
      d.settle(2);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals(AlertKind.NET_FALLBACK_SOCKET, alerts.get(0).getKind());
      assertEquals("nccl-net-fallback-socket", alerts.get(0).getRule());
      assertEquals(
          "gke-a3-h100-1 job lab6: NCCL fell back to TCP sockets although rule"
              + " nccl-net-fallback-socket expects IB",
          alerts.get(0).getSummary());
    }
  }

  @Test
  void aNodeGroupRuleWithoutGdrExemptsOnlyThatGroup(TestInfo info) throws Exception {
    Path dir = Files.createDirectories(stateDir.resolve("rules-groups"));
    Files.copy(RepoPaths.alertRules().resolve("nccl.yaml"), dir.resolve("nccl.yaml"));
    Files.writeString(
        dir.resolve("site.yaml"),
        """
        rules:
          - id: cpu-nodes-without-gdr
            detector: gdr_fallback
            severity: WARNING
            selectors: {node: "cpu*"}
            thresholds:
              expect_gdr: false
        """);
    try (NcclDriver d = driver(RuleSet.load(dir), info)) {
      NcclLines gpu017 = NcclLines.of("gpu017", "4717");
      NcclLines cpu001 = NcclLines.of("cpu001", "4717");
      job4711WithoutGdr(d, cpu001);
      job4711WithoutGdr(d, gpu017);
      d.settle(4);
      List<Alert> alerts = d.readAlerts();
      assertEquals(1, alerts.size(), alerts.toString());
      assertEquals("gpu017", alerts.get(0).getNode());
      assertEquals("nccl-gdr-fallback", alerts.get(0).getRule());
    }
  }

  @Test
  void warnCompletionErrorIsNcclErrorAndPortStateChangesAreNotItsEvidence(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      d.pipe(PortRates.active("gpu017", "mlx5_0", 0));
      d.pipe(PortRates.active("gpu017", "mlx5_1", 0));
      d.pipe(PortRates.active("gpu018", "mlx5_0", 0));
      d.pipe(PortRates.port("gpu017", "mlx5_0", 30, "DOWN", 1, RateTag.normal));
      d.pipe(PortRates.port("gpu018", "mlx5_0", 31, "DOWN", 1, RateTag.normal)); // other node
      d.pipe(PortRates.active("gpu017", "mlx5_0", 40));
      // a counter clear on mlx5_1 is not a link event
      d.pipe(PortRates.port("gpu017", "mlx5_1", 41, "ACTIVE", 9, RateTag.clear));
      NcclLines gpu017 = NcclLines.of("gpu017", "4718");
      d.pipe(gpu017, gpu017.netIbUsing(10, "mlx5_0", "mlx5_1"), gpu017.usingNetwork(10, "IB"));
      d.pipe(gpu017, gpu017.completionError(60, "10.0.0.18<33092>"));
      d.pipe(gpu017, gpu017.completionError(61, "10.0.0.19<33092>"));
      d.tick(200);

      List<Alert> alerts = d.readAlerts();
      assertEquals(2, alerts.size(), alerts.toString());
      Alert a = alerts.get(0);
      assertEquals(AlertState.FIRING, a.getState());
      assertEquals(AlertKind.NCCL_ERROR, a.getKind());
      assertEquals(Severity.CRITICAL, a.getSeverity());
      assertEquals("gpu017", a.getNode());
      assertEquals("4718", a.getJob());
      assertEquals(at(60), a.getStartedAt());
      assertEquals("10.0.0.18<33092>", a.getEvidence().get("peer"));
      assertEquals("12", a.getEvidence().get("status"));
      assertEquals("129", a.getEvidence().get("vendor_err"));
      // a port's state changes are no alert: only the link detector's alerts are attached
      // (NcclErrorLinkAlertsTest), and this topology has no link detector
      assertTrue(a.getEvidence().keySet().stream().noneMatch(k -> k.startsWith("link")));
      assertEquals(
          "gpu017 job 4718: NCCL completion error from peer 10.0.0.18<33092> (status 12,"
              + " vendor_err 129)",
          a.getSummary());
      Alert resolved = alerts.get(1);
      assertEquals(AlertState.RESOLVED, resolved.getState());
      assertEquals(a.getAlertId(), resolved.getAlertId());
      assertEquals(at(121), resolved.getResolvedAt()); // 60 s after the last error
    }
  }

  @Test
  void aRestartDoesNotReFireAFiringAlert(TestInfo info) {
    NcclLines gpu017 = NcclLines.of("gpu017", "4711");
    Map<String, List<KeyValue<String, Object>>> changelogs;
    try (NcclDriver d1 = driver(info)) {
      job4711WithoutGdr(d1, gpu017);
      d1.settle(4);
      assertEquals(1, d1.readAlerts().size());
      changelogs = d1.storeChangelogs();
    }
    try (NcclDriver d2 = driver(info)) {
      d2.restoreAll(changelogs);
      // the job's other ranks print the same lines again after the restart
      job4711WithoutGdr(d2, gpu017);
      d2.pipe(gpu017, gpu017.gdrHca(30, 0, "mlx5_0", false));
      d2.tick(900);
      assertTrue(d2.alerts.isEmpty(), () -> d2.readAlerts().toString());
      assertTrue(d2.transports.isEmpty(), "the restored verdict did not change");
    }
  }

  @Test
  void theSameInputTwiceGivesIdenticalOutputs(TestInfo info) {
    List<List<TestRecord<String, Alert>>> alertRuns = new ArrayList<>();
    List<List<TestRecord<String, NcclTransport>>> verdictRuns = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      try (NcclDriver d = new NcclDriver(defaults, stateDir.resolve("run" + run), "det-" + run)) {
        job4711WithoutGdr(d, NcclLines.of("gpu017", "4711"));
        NcclLines gpu018 = NcclLines.of("gpu018", "4711");
        d.pipe(PortRates.active("gpu018", "mlx5_0", 0));
        d.pipe(PortRates.port("gpu018", "mlx5_0", 20, "DOWN", 1, RateTag.normal));
        d.pipe(gpu018, gpu018.usingNetwork(21, "Socket"), gpu018.completionError(25, "x<1>"));
        d.tick(300);
        alertRuns.add(d.alerts.readRecordsToList());
        verdictRuns.add(d.transports.readRecordsToList());
      }
    }
    // GDR_FALLBACK gpu017; NET_FALLBACK_SOCKET gpu018; NCCL_ERROR gpu018 FIRING and RESOLVED
    assertEquals(4, alertRuns.get(0).size(), alertRuns.get(0).toString());
    assertEquals(alertRuns.get(0), alertRuns.get(1));
    assertEquals(verdictRuns.get(0), verdictRuns.get(1));
  }

  @Test
  void everyProcessorStoreAndInternalTopicHasAnExplicitName(TestInfo info) {
    try (NcclDriver d = driver(info)) {
      assertNamed(
          d.topology,
          List.of(
              "source-fabric-raw-nccl",
              "source-fabric-rates",
              "nccl-logs-only",
              "nccl-logs-key-by-host",
              "nccl-logs-by-host-repartition",
              "nccl-port-state-changes",
              "nccl-port-changes-by-node-repartition",
              "nccl-inputs-merge",
              NcclTransportDetector.PROCESSOR,
              NcclTransportDetector.VERDICT_STORE,
              NcclTransportDetector.NODE_PORTS_STORE,
              NcclTransportDetector.PORT_STATE_STORE,
              NcclTransportDetector.TRACKER_STORE,
              NcclTransportDetector.JOB_INCIDENT_STORE,
              NcclTransportDetector.JOB_PENDING_STORE,
              NcclTransportDetector.JOB_PROGRESS_STORE,
              "nccl-alerts-and-ticks-only",
              "nccl-alerts-key-by-cluster",
              "nccl-alerts-by-cluster-repartition",
              "nccl-job-incidents",
              "nccl-to-transport",
              "nccl-to-alerts",
              "nccl-to-alerts-active",
              "nccl-dead-letters-only",
              "nccl-dead-letters-cast",
              "nccl-sink-dlq"));
    }
  }

  @Test
  void theWholePipelineBuildsWithTheDefaultRulesAndExplicitNaming() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "nccl-fabric");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
    props.put(StreamsConfig.ENSURE_EXPLICIT_INTERNAL_RESOURCE_NAMING_CONFIG, true);
    Topology topology =
        FabricTopology.build(
            FabricTopics.defaults(), "mock://nccl-fabric", defaults, RateConfig.defaults(), props);
    String described = topology.describe().toString();
    assertTrue(described.contains(NcclTransportDetector.PROCESSOR));
    assertTrue(FabricTopology.detectedKinds().contains(AlertKind.GDR_FALLBACK));
  }

  @Test
  void anUnknownExpectedNetIsAStartUpErrorWithFileAndLine() throws Exception {
    Path dir = Files.createDirectories(stateDir.resolve("bad-rules"));
    Files.writeString(
        dir.resolve("nccl.yaml"),
        """
        rules:
          - id: bad
            detector: net_fallback_socket
            severity: CRITICAL
            thresholds:
              expect_net: TCP
              expect_gdr: true
        """);
    RuleValidationException e =
        assertThrows(RuleValidationException.class, () -> RuleSet.load(dir));
    String path = dir.resolve("nccl.yaml").toString();
    assertTrue(
        e.getMessage()
            .contains(
                path + ":6: thresholds.expect_net: must be one of IB, any, Socket, got \"TCP\""),
        e.getMessage());
    assertTrue(
        e.getMessage().contains(path + ":7: thresholds.expect_gdr: unknown threshold"),
        e.getMessage());
  }
}
