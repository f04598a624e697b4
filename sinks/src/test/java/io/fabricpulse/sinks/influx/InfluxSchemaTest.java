package io.fabricpulse.sinks.influx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.BridgeCounters;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.avro.XidKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class InfluxSchemaTest {

  private static final long T = 1_737_652_060_000L;

  @Test
  void portSampleBecomesOnePointWithRatesDeltasDerivedBytesAndLinkGauges() {
    CounterRates rates =
        Rates.port("c1", "gpu017", T)
            .normal("port_rcv_data", 34_600_185_253L, 1_250_000_000L, "bytes")
            .normal("port_xmit_data", 85_378_896_588L, 2_500_000_000L, "bytes")
            .normal("port_xmit_wait", 22_730_501L, 4_096L, "ticks")
            .build();

    SinkPoint point = InfluxSchema.ratesPoint(rates).orElseThrow();

    assertEquals("fabric_port_rates", point.measurement());
    assertEquals(
        Map.of("cluster", "c1", "node", "gpu017", "device", "mlx5_0", "port", "1"), point.tags());
    assertEquals(T, point.timeMs());
    assertEquals(1.25e9, point.fields().get("port_rcv_data_per_s"));
    assertEquals(1_250_000_000L, point.fields().get("port_rcv_data_delta"));
    assertEquals(1.25e9, point.fields().get("rx_bytes_per_s"));
    assertEquals(2.5e9, point.fields().get("tx_bytes_per_s"));
    assertEquals(4096.0, point.fields().get("port_xmit_wait_per_s"));
    assertEquals(400.0, point.fields().get("rate_gbps"));
    assertEquals(1L, point.fields().get("state_active"));
    assertFalse(point.fields().containsKey("netdev_mtu"));
  }

  @Test
  void saturatedFirstAndUnavailableCountersProduceNoFieldAtAll() {
    CounterRates rates =
        Rates.port("c1", "gpu017", T)
            // a 16-bit PMA counter stuck at all ones: rate unknown, not zero [IBbook]
            .counter("symbol_error", 65_535L, null, null, "events", RateTag.saturated)
            .counter("port_rcv_errors", 3L, null, null, "events", RateTag.first)
            .counter("VL15_dropped", null, null, null, "packets", RateTag.unavailable)
            // even a (wrong) zero rate on a saturated counter must not be written as 0
            .counter("port_xmit_discards", 65_535L, 0L, 0.0, "packets", RateTag.saturated)
            .counter("link_downed", 2L, 1L, 1.0, "events", RateTag.normal)
            .build();

    Map<String, Object> fields = InfluxSchema.ratesPoint(rates).orElseThrow().fields();

    assertEquals(
        Map.of(
            "link_downed_per_s",
            1.0,
            "link_downed_delta",
            1L,
            "rate_gbps",
            400.0,
            "state_active",
            1L),
        fields);
  }

  @Test
  void wrapClearAndRebootDeltasAreKnownRates() {
    CounterRates rates =
        Rates.port("c1", "n", T)
            .counter("rx_write_requests", 10L, 20L, 20.0, "packets", RateTag.wrap)
            .counter("port_rcv_packets", 5L, 5L, 5.0, "packets", RateTag.clear)
            .counter("port_xmit_packets", 7L, 7L, 7.0, "packets", RateTag.reboot)
            .build();

    Map<String, Object> fields = InfluxSchema.ratesPoint(rates).orElseThrow().fields();

    assertEquals(20.0, fields.get("rx_write_requests_per_s"));
    assertEquals(5L, fields.get("port_rcv_packets_delta"));
    assertEquals(7.0, fields.get("port_xmit_packets_per_s"));
  }

  @Test
  void pauseDurationPerSecondBecomesPauseRatio() {
    CounterRates rates =
        Rates.pfc("c1", "gpu017", T)
            // 900,000 us of pause in one second = paused 90% of the time [K-enstats]
            .normal("rx_prio3_pause_duration", 5_000_000L, 900_000L, "microseconds")
            .normal("rx_global_pause_duration", 100L, 50_000L, "microseconds")
            .normal("rx_prio3_pause", 41_927L, 1_200L, "packets")
            .counter("tx_priority_0_xon.nic", 1L, 1L, 1.0, "packets", RateTag.normal)
            .build();

    SinkPoint point = InfluxSchema.ratesPoint(rates).orElseThrow();

    assertEquals("fabric_pfc_rates", point.measurement());
    assertEquals(Map.of("cluster", "c1", "node", "gpu017", "netdev", "ens5f0np0"), point.tags());
    assertEquals(0.9, (Double) point.fields().get("pause_ratio_prio3"), 1e-12);
    assertEquals(0.05, (Double) point.fields().get("pause_ratio_global"), 1e-12);
    assertEquals(1200.0, point.fields().get("rx_prio3_pause_per_s"));
    assertFalse(point.fields().containsKey("pause_ratio_prio3_pause"));
    assertEquals(1.0, point.fields().get("tx_priority_0_xon_nic_per_s"));
    assertEquals(4200L, point.fields().get("netdev_mtu"));
  }

  @Test
  void legacyMlx5IceAndIrdmaCountersGiveTheSameSeriesAsModernMlx5() {
    CounterRates legacy =
        Rates.pfc("c1", "gpu050", T)
            .normal("prio3_rx_pause_duration", 5_000_000L, 900_000L, "microseconds")
            .normal("prio3_rx_pause", 41_927L, 1_200L, "packets")
            .build();
    CounterRates ice =
        Rates.pfc("c1", "gpu060", T)
            .normal("rx_priority_3_xoff.nic", 52_211L, 1_200L, "packets")
            .normal("tx_priority_3_xoff.nic", 52_211L, 30L, "packets")
            .build();
    CounterRates irdma =
        Rates.pfc("c1", "gpu060", T)
            .normal("cnpIgnored", 10L, 4L, "packets")
            .normal("RxECNMrkd", 10_000L, 900L, "packets")
            .build();

    Map<String, Object> legacyFields = InfluxSchema.ratesPoint(legacy).orElseThrow().fields();
    assertEquals(0.9, (Double) legacyFields.get("pause_ratio_prio3"), 1e-12);
    assertEquals(1200.0, legacyFields.get("pause_frames_rx_prio3_per_s"));
    Map<String, Object> iceFields = InfluxSchema.ratesPoint(ice).orElseThrow().fields();
    assertEquals(1200.0, iceFields.get("pause_frames_rx_prio3_per_s"));
    assertEquals(30.0, iceFields.get("pause_frames_tx_prio3_per_s"));
    // ice has no pause-duration counter: no ratio rather than one made up from frames
    assertFalse(iceFields.containsKey("pause_ratio_prio3"));
    Map<String, Object> irdmaFields = InfluxSchema.ratesPoint(irdma).orElseThrow().fields();
    assertEquals(4.0, irdmaFields.get("cnp_ignored_per_s"));
    assertEquals(900.0, irdmaFields.get("ecn_marked_per_s"));
  }

  @Test
  void recordWithNothingWritableGivesNoPoint() {
    CounterRates rates =
        Rates.pfc("c1", "n", T)
            .counter("rx_prio3_pause", 1L, null, null, "packets", RateTag.first)
            .build();
    rates.setNetdevMtu(null);

    assertTrue(InfluxSchema.ratesPoint(rates).isEmpty());
  }

  @Test
  void portStateIsActiveOnlyForActive() {
    assertTrue(InfluxSchema.isActive("ACTIVE"));
    assertTrue(InfluxSchema.isActive("4: ACTIVE"));
    assertFalse(InfluxSchema.isActive("5: ACTIVE_DEFER"));
    assertFalse(InfluxSchema.isActive("1: DOWN"));
    assertEquals(
        0L,
        InfluxSchema.ratesPoint(Rates.port("c", "n", T).state("DOWN").build())
            .orElseThrow()
            .fields()
            .get("state_active"));
  }

  @Test
  void alertBecomesEventPointAtItsStateChangeTime() {
    Alert firing = alert(AlertState.FIRING, null);
    Alert resolved = alert(AlertState.RESOLVED, Instant.ofEpochMilli(T + 60_000));

    SinkPoint fired = InfluxSchema.alertPoint(firing);
    SinkPoint cleared = InfluxSchema.alertPoint(resolved);

    assertEquals("fabric_alerts", fired.measurement());
    assertEquals(
        Map.of(
            "cluster", "c1",
            "node", "gpu017",
            "kind", "PAUSE_STORM",
            "severity", "CRITICAL",
            "state", "FIRING",
            "rule", "pause-storm",
            "netdev", "ens5f0np0",
            "priority", "3"),
        fired.tags());
    assertEquals(
        Map.of(
            "alert_id", "pause-storm/c1/gpu017/ens5f0np0/3/1737652060000",
            "summary", "prio 3 paused 90% of each second on gpu017 ens5f0np0",
            "value", 0.9,
            "threshold", 0.5,
            "unit", "ratio"),
        fired.fields());
    assertEquals(T, fired.timeMs());
    assertEquals("RESOLVED", cleared.tags().get("state"));
    assertEquals(T + 60_000, cleared.timeMs());
  }

  @Test
  void aLinkOfTheTopologyBecomesOnePointNamingBothEndsAndWhatTheyCouldRun() {
    // iblinkinfo: leaf-07 port 33 at 2X HDR to spine-02 port 5, "Could be 4X"
    FabricLink isl =
        FabricLink.newBuilder()
            .setCluster("c1")
            .setLinkId("c1/0x0000000000200000:33<->0x0000000000300000:5")
            .setObservedBy("sm01")
            .setSource(TopologySource.IBLINKINFO)
            .setSweepSeq(7)
            .setTime(Instant.ofEpochMilli(T))
            .setEndA(end("0x0000000000200000", FabricNodeType.SWITCH, "leaf-07", 33, 2))
            .setEndB(end("0x0000000000300000", FabricNodeType.SWITCH, "spine-02", 5, 2))
            .setPossibleWidth(4)
            .build();
    SinkPoint point = InfluxSchema.linkPoint(isl);
    assertEquals("fabric_links", point.measurement());
    assertEquals(
        Map.of(
            "cluster", "c1",
            "link_id", "c1/0x0000000000200000:33<->0x0000000000300000:5",
            "link_type", "isl",
            "node_a", "leaf-07",
            "port_a", "33",
            "node_b", "spine-02",
            "port_b", "5"),
        point.tags());
    assertEquals("leaf-07 port 33", point.fields().get("end_a"));
    assertEquals("spine-02 port 5", point.fields().get("end_b"));
    assertEquals(2L, point.fields().get("width_a"));
    assertEquals(50.0, point.fields().get("lane_gbps_b"));
    assertEquals(100.0, point.fields().get("rate_gbps"));
    assertEquals(4L, point.fields().get("possible_width"));
    assertEquals(200.0, point.fields().get("possible_rate_gbps"));
    assertEquals(1L, point.fields().get("below_capability"));
    assertEquals(T, point.timeMs());

    FabricLink host =
        FabricLink.newBuilder(isl)
            .setEndA(end("0x0000000000100003", FabricNodeType.CA, "gpu007 mlx5_3", 1, 4))
            .setEndB(end("0x0000000000200000", FabricNodeType.SWITCH, "leaf-07", 12, 4))
            .setPossibleWidth(null)
            .build();
    SinkPoint hostPoint = InfluxSchema.linkPoint(host);
    assertEquals("host", hostPoint.tags().get("link_type"));
    assertEquals("gpu007", hostPoint.tags().get("node_a"));
    assertEquals("gpu007 mlx5_3 port 1", hostPoint.fields().get("end_a"));
    assertEquals(0L, hostPoint.fields().get("below_capability"));
    assertEquals(200.0, hostPoint.fields().get("rate_gbps"));
  }

  private static LinkPort end(String guid, FabricNodeType type, String name, int port, int width) {
    return LinkPort.newBuilder()
        .setGuid(guid)
        .setNodeType(type)
        .setNodeDescription(name)
        .setPort(port)
        .setWidth(width)
        .setSpeed(LinkSpeed.HDR)
        .build();
  }

  @Test
  void theTopologyJoinsLabelsBecomeFieldsOfTheAlert() {
    Alert flap =
        Alert.newBuilder(alert(AlertState.FIRING, null))
            .setLabels(
                Map.of(
                    "peer", "leaf-07 port 12",
                    "peer_node", "leaf-07",
                    "peer_guid", "0x0000000000200000",
                    "incident", "9f1c"))
            .build();
    Map<String, Object> fields = InfluxSchema.alertPoint(flap).fields();
    assertEquals("leaf-07 port 12", fields.get("peer"));
    assertEquals("leaf-07", fields.get("peer_node"));
    assertEquals("9f1c", fields.get("incident"));
    assertFalse(fields.containsKey("peer_guid"));
  }

  @Test
  void gpuSampleBecomesOnePointPerGpuWithCountsAndFlagsAsIntegers() {
    GpuEcc sample =
        GpuEcc.newBuilder()
            .setCluster("c1")
            .setNode("gpu014")
            .setBootId("b")
            .setSeq(1)
            .setTime(Instant.ofEpochMilli(T))
            .setGpu(2)
            .setEccCorrectedVolatile(30L)
            .setEccUncorrectedVolatile(0L)
            .setRemappedRowsPending(true)
            .setRemappedRowsFailure(false)
            .setTemperatureGpu(92)
            .setFields(Map.of())
            .build();

    SinkPoint point = InfluxSchema.gpuPoint(sample);

    assertEquals("fabric_gpu", point.measurement());
    assertEquals(Map.of("cluster", "c1", "node", "gpu014", "gpu", "2"), point.tags());
    // [N/A] fields (null) are absent, never 0
    assertEquals(
        Map.of(
            "ecc_corrected_volatile", 30L,
            "ecc_uncorrected_volatile", 0L,
            "remapped_rows_pending", 1L,
            "remapped_rows_failure", 0L,
            "temperature_gpu", 92L),
        point.fields());
    assertEquals(T, point.timeMs());
  }

  @Test
  void xidEventAndTransportVerdictBecomeEventPoints() {
    GpuXid xid =
        GpuXid.newBuilder()
            .setCluster("c1")
            .setNode("gpu014")
            .setBootId("b")
            .setSeq(1)
            .setTime(Instant.ofEpochMilli(T))
            .setGpu(1)
            .setXid(48)
            .setKind(XidKind.XID)
            .setMessage("An uncorrectable double bit error")
            .setRawLine("NVRM: Xid (PCI:0000:18:00): 48, An uncorrectable double bit error")
            .build();
    SinkPoint x = InfluxSchema.xidPoint(xid);
    assertEquals("fabric_gpu_xid", x.measurement());
    assertEquals(
        Map.of("cluster", "c1", "node", "gpu014", "gpu", "1", "xid", "48", "kind", "XID"),
        x.tags());
    assertEquals(Map.of("events", 1L, "message", "An uncorrectable double bit error"), x.fields());

    NcclTransport verdict =
        NcclTransport.newBuilder()
            .setCluster("c1")
            .setNode("gpu015")
            .setHost("gpu015")
            .setJob("job-gdr-fallback")
            .setTime(Instant.ofEpochMilli(T))
            .setNet("IB")
            .setGdr(false)
            .setEvidence(List.of("NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0"))
            .build();
    SinkPoint t = InfluxSchema.transportPoint(verdict);
    assertEquals("fabric_nccl_transport", t.measurement());
    assertEquals(
        Map.of(
            "cluster",
            "c1",
            "node",
            "gpu015",
            "host",
            "gpu015",
            "job",
            "job-gdr-fallback",
            "net",
            "IB"),
        t.tags());
    assertEquals(Map.of("events", 1L, "gdr", 0L), t.fields());
  }

  @Test
  void bridgeCountersBecomeOnePointPerRobotWithEveryCounterAndTheLockAsInteger() throws Exception {
    BridgeCounters counters =
        BridgeCounters.newBuilder()
            .setTime(Instant.ofEpochMilli(T))
            .setBridge("dingtalk")
            .setInstance("bridge-1")
            .setRobot("fabric-ops")
            .setMessagesSent(12)
            .setAlertsDelivered(40)
            .setAlertsDigested(31)
            .setThrottled(1)
            .setTooLarge(0)
            .setFailures(3)
            .setUndelivered(2)
            .setPending(5)
            .setLocked(true)
            .build();
    SinkPoint p = InfluxSchema.bridgePoint(counters);
    assertEquals("fabricpulse_bridge", p.measurement());
    assertEquals(
        Map.of("bridge", "dingtalk", "instance", "bridge-1", "robot", "fabric-ops"), p.tags());
    Map<String, Object> expected = new java.util.LinkedHashMap<>();
    expected.put("messages_sent", 12L);
    expected.put("alerts_delivered", 40L);
    expected.put("alerts_digested", 31L);
    expected.put("throttled", 1L);
    expected.put("too_large", 0L);
    expected.put("failures", 3L);
    expected.put("undelivered", 2L);
    expected.put("pending", 5L);
    expected.put("locked", 1L);
    assertEquals(expected, p.fields());
    assertEquals(T, p.timeMs());
    // TIMESERIES.md names every field of the measurement
    String doc = Files.readString(Path.of("TIMESERIES.md"));
    for (String field : InfluxSchema.BRIDGE_FIELDS) {
      assertTrue(doc.contains("`" + field + "`"), field + " not in TIMESERIES.md");
    }
  }

  @Test
  void timeseriesMdListsEveryMeasurementOfTheSchemaAndNoOther() throws Exception {
    String doc = Files.readString(Path.of("TIMESERIES.md"));
    Set<String> documented = new TreeSet<>();
    Matcher m = Pattern.compile("^\\| `(fabric\\w*)`", Pattern.MULTILINE).matcher(doc);
    while (m.find()) {
      documented.add(m.group(1));
    }
    // the three 10 s measurements share one row of the table
    Matcher agg = Pattern.compile("`(fabric_\\w+_10s)`").matcher(doc);
    while (agg.find()) {
      documented.add(agg.group(1));
    }
    assertEquals(new TreeSet<>(InfluxSchema.MEASUREMENTS), documented);
  }

  static Alert alert(AlertState state, Instant resolvedAt) {
    return Alert.newBuilder()
        .setAlertId("pause-storm/c1/gpu017/ens5f0np0/3/" + T)
        .setRule("pause-storm")
        .setKind(AlertKind.PAUSE_STORM)
        .setSeverity(Severity.CRITICAL)
        .setState(state)
        .setCluster("c1")
        .setNode("gpu017")
        .setNetdev("ens5f0np0")
        .setPriority(3)
        .setStartedAt(Instant.ofEpochMilli(T))
        .setResolvedAt(resolvedAt)
        .setValue(0.9)
        .setThreshold(0.5)
        .setUnit("ratio")
        .setSummary("prio 3 paused 90% of each second on gpu017 ens5f0np0")
        .build();
  }
}
