package io.fabricpulse.schemas;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.CounterGroup;
import io.fabricpulse.avro.CounterRate;
import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.DeadLetter;
import io.fabricpulse.avro.EcnMarks;
import io.fabricpulse.avro.FabricFinding;
import io.fabricpulse.avro.FabricFindings;
import io.fabricpulse.avro.FabricLink;
import io.fabricpulse.avro.FabricLinkChange;
import io.fabricpulse.avro.FabricNodeType;
import io.fabricpulse.avro.FindingKind;
import io.fabricpulse.avro.FindingSeverity;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.LinkChangeKind;
import io.fabricpulse.avro.LinkPort;
import io.fabricpulse.avro.LinkSpeed;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.NodeRates;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateSource;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSource;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.avro.TopologySource;
import io.fabricpulse.avro.XidKind;
import io.fabricpulse.schemas.nodes.NodeRecords;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * One realistic instance of every top-level record type, with values taken from the captured
 * outputs in collectors/testdata (see SOURCES.md there) where one exists.
 */
public final class SampleRecords {

  public static final String BOOT_ID = "8c3b1f4e-2f0a-4d7e-9a53-0d6c2b7e91aa";
  public static final Instant TIME = Instant.parse("2025-03-10T06:06:02.511Z");

  private SampleRecords() {}

  /** Every top-level record type, in FabricTopics order. */
  public static List<SpecificRecord> all() {
    return List.of(
        portCounters(),
        pfcPauseFrames(),
        ecnMarks(),
        smSweep(),
        gpuEcc(),
        gpuXid(),
        ncclLog(),
        counterRates(),
        ncclTransport(),
        alert(),
        deadLetter(),
        nodeCounters(),
        nodeRates(),
        fabricLink(),
        fabricLinkChange(),
        fabricFindings());
  }

  /** One ibdiagnet run that found a link trained at 2x where both ends enable 4x. */
  public static FabricFindings fabricFindings() {
    return FabricFindings.newBuilder()
        .setCluster("h100-a")
        .setObservedBy("sm01")
        .setRunTime(TIME)
        .setSourceFile("/var/tmp/ibdiagnet2/ibdiagnet2.log")
        .setFindings(
            List.of(
                FabricFinding.newBuilder()
                    .setLine(412L)
                    .setSeverity(FindingSeverity.WARNING)
                    .setSection("Speed / Width checks")
                    .setKind(FindingKind.LINK_WIDTH)
                    .setSubject("S248a0703005ac8e0/N248a0703005ac8e0/P12")
                    .setSubjectGuid("0x248a0703005ac8e0")
                    .setSubjectPort("12")
                    .setPeer("S0c42a10300a3b4c0/N0c42a10300a3b4c0/P33")
                    .setPeerGuid("0x0c42a10300a3b4c0")
                    .setPeerPort("33")
                    .setActual("2x")
                    .setExpected("4x")
                    .setText(
                        "Link: S248a0703005ac8e0/N248a0703005ac8e0/P12<-->"
                            + "S0c42a10300a3b4c0/N0c42a10300a3b4c0/P33 - Unexpected width,"
                            + " actual width 2x, expected 4x")
                    .build()))
        .build();
  }

  /** Contract 0.2: the sample port and one more of the same node in one cycle. */
  public static NodeCounters nodeCounters() {
    PortCounters port = portCounters();
    PortCounters second = PortCounters.newBuilder(port).setDevice("mlx5_1").build();
    return NodeRecords.ofPorts(
        new NodeRecords.Cycle(
            port.getCluster(), port.getNode(), port.getBootId(), port.getSeq(), port.getTime()),
        RateSource.PORT,
        List.of(port, second));
  }

  /** Contract 0.2: the sample rates as the one port of a node's rates record. */
  public static NodeRates nodeRates() {
    return NodeRecords.ofRates(List.of(counterRates()));
  }

  /**
   * The 1x ISL of collectors/testdata/iblinkinfo/ibsim-iblinkinfo-leaf01-spine01-1x.txt: leaf01
   * port 8 to spine01 port 2 at 1X SDR where both ends could do 12X at 10 Gb/s.
   */
  public static FabricLink fabricLink() {
    return FabricLink.newBuilder()
        .setCluster("h100-a")
        .setLinkId("h100-a/0x0000000000200000:8<->0x0000000000200002:2")
        .setObservedBy("sm01")
        .setSource(TopologySource.IBLINKINFO)
        .setSweepSeq(3L)
        .setTime(TIME)
        .setEndA(
            LinkPort.newBuilder()
                .setGuid("0x0000000000200000")
                .setNodeType(FabricNodeType.SWITCH)
                .setNodeDescription("leaf01")
                .setLid(1)
                .setPort(8)
                .setWidth(1)
                .setSpeed(LinkSpeed.SDR)
                .build())
        .setEndB(
            LinkPort.newBuilder()
                .setGuid("0x0000000000200002")
                .setNodeType(FabricNodeType.SWITCH)
                .setNodeDescription("spine01")
                .setLid(4)
                .setPort(2)
                .setWidth(1)
                .setSpeed(LinkSpeed.SDR)
                .build())
        .setPossibleWidth(12)
        .setPossibleSpeed(LinkSpeed.QDR)
        .build();
  }

  /** The same ISL renegotiating from 4x to 1x between two sweeps a minute apart. */
  public static FabricLinkChange fabricLinkChange() {
    FabricLink after = fabricLink();
    FabricLink before = fabricLink();
    before.setTime(TIME.minusSeconds(60));
    before.getEndA().setWidth(4);
    before.getEndB().setWidth(4);
    return FabricLinkChange.newBuilder()
        .setCluster("h100-a")
        .setLinkId(after.getLinkId())
        .setObservedBy("sm01")
        .setSweepSeq(3L)
        .setTime(TIME)
        .setPreviousTime(TIME.minusSeconds(60))
        .setChange(LinkChangeKind.RENEGOTIATED)
        .setBefore(before)
        .setAfter(after)
        .build();
  }

  static Counter counter(String name, CounterGroup group, long value, int width) {
    return Counter.newBuilder()
        .setName(name)
        .setGroup(group)
        .setValue(value)
        .setWidth(width)
        .build();
  }

  /** procfs mlx5_0 fixture values, plus one i40iw-style 'N/A (no PMA)' counter [K-sysfs]. */
  public static PortCounters portCounters() {
    return PortCounters.newBuilder()
        .setCluster("h100-a")
        .setNode("gpu017")
        .setBootId(BOOT_ID)
        .setSeq(4242L)
        .setTime(TIME)
        .setDevice("mlx5_0")
        .setPort(1)
        .setLinkLayer("Ethernet")
        .setState("ACTIVE")
        .setPhysState("LinkUp")
        .setRate("25 Gb/sec (1X EDR)")
        .setRateGbps(25.0)
        .setLinkWidth("1X")
        .setNetdev("ens5f0np0")
        .setNetdevMtu(4200)
        .setNetdevSpeedMbps(25000)
        .setCounters(
            List.of(
                // 2^64-1 as read from a 64-bit counter is stored as its two's-complement long.
                counter("port_xmit_data", CounterGroup.COUNTERS, -1L, 64),
                counter("port_xmit_wait", CounterGroup.COUNTERS, 3599L, 32),
                counter("symbol_error", CounterGroup.COUNTERS, 65535L, 16),
                counter("duplicate_request", CounterGroup.HW_COUNTERS, 41L, 32),
                counter("local_ack_timeout_err", CounterGroup.HW_COUNTERS, 131L, 32),
                Counter.newBuilder()
                    .setName("port_rcv_data")
                    .setGroup(CounterGroup.COUNTERS)
                    .setValue(null)
                    .setWidth(64)
                    .setUnavailable("N/A (no PMA)")
                    .build()))
        .setReadErrors(List.of("hw_counters/np_cnp_sent: Permission denied"))
        .build();
  }

  public static PfcPauseFrames pfcPauseFrames() {
    return PfcPauseFrames.newBuilder()
        .setCluster("h100-a")
        .setNode("gpu017")
        .setBootId(BOOT_ID)
        .setSeq(4243L)
        .setTime(TIME)
        .setNetdev("ens5f0np0")
        .setDriver("mlx5_core")
        .setDevice("mlx5_0")
        .setCounters(
            List.of(
                counter("rx_prio3_pause", CounterGroup.ETHTOOL, 1_234_567L, 64),
                counter("rx_prio3_pause_duration", CounterGroup.ETHTOOL, 987_654_321L, 64),
                counter("tx_pause_storm_warning_events", CounterGroup.ETHTOOL, 2L, 64),
                counter("rx_pause_ctrl_phy", CounterGroup.ETHTOOL, 0L, 64)))
        .build();
  }

  public static EcnMarks ecnMarks() {
    return EcnMarks.newBuilder()
        .setCluster("h100-a")
        .setNode("gpu017")
        .setBootId(BOOT_ID)
        .setSeq(4244L)
        .setTime(TIME)
        .setDevice("mlx5_0")
        .setPort(1)
        .setNetdev("ens5f0np0")
        .setCounters(
            List.of(
                counter("np_ecn_marked_roce_packets", CounterGroup.HW_COUNTERS, 88_034L, 64),
                counter("np_cnp_sent", CounterGroup.HW_COUNTERS, 77_001L, 64),
                counter("rp_cnp_handled", CounterGroup.HW_COUNTERS, 65_000L, 64),
                counter("rx_prio3_marked", CounterGroup.ETHTOOL, 12L, 64)))
        .build();
  }

  /** The ibsim sminfo line of opensm/ibsim-lab-sminfo-master-simulated.txt. */
  public static SmSweep smSweep() {
    return SmSweep.newBuilder()
        .setCluster("h100-a")
        .setNode("sm01")
        .setBootId(BOOT_ID)
        .setSeq(17L)
        .setTime(TIME)
        .setSource(SmSource.SMINFO)
        .setEvent(SmEventKind.SMINFO_POLL)
        .setSmState("MASTER")
        .setSmLid(1)
        .setSmGuid("0x2c90000000011")
        .setActivityCount(186L)
        .setPriority(0)
        .setMessage(
            "sminfo: sm lid 1 sm guid 0x2c90000000011, activity count 186 priority 0 state 3"
                + " SMINFO_MASTER")
        .setRawLine(
            "sminfo: sm lid 1 sm guid 0x2c90000000011, activity count 186 priority 0 state 3"
                + " SMINFO_MASTER")
        .build();
  }

  /** The A100 of nvsmi/mleng-a100-xid63-and-nvidia-smi-q-remap-pending.txt; '[N/A]' stays null. */
  public static GpuEcc gpuEcc() {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("ecc.errors.corrected.volatile.total", "177");
    fields.put("retired_pages.single_bit_ecc.count", "[N/A]");
    fields.put("remapped_rows.pending", "Yes");
    return GpuEcc.newBuilder()
        .setCluster("h100-a")
        .setNode("gpu017")
        .setBootId(BOOT_ID)
        .setSeq(99L)
        .setTime(TIME)
        .setGpu(3)
        .setUuid("GPU-2b1c5d4e-8f7a-4c3b-9e2d-1a0b9c8d7e6f")
        .setPciBusId("00000000:10:1C.0")
        .setName("NVIDIA A100-SXM4-80GB")
        .setEccMode("Enabled")
        .setEccCorrectedVolatile(177L)
        .setEccUncorrectedVolatile(0L)
        .setEccCorrectedAggregate(177L)
        .setEccUncorrectedAggregate(0L)
        .setRemappedRowsCorrectable(1L)
        .setRemappedRowsUncorrectable(0L)
        .setRemappedRowsPending(true)
        .setRemappedRowsFailure(false)
        .setTemperatureGpu(41)
        .setTemperatureMemory(49)
        .setFields(fields)
        .build();
  }

  public static final String XID_LINE =
      "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset"
          + " gpu to activate.";

  public static GpuXid gpuXid() {
    return GpuXid.newBuilder()
        .setCluster("h100-a")
        .setNode("gpu017")
        .setBootId(BOOT_ID)
        .setSeq(5L)
        .setTime(TIME)
        .setPciBusId("0000:10:1c")
        .setGpu(3)
        .setXid(63)
        .setPid(1896)
        .setKind(XidKind.XID)
        .setMessage("Row Remapper: New row marked for remapping, reset gpu to activate.")
        .setRawLine(XID_LINE)
        .build();
  }

  public static final String NCCL_LINE =
      "tpgds-aihub0008:207008:207008 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE"
          + " [1]mlx5_1:1/RoCE [RO]; OOB enp25s0np0:10.99.91.63<0>";

  public static NcclLog ncclLog() {
    return NcclLog.newBuilder()
        .setCluster("h100-a")
        .setNode("tpgds-aihub0008")
        .setBootId(BOOT_ID)
        .setSeq(310L)
        .setTime(TIME)
        .setFile("/var/log/jobs/7781/rank1.log")
        .setLineNo(214L)
        .setJob("7781")
        .setHost("tpgds-aihub0008")
        .setPid(207008)
        .setTid(207008)
        .setCudaDev(1)
        .setLevel("INFO")
        .setNcclVersion("2.27.5")
        .setKind("NET_IB_USING")
        .setAttrs(Map.of("net", "IB", "hca", "mlx5_0:1/RoCE,mlx5_1:1/RoCE"))
        .setMessage(
            "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB enp25s0np0:10.99.91.63<0>")
        .setRawLine(NCCL_LINE)
        .build();
  }

  public static CounterRates counterRates() {
    return CounterRates.newBuilder()
        .setCluster("h100-a")
        .setNode("gpu017")
        .setBootId(BOOT_ID)
        .setSeq(4242L)
        .setTime(TIME)
        .setIntervalMs(1000L)
        .setSource(RateSource.PORT)
        .setDevice("mlx5_0")
        .setPort(1)
        .setNetdev("ens5f0np0")
        .setLinkLayer("Ethernet")
        .setState("ACTIVE")
        .setPhysState("LinkUp")
        .setRateGbps(25.0)
        .setLinkWidth("1X")
        .setNetdevMtu(4200)
        .setRates(
            List.of(
                CounterRate.newBuilder()
                    .setName("port_xmit_data")
                    .setValue(1_000_000L)
                    .setDelta(3_125_000_000L)
                    .setPerSecond(3.125e9)
                    .setUnit("bytes")
                    .setTag(RateTag.normal)
                    .build(),
                CounterRate.newBuilder()
                    .setName("symbol_error")
                    .setValue(65535L)
                    .setUnit("events")
                    .setTag(RateTag.saturated)
                    .build()))
        .build();
  }

  public static NcclTransport ncclTransport() {
    return NcclTransport.newBuilder()
        .setCluster("h100-a")
        .setNode("gke-a3-node-1")
        .setHost("gke-a3-node-1")
        .setJob("lab-06")
        .setNcclVersion("2.22.3")
        .setTime(TIME)
        .setNet("Socket")
        .setGdr(false)
        .setEvidence(
            List.of("NCCL INFO NET/IB : No device found.", "NCCL INFO Using network Socket"))
        .build();
  }

  public static Alert alert() {
    Map<String, String> evidence = new LinkedHashMap<>();
    evidence.put("rx_prio3_pause_duration", "900000 us/s");
    evidence.put("victims", "gpu018/mlx5_0/1, gpu019/mlx5_0/1");
    return Alert.newBuilder()
        .setAlertId("pause-storm/h100-a/gpu017/ens5f0np0/3/1741586762511")
        .setRule("pause-storm-default")
        .setKind(AlertKind.PAUSE_STORM)
        .setSeverity(Severity.CRITICAL)
        .setState(AlertState.RESOLVED)
        .setCluster("h100-a")
        .setNode("gpu017")
        .setDevice("mlx5_0")
        .setPort(1)
        .setNetdev("ens5f0np0")
        .setPriority(3)
        .setStartedAt(TIME)
        .setResolvedAt(Instant.parse("2025-03-10T06:08:02Z"))
        .setValue(0.9)
        .setThreshold(0.5)
        .setUnit("ratio")
        .setSummary("prio 3 paused 90% of each second for 3 s on gpu017 ens5f0np0")
        .setEvidence(evidence)
        .setLabels(Map.of("team", "fabric"))
        .setSourceTopic("fabric.rates")
        .setSourcePartition(4)
        .setSourceOffset(918_273L)
        .build();
  }

  public static DeadLetter deadLetter() {
    return DeadLetter.newBuilder()
        .setTime(TIME)
        .setTopic("fabric.raw.port-counters")
        .setPartition(2)
        .setOffset(77L)
        .setProcessor("rates-decode")
        .setReason("not Confluent Avro wire format")
        .setException("org.apache.kafka.common.errors.SerializationException: magic byte 7")
        .setKey(ByteBuffer.wrap("h100-a/gpu017".getBytes(StandardCharsets.UTF_8)))
        .setValue(ByteBuffer.wrap(new byte[] {7, 0, 0, 0, 1, (byte) 0xff, 0x00, 0x10}))
        .build();
  }
}
