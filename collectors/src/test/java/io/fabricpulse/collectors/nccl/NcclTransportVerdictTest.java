package io.fabricpulse.collectors.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.NcclTransport;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NcclTransportVerdictTest {

  /** The verdict table of issue 4 detector 3, on the real captures: every host of each sample. */
  @ParameterizedTest(name = "{0} -> net {1}, gdr {2}")
  @CsvSource(
      nullValues = "null",
      value = {
        "slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5, IB, true",
        "gke-a3-h100-2node-socket-fallback-nccl2.22.3, Socket, false",
        "nv_peer_memory-56-gdr-disabled-distance-via-NET-IB-0-nccl2.4.7, IB, false",
        "nccl-1537-roce-gdr-disabled-for-hca, IB, false",
        "mleng-azure-ib-warn-completion-error12, IB, null",
      })
  void realSamplesGiveTheIssueTable(String sample, String net, Boolean gdr) {
    Map<String, NcclTransportVerdict> verdicts = verdictsOf(NcclSamples.real(sample));
    assertFalse(verdicts.isEmpty());
    for (NcclTransportVerdict verdict : verdicts.values()) {
      assertEquals(net, verdict.net(), verdict.host());
      assertEquals(gdr, verdict.gdr(), verdict.host());
      assertFalse(verdict.evidence().isEmpty(), "a verdict names its evidence");
    }
  }

  @ParameterizedTest(name = "{0} -> net {1}, gdr {2}")
  @CsvSource({
    "nccl-synthetic-no-host-prefix-ib-gdr.txt, IB, true",
    "nccl-synthetic-date-prefix-socket-bootstrap-ib-pxn.txt, IB, true",
    "nccl-synthetic-ibext_v8-plugin-gdr.txt, IBext_v8, true",
    "nccl-synthetic-2.30-no-gpu-distance-ring-gdr0.txt, IB, false",
  })
  void syntheticFixtures(String fixture, String net, boolean gdr) {
    Collection<NcclTransportVerdict> verdicts = verdictsOf(NcclSamples.synthetic(fixture)).values();
    assertEquals(1, verdicts.size());
    NcclTransportVerdict verdict = verdicts.iterator().next();
    assertEquals(net, verdict.net());
    assertEquals(gdr, verdict.gdr());
  }

  @Test
  void slurmv4EvidenceIsTheUsingNetworkLineThenGdrdmaChannelsAndRingSummary() {
    NcclTransportVerdict verdict =
        single(NcclSamples.real("slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5"));
    List<String> evidence = verdict.evidence();
    assertEquals("tpgds-aihub0008:207008:207008 [1] NCCL INFO Using network IB", evidence.get(0));
    assertEquals(2, evidence.stream().filter(l -> l.endsWith("/GDRDMA")).count());
    assertEquals(2, evidence.stream().filter(l -> l.endsWith("use ring PXN 0 GDR 1")).count());
    assertEquals("2.27.5", verdict.ncclVersion());
    assertEquals("0xde4443395863ef4a", verdict.commId());
    assertEquals("tpgds-aihub0008", verdict.host());
  }

  @Test
  void gkeSocketFallbackRestsOnUsingNetworkSocketAndTheSocketHcaLine() {
    NcclTransport record =
        single(NcclSamples.real("gke-a3-h100-2node-socket-fallback-nccl2.22.3")).toRecord();
    assertEquals("Socket", record.getNet());
    assertEquals(false, record.getGdr());
    assertEquals("lab", record.getCluster());
    assertEquals("gpu017", record.getNode());
    assertEquals("gke-hypercomputer-a3-a3-h100-dws-pool-16664d9c-hv7m", record.getHost());
    assertEquals("2.22.3", record.getNcclVersion());
    assertEquals(
        List.of(
            "gke-hypercomputer-a3-a3-h100-dws-pool-16664d9c-hv7m:1596:2150 [0] NCCL INFO Using"
                + " network Socket",
            "gke-hypercomputer-a3-a3-h100-dws-pool-16664d9c-hv7m:1596:2150 [0] NCCL INFO"
                + " NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'"),
        record.getEvidence());
  }

  @Test
  void nvPeerMemoryHostsBothFallBackToHostStaging() {
    Map<String, NcclTransportVerdict> verdicts =
        verdictsOf(
            NcclSamples.real("nv_peer_memory-56-gdr-disabled-distance-via-NET-IB-0-nccl2.4.7"));
    assertEquals(
        List.of("master_node", "secondary_node"),
        verdicts.values().stream().map(NcclTransportVerdict::host).toList());
  }

  @Test
  void mlengCompletionErrorIsCountedAndGdrStaysUnknown() {
    NcclTransportVerdict verdict =
        single(NcclSamples.real("mleng-azure-ib-warn-completion-error12"));
    assertEquals(1, verdict.completionErrorCount());
    assertTrue(verdict.completionErrors().get(0).endsWith("vendor err 129 (Recv)"));
    assertNull(verdict.gdr());
    assertNull(verdict.toRecord().getGdr());
  }

  @Test
  void bootstrapSocketLineAloneIsNotASocketVerdict() {
    NcclTransportVerdict verdict =
        fold(
            "h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
            "h1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>");
    assertEquals("IB", verdict.net());
    assertNull(verdict.gdr());
  }

  @Test
  void noDeviceWithoutSocketDataChannelsLeavesTheNetUnknown() {
    NcclTransportVerdict verdict =
        fold(
            "h1:1:1 [0] NCCL INFO NET/IB : No device found.",
            "h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>");
    assertNull(verdict.net());
    assertNull(verdict.gdr());
  }

  @Test
  void noDeviceWithSocketDataChannelsIsSocketWithoutGdr() {
    NcclTransportVerdict verdict =
        fold(
            "h1:1:1 [0] NCCL INFO NET/IB : No device found.",
            "h1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
            "h1:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0",
            "h1:1:1 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/Socket/0");
    assertEquals("Socket", verdict.net());
    assertEquals(false, verdict.gdr());
  }

  @Test
  void oneDisabledHcaAmongEnabledOnesMeansNoGdrAndAddReportsTheChange() {
    NcclTransportVerdict verdict = new NcclTransportVerdict();
    List<NcclLog> records =
        records(
            "h1:1:1 [0] NCCL INFO Using network IB",
            "h1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
            "h1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 1 'mlx5_1'",
            "h1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 2 'mlx5_2' (no"
                + " module)");
    assertTrue(verdict.add(records.get(0)), "net known");
    assertTrue(verdict.add(records.get(1)), "gdr true");
    assertFalse(verdict.add(records.get(2)), "still true");
    assertTrue(verdict.add(records.get(3)), "gdr false");
    assertEquals(false, verdict.gdr());
    assertEquals(
        List.of(
            "h1:1:1 [0] NCCL INFO Using network IB",
            "h1:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 2 'mlx5_2' (no"
                + " module)"),
        verdict.evidence());
  }

  @Test
  void groupsByJobWhenTheTailerKnowsIt() {
    List<NcclLog> lines = new ArrayList<>();
    NcclLineParser parser = new NcclLineParser();
    SampleContext ctx = SampleContext.of(NcclSamples.NODE, NcclSamples.T0);
    lines.addAll(
        parser
            .parseAll(
                List.of(
                    new NcclLogLine(
                        "/logs/slurm-11.out", 1, "h1:1:1 [0] NCCL INFO Using network IB", "11"),
                    new NcclLogLine(
                        "/logs/slurm-12.out",
                        1,
                        "h1:2:2 [0] NCCL INFO Using network Socket",
                        "12")),
                ctx)
            .records());
    Map<String, NcclTransportVerdict> verdicts = NcclTransportVerdict.byGroup(lines);
    assertEquals(List.of("h1|job:11", "h1|job:12"), List.copyOf(verdicts.keySet()));
    assertEquals("IB", verdicts.get("h1|job:11").net());
    assertEquals("12", verdicts.get("h1|job:12").toRecord().getJob());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5",
    "gke-a3-h100-2node-socket-fallback-nccl2.22.3",
    "nv_peer_memory-56-gdr-disabled-distance-via-NET-IB-0-nccl2.4.7",
    "nccl-1537-roce-gdr-disabled-for-hca",
    "mleng-azure-ib-warn-completion-error12",
  })
  void aVerdictWrittenHalfWayAndRestoredEndsAsTheUninterruptedOne(String sample) throws Exception {
    List<NcclLog> records = NcclSamples.parse(NcclSamples.real(sample)).records();
    NcclTransportVerdict whole = NcclTransportVerdict.of(records);
    int half = records.size() / 2;
    NcclTransportVerdict first = NcclTransportVerdict.of(records.subList(0, half));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    first.writeTo(new DataOutputStream(bytes));
    NcclTransportVerdict restored =
        NcclTransportVerdict.readFrom(
            new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertEquals(first.toRecord(), restored.toRecord());
    records.subList(half, records.size()).forEach(restored::add);
    assertEquals(whole.toRecord(), restored.toRecord());
    assertEquals(whole.completionErrors(), restored.completionErrors());
    assertEquals(whole.completionErrorCount(), restored.completionErrorCount());
    assertEquals(whole.lastSeenAt(), restored.lastSeenAt());
  }

  private static Map<String, NcclTransportVerdict> verdictsOf(Path file) {
    return NcclTransportVerdict.byGroup(NcclSamples.parse(file).records());
  }

  private static NcclTransportVerdict single(Path file) {
    Map<String, NcclTransportVerdict> verdicts = verdictsOf(file);
    assertEquals(1, verdicts.size(), verdicts.keySet().toString());
    return verdicts.values().iterator().next();
  }

  private static NcclTransportVerdict fold(String... lines) {
    return NcclTransportVerdict.of(records(lines));
  }

  private static List<NcclLog> records(String... lines) {
    return new NcclLineParser()
        .parseAll(
            NcclLineParser.linesOf("inline-synthetic.log", Arrays.asList(lines), null),
            SampleContext.of(NcclSamples.NODE, NcclSamples.T0))
        .records();
  }
}
