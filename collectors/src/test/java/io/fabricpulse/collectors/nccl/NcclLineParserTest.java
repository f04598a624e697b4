package io.fabricpulse.collectors.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.schemas.nccl.NcclKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class NcclLineParserTest {

  private static final String SLURMV4 = "slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5";
  private static final String GKE = "gke-a3-h100-2node-socket-fallback-nccl2.22.3";
  private static final String NV_PEER =
      "nv_peer_memory-56-gdr-disabled-distance-via-NET-IB-0-nccl2.4.7";
  private static final String NCCL_1537 = "nccl-1537-roce-gdr-disabled-for-hca";
  private static final String MLENG = "mleng-azure-ib-warn-completion-error12";

  @Test
  void slurmv4Counts() {
    var parsed = NcclSamples.parse(NcclSamples.real(SLURMV4));
    assertEquals(752, parsed.records().size());
    assertEquals(40, parsed.nonNcclLines(), "launch commands and Gloo lines");
    assertEquals(List.of(), parsed.result().malformed());
    Map<String, Long> kinds = parsed.kindCounts();
    assertEquals(8L, kinds.get("VERSION"));
    assertEquals(8L, kinds.get("NET_IB_USING"));
    assertEquals(8L, kinds.get("USING_NETWORK"));
    assertEquals(304L, kinds.get("CHANNEL"));
    assertEquals(8L, kinds.get("RING_SUMMARY"));
    assertEquals(8L, kinds.get("INIT_START"));
    assertEquals(8L, kinds.get("INIT_COMPLETE"));
    assertEquals(8L, kinds.get("DMABUF"));
    assertEquals(8L, kinds.get("GDR_LEVEL_ENV"));
    assertEquals(
        null, kinds.get("GDR_HCA"), "2.27.5 with NCCL_NET_GDR_LEVEL prints no HCA line here");
  }

  @Test
  void slurmv4ChannelsRunOverIbWithGdrdmaOrP2pIpc() {
    var parsed = NcclSamples.parse(NcclSamples.real(SLURMV4));
    List<NcclLog> channels = parsed.ofKind(NcclKind.CHANNEL);
    List<NcclLog> net =
        channels.stream().filter(r -> "NET/IB".equals(r.getAttrs().get("transport"))).toList();
    assertEquals(64, net.size());
    assertEquals(64, net.stream().filter(r -> "true".equals(r.getAttrs().get("gdr"))).count());
    assertEquals(
        32, net.stream().filter(r -> "send".equals(r.getAttrs().get("direction"))).count());
    assertEquals(
        32, net.stream().filter(r -> "receive".equals(r.getAttrs().get("direction"))).count());
    assertEquals(
        Set.of("0", "1", "2", "3", "4", "5", "6", "7"),
        net.stream().map(r -> r.getAttrs().get("net_dev")).collect(Collectors.toSet()));
    assertEquals(
        240, channels.stream().filter(r -> "P2P/IPC".equals(r.getAttrs().get("via"))).count());
    NcclLog first = net.get(0);
    assertEquals("7", first.getAttrs().get("from_rank"));
    assertEquals("14", first.getAttrs().get("to_rank"));
    assertEquals("IB", first.getAttrs().get("net"));
    assertEquals(6, first.getCudaDev());
  }

  @Test
  void slurmv4IbDevicesVersionRingSummaryAndCommId() {
    var parsed = NcclSamples.parse(NcclSamples.real(SLURMV4));
    NcclLog using = parsed.ofKind(NcclKind.NET_IB_USING).get(0);
    assertEquals("8", using.getAttrs().get("hca_count"));
    assertEquals(
        "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1,mlx5_11:1",
        using.getAttrs().get("hcas"));
    assertEquals("RoCE", using.getAttrs().get("link_layer_set"));
    assertEquals("true", using.getAttrs().get("relaxed_ordering"));
    assertEquals("enp25s0np0:10.99.91.63<0>", using.getAttrs().get("oob"));
    assertEquals("2.27.5", using.getNcclVersion());

    NcclLog version = parsed.ofKind(NcclKind.VERSION).get(0);
    assertEquals("2.27.5", version.getAttrs().get("version"));
    assertEquals("cuda12.9", version.getAttrs().get("build"));
    assertEquals("tpgds-aihub0008", version.getHost());
    assertEquals(207008, version.getPid());
    assertEquals(207008, version.getTid());
    assertEquals(1, version.getCudaDev());
    assertEquals("INFO", version.getLevel());
    assertEquals(44, version.getLineNo());

    for (NcclLog ring : parsed.ofKind(NcclKind.RING_SUMMARY)) {
      assertEquals(Map.of("pxn", "0", "gdr", "1"), ring.getAttrs());
      assertEquals("0xde4443395863ef4a", ring.getCommId());
    }
    NcclLog complete = parsed.ofKind(NcclKind.INIT_COMPLETE).get(0);
    assertEquals("0xde4443395863ef4a", complete.getCommId());
    assertEquals("16", complete.getAttrs().get("nranks"));
    // Each of the 8 processes prints 3 lines (cudaDriverVersion, NCCL_SOCKET_IFNAME, Bootstrap)
    // before its own banner; every later line carries 2.27.5.
    assertEquals(24, parsed.records().stream().filter(r -> r.getNcclVersion() == null).count());
    assertEquals(
        728, parsed.records().stream().filter(r -> "2.27.5".equals(r.getNcclVersion())).count());
  }

  @Test
  void slurmv4PluginLoadsThenFailsAndNcclAssignsInternalIb() {
    var parsed = NcclSamples.parse(NcclSamples.real(SLURMV4));
    Map<String, Long> events =
        parsed.ofKind(NcclKind.PLUGIN).stream()
            .collect(Collectors.groupingBy(r -> r.getAttrs().get("event"), Collectors.counting()));
    assertEquals(8L, events.get("loaded"));
    assertEquals(8L, events.get("init_failed"));
    assertEquals(8L, events.get("assigned"));
    NcclLog loaded =
        parsed.ofKind(NcclKind.PLUGIN).stream()
            .filter(r -> "loaded".equals(r.getAttrs().get("event")))
            .findFirst()
            .orElseThrow();
    assertEquals("AWS Libfabric", loaded.getAttrs().get("plugin"));
    assertEquals("6", loaded.getAttrs().get("plugin_version"));
  }

  @Test
  void gkeSocketFallback() {
    var parsed = NcclSamples.parse(NcclSamples.real(GKE));
    assertEquals(40, parsed.records().size());
    assertEquals(2, parsed.ofKind(NcclKind.NET_IB_NO_DEVICE).size());
    NcclLog socket = parsed.ofKind(NcclKind.NET_SOCKET_USING).get(0);
    assertEquals("eth0:10.128.0.52<0>", socket.getAttrs().get("ifaces"));
    assertEquals("Socket", parsed.ofKind(NcclKind.USING_NETWORK).get(0).getAttrs().get("net"));
    NcclLog hca = parsed.ofKind(NcclKind.GDR_HCA).get(0);
    assertEquals(
        Map.of("transport", "Socket", "enabled", "false", "hca", "0", "dev", "eth0"),
        hca.getAttrs());
    List<NcclLog> channels = parsed.ofKind(NcclKind.CHANNEL);
    assertEquals(14, channels.size(), "the 16 ring-order lines are not connections");
    assertTrue(
        channels.stream()
            .allMatch(
                r ->
                    "P2P".equals(r.getAttrs().get("transport"))
                        && "CUMEM".equals(r.getAttrs().get("mechanism"))));
    assertTrue(parsed.records().stream().allMatch(r -> "2.22.3".equals(r.getNcclVersion())));
  }

  @Test
  void nvPeerMemory247RingFormAndDistanceLines() {
    var parsed = NcclSamples.parse(NcclSamples.real(NV_PEER));
    assertEquals(15, parsed.records().size());
    List<NcclLog> distance = parsed.ofKind(NcclKind.GDR_GPU_DISTANCE);
    assertEquals(4, distance.size());
    assertEquals(
        Map.of(
            "transport",
            "IB",
            "enabled",
            "false",
            "gpu",
            "2[2]",
            "hca",
            "0",
            "distance",
            "3",
            "gdr_level",
            "2"),
        distance.get(0).getAttrs());
    List<NcclLog> net =
        parsed.ofKind(NcclKind.CHANNEL).stream()
            .filter(r -> r.getAttrs().containsKey("net"))
            .toList();
    assertEquals(4, net.size());
    NcclLog receive = net.get(0);
    assertEquals("Ring", receive.getAttrs().get("form"));
    assertEquals("6", receive.getAttrs().get("from_rank"));
    assertEquals("2", receive.getAttrs().get("to_rank"));
    assertEquals("receive", receive.getAttrs().get("direction"));
    assertEquals("NET/IB", receive.getAttrs().get("transport"));
    assertEquals("false", receive.getAttrs().get("gdr"));
    assertEquals("master_node", receive.getHost());
    assertNull(receive.getNcclVersion(), "the excerpt has no version banner");
    assertEquals(
        6,
        parsed.ofKind(NcclKind.CHANNEL).stream()
            .filter(r -> "P2P/IPC".equals(r.getAttrs().get("via")))
            .count());
  }

  @Test
  void nccl1537DisabledHcasCarryTheCommIdOfInitStart() {
    var parsed = NcclSamples.parse(NcclSamples.real(NCCL_1537));
    assertEquals(6, parsed.records().size());
    List<NcclLog> hcas = parsed.ofKind(NcclKind.GDR_HCA);
    assertEquals(
        List.of("mlx5_0", "mlx5_1"), hcas.stream().map(r -> r.getAttrs().get("dev")).toList());
    assertTrue(
        hcas.stream()
            .allMatch(
                r ->
                    "false".equals(r.getAttrs().get("enabled"))
                        && "0x65e0bd6ee7449db4".equals(r.getCommId())));
    NcclLog using = parsed.ofKind(NcclKind.NET_IB_USING).get(0);
    assertNull(using.getCommId(), "commId is only known from Init START on");
    assertEquals("primaryip:10.10.10.10<0>", using.getAttrs().get("oob"));
    assertEquals("2", using.getAttrs().get("hca_count"));
  }

  @Test
  void mlengWrappedCompletionErrorIsOneWarnRecord() throws IOException {
    Path file = NcclSamples.real(MLENG);
    var parsed = NcclSamples.parse(file);
    assertEquals(5, parsed.records().size());
    assertEquals(1, parsed.nonNcclLines(), "the blank line NCCL prints before a WARN");
    NcclLog warn = parsed.ofKind(NcclKind.WARN).get(0);
    assertEquals("WARN", warn.getLevel());
    assertEquals(3, warn.getLineNo());
    assertEquals("node-2", warn.getHost());
    assertEquals(5776, warn.getPid());
    assertEquals(5902, warn.getTid());
    assertEquals("completion_error", warn.getAttrs().get("event"));
    assertEquals("10.2.0.5<33092>", warn.getAttrs().get("peer"));
    assertEquals("12", warn.getAttrs().get("status"));
    assertEquals("0", warn.getAttrs().get("opcode"));
    assertEquals("0", warn.getAttrs().get("len"));
    assertEquals("129", warn.getAttrs().get("vendor_err"));
    assertEquals("Recv", warn.getAttrs().get("request"));
    assertEquals("transport/net_ib.cc:1296", warn.getAttrs().get("src"));
    List<String> lines = Files.readAllLines(file);
    assertEquals(lines.get(2) + "\n" + lines.get(3), warn.getRawLine());
    NcclLog using = parsed.ofKind(NcclKind.NET_IB_USING).get(0);
    assertEquals("ibP111p0s0:1,rdmaP1111p0s2:1", using.getAttrs().get("hcas"));
    assertEquals("IB,RoCE", using.getAttrs().get("link_layers"));
    List<NcclLog> propagation = parsed.ofKind(NcclKind.OTHER);
    assertEquals(
        List.of("6", "6", "6"),
        propagation.stream().map(r -> r.getAttrs().get("return_code")).toList());
  }

  @Test
  void rawLinesAreKeptUnchanged() throws IOException {
    Path file = NcclSamples.real(GKE);
    List<String> lines = Files.readAllLines(file);
    for (NcclLog r : NcclSamples.parse(file).records()) {
      assertEquals(lines.get((int) r.getLineNo() - 1), r.getRawLine());
      assertEquals(file.toString(), r.getFile());
      assertEquals("lab", r.getCluster());
      assertEquals("gpu017", r.getNode());
      assertEquals("boot-1", r.getBootId());
      assertEquals(NcclSamples.T0, r.getTime());
    }
  }

  @Test
  void sequenceNumbersIncreaseByOnePerRecord() {
    List<NcclLog> records = NcclSamples.parse(NcclSamples.real(SLURMV4)).records();
    for (int i = 0; i < records.size(); i++) {
      assertEquals(i, records.get(i).getSeq());
    }
  }

  @Test
  void linesWithoutHostPrefixKeepTheFileVersion() {
    var parsed =
        NcclSamples.parse(NcclSamples.synthetic("nccl-synthetic-no-host-prefix-ib-gdr.txt"));
    assertEquals(9, parsed.records().size());
    assertEquals(2, parsed.nonNcclLines());
    assertTrue(
        parsed.records().stream()
            .allMatch(
                r ->
                    r.getHost() == null
                        && r.getPid() == null
                        && r.getCudaDev() == null
                        && "2.18.3".equals(r.getNcclVersion())));
    assertEquals("IB", parsed.ofKind(NcclKind.USING_NETWORK).get(0).getAttrs().get("net"));
    assertEquals(1, parsed.ofKind(NcclKind.INIT_COMPLETE).size());
    assertEquals(2, parsed.ofKind(NcclKind.GDR_HCA).size());
  }

  @Test
  void datePrefixedLinesAndPxnChannels() {
    var parsed =
        NcclSamples.parse(
            NcclSamples.synthetic("nccl-synthetic-date-prefix-socket-bootstrap-ib-pxn.txt"));
    assertEquals(13, parsed.records().size());
    assertTrue(parsed.records().stream().allMatch(r -> "node7".equals(r.getHost())));
    NcclLog pxn = parsed.ofKind(NcclKind.CHANNEL).get(0);
    assertEquals("1", pxn.getAttrs().get("proxy_rank"));
    assertEquals("0", pxn.getAttrs().get("net_dev"));
    assertEquals("true", pxn.getAttrs().get("gdr"));
    assertEquals("0x1a2b3c4d5e6f7081", pxn.getCommId());
    assertEquals("2.21.5", pxn.getNcclVersion());
    NcclLog cumem = parsed.ofKind(NcclKind.CHANNEL).get(2);
    assertEquals("P2P", cumem.getAttrs().get("transport"));
    assertEquals("CUMEM/read", cumem.getAttrs().get("mechanism"));
    assertNull(cumem.getNcclVersion(), "pid 4101 printed no banner of its own");
    NcclLog ring = parsed.ofKind(NcclKind.RING_SUMMARY).get(0);
    assertEquals(Map.of("pxn", "1", "gdr", "1", "time_from", "line"), ring.getAttrs());
    assertEquals(1, parsed.ofKind(NcclKind.NET_SOCKET_USING).size());
    // each record's time is its line's "[%F %T] " prefix (UTC here), not the context's time
    assertEquals(Instant.parse("2024-05-01T10:00:00Z"), parsed.records().get(0).getTime());
    assertTrue(ring.getTime().isAfter(parsed.records().get(0).getTime()), ring.toString());
    assertTrue(parsed.records().stream().noneMatch(r -> r.getTime().equals(NcclSamples.T0)));
  }

  @Test
  void launcherPrefixAndPluginTransportName() {
    var parsed = NcclSamples.parse(NcclSamples.synthetic("nccl-synthetic-ibext_v8-plugin-gdr.txt"));
    assertEquals(11, parsed.records().size());
    assertEquals("hpc-a12", parsed.records().get(0).getHost());
    NcclLog hca = parsed.ofKind(NcclKind.GDR_HCA).get(0);
    assertEquals("IBext_v8", hca.getAttrs().get("transport"));
    NcclLog shared = parsed.ofKind(NcclKind.CHANNEL).get(2);
    assertEquals("NET/IBext_v8", shared.getAttrs().get("transport"));
    assertEquals("true", shared.getAttrs().get("shared"));
    assertEquals("true", shared.getAttrs().get("gdr"));
    NcclLog plugin = parsed.ofKind(NcclKind.PLUGIN).get(0);
    assertEquals("NCCL RDMA Plugin v8", plugin.getAttrs().get("plugin"));
  }

  @Test
  void bareVersionLineOf230StampsTheFile() {
    var parsed =
        NcclSamples.parse(
            NcclSamples.synthetic("nccl-synthetic-2.30-no-gpu-distance-ring-gdr0.txt"));
    NcclLog version = parsed.records().get(0);
    assertEquals("VERSION", version.getKind());
    assertNull(version.getLevel());
    assertNull(version.getHost());
    assertTrue(parsed.records().stream().allMatch(r -> "2.30.7".equals(r.getNcclVersion())));
    assertEquals(0, parsed.ofKind(NcclKind.GDR_GPU_DISTANCE).size());
    assertEquals(
        Map.of("pxn", "0", "gdr", "0"), parsed.ofKind(NcclKind.RING_SUMMARY).get(0).getAttrs());
  }

  @Test
  void traceAndNewerFormatsFromTheNcclSources() {
    List<NcclLog> records =
        parse(
            // 2.30 TRACE layout: "[dev] elapsed file:line NCCL TRACE msg" [NCCL-debug]
            "g1:10:11 [3] 1234.567890 graph/paths.cc:321 NCCL TRACE GPU Direct RDMA Disabled for GPU 3 / HCA 1 (distance 5 > 4)",
            "g1:10:11 [3] NCCL INFO GPU Direct RDMA Enabled for GPU 4 / HCA 2 (distance 2 <= 4), read 1 mode Default",
            "g1:10:11 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)",
            "g1:10:11 [3] transport/net_ib/p2p.cc:688 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<4021> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 localGid ::ffff:10.0.0.1 hca mlx5_3",
            "g1:10:11 [3] NCCL INFO Channel 02 : 3[3] -> 11[3] [send] via NET/IB/1/GDRDMA",
            "0: g1:10:11 [3] NCCL INFO NCCL_NET_GDR_LEVEL set by environment to PHB",
            "g1:10:11 [3] NCCL INFO NET/IB : No device found.",
            "g1:10:11 [3] NCCL INFO DMA-BUF is available on GPU device 3");
    assertEquals("TRACE", records.get(0).getLevel());
    assertEquals("GDR_GPU_DISTANCE", records.get(0).getKind());
    assertEquals("5", records.get(0).getAttrs().get("distance"));
    assertEquals("graph/paths.cc:321", records.get(0).getAttrs().get("src"));
    assertEquals("true", records.get(1).getAttrs().get("enabled"));
    assertEquals("no module", records.get(2).getAttrs().get("reason"));
    NcclLog warn = records.get(3);
    assertEquals("12", warn.getAttrs().get("status"));
    assertEquals("IBV_WC_RETRY_EXC_ERR", warn.getAttrs().get("status_name"));
    assertEquals("IBV_WC_SEND", warn.getAttrs().get("opcode_name"));
    assertEquals("129", warn.getAttrs().get("vendor_err"));
    assertEquals("mlx5_3", warn.getAttrs().get("hca"));
    assertEquals("CHANNEL", records.get(4).getKind());
    assertNull(records.get(4).getAttrs().get("conn_index"));
    assertEquals("PHB", records.get(5).getAttrs().get("level"));
    assertEquals("NET_IB_NO_DEVICE", records.get(6).getKind());
    assertEquals("3", records.get(7).getAttrs().get("gpu"));
  }

  @Test
  void nonNcclLinesAreCountedNotMalformed() {
    NcclLineParser parser = new NcclLineParser();
    ParseResult<NcclLog> out =
        parser.parseAll(
            NcclLineParser.linesOf(
                "app-synthetic.log",
                List.of(
                    "",
                    "Traceback (most recent call last):",
                    "NCCL_DEBUG=INFO",
                    "h:99999999999:1 [0] NCCL INFO Using network IB"),
                null),
            SampleContext.of(NcclSamples.NODE, NcclSamples.T0));
    assertEquals(0, out.records().size());
    assertEquals(3, parser.nonNcclLines());
    assertEquals(1, out.malformed().size(), "a pid wider than an int is garbage");
    assertEquals(4, out.malformed().get(0).line());
  }

  private static List<NcclLog> parse(String... lines) {
    return new NcclLineParser()
        .parseAll(
            NcclLineParser.linesOf("inline-synthetic.log", List.of(lines), null),
            SampleContext.of(NcclSamples.NODE, NcclSamples.T0))
        .records();
  }
}
