package io.fabricpulse.collectors.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.kmsg.KernelLogXidParser;
import io.fabricpulse.collectors.nccl.NcclLineParser;
import io.fabricpulse.collectors.nvsmi.GpuQueryFields;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiCsvParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiQParser;
import io.fabricpulse.collectors.nvsmi.NvidiaSmiSource;
import io.fabricpulse.collectors.opensm.OpenSmLogParser;
import io.fabricpulse.collectors.opensm.OpenSmLogSource;
import io.fabricpulse.collectors.opensm.SminfoParser;
import io.fabricpulse.schemas.nccl.NcclTransportVerdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** OpenSM/sminfo, nvidia-smi, kmsg and NCCL text of the simulator through the real parsers. */
class SimulatedLogsTest {
  static final Instant T0 = FabricSimulatorTest.T0;

  static List<SmSweep> openSm(FabricSimulator sim, OpenSmLogSource log, String host)
      throws java.io.IOException {
    ParseResult<SmSweep> r =
        new OpenSmLogParser(FabricSimulator.LOG_ZONE)
            .parseLines(log.poll(), 1, SampleContext.of(sim.identity(host), sim.now()), host);
    assertTrue(r.malformed().isEmpty(), r.malformed().toString());
    return r.records();
  }

  static SmSweep sminfo(FabricSimulator sim) throws Exception {
    String node = sim.smQueryNode();
    ParseResult<SmSweep> r =
        new SminfoParser()
            .parse(
                sim.sources(node).sminfo().orElseThrow().run(),
                SampleContext.of(sim.identity(node), sim.now()));
    assertEquals(1, r.records().size());
    return r.records().get(0);
  }

  static List<GpuEcc> gpus(FabricSimulator sim, String node) throws Exception {
    NvidiaSmiSource smi = sim.sources(node).nvidiaSmi().orElseThrow();
    List<String> fields =
        GpuQueryFields.fromHelpText(smi.helpQueryGpu()).supported(GpuQueryFields.WANTED);
    assertEquals(GpuQueryFields.WANTED, fields, "the help text lists every wanted field");
    ParseResult<GpuEcc> r =
        new NvidiaSmiCsvParser()
            .parse(
                fields,
                smi.queryGpu(fields),
                SampleContext.of(sim.identity(node), sim.now()),
                "nvidia-smi");
    assertTrue(r.malformed().isEmpty(), r.malformed().toString());
    assertEquals(8, r.records().size());
    return r.records();
  }

  static List<GpuXid> xids(FabricSimulator sim, SimulatedNodeSources sources) throws Exception {
    ParseResult<GpuXid> r =
        new KernelLogXidParser(FabricSimulator.LOG_ZONE, sim.bootTime(sources.node()))
            .parseLines(
                sources.kmsg().poll(),
                1,
                SampleContext.of(sim.identity(sources.node()), sim.now()),
                "/dev/kmsg");
    assertTrue(r.malformed().isEmpty(), r.malformed().toString());
    return r.records();
  }

  static List<NcclLog> nccl(FabricSimulator sim, SimulatedNodeSources sources) {
    ParseResult<NcclLog> r =
        new NcclLineParser()
            .parseAll(
                sources.nccl().poll(), SampleContext.of(sim.identity(sources.node()), sim.now()));
    assertTrue(r.malformed().isEmpty(), r.malformed().toString());
    return r.records();
  }

  @Test
  void subnetManagerStartsUpAndSminfoCountsActivity() throws Exception {
    FabricSimulator sim = FabricSimulatorTest.sim(2, 31);
    assertEquals(List.of("sm01", "sm02"), sim.smHosts());
    SimulatedNodeSources sm01 = sim.sources("sm01");
    assertTrue(sm01.nvidiaSmi().isEmpty());
    assertTrue(sim.sources("gpu002").sminfo().isEmpty(), "one node polls sminfo");
    List<SmSweep> master = openSm(sim, sm01.openSmLog().orElseThrow(), "sm01");
    assertEquals(
        List.of(
            SmEventKind.STATE_CHANGE,
            SmEventKind.HEAVY_SWEEP,
            SmEventKind.STATE_CHANGE,
            SmEventKind.SUBNET_UP),
        master.stream().map(SmSweep::getEvent).toList());
    assertEquals("DISCOVERING", master.get(0).getSmState());
    assertEquals("MASTER", master.get(2).getSmState());
    assertTrue(
        !master.get(3).getTime().isBefore(T0)
            && master.get(3).getTime().isBefore(T0.plusSeconds(1)));
    List<SmSweep> standby = openSm(sim, sim.sources("sm02").openSmLog().orElseThrow(), "sm02");
    assertEquals("STANDBY", standby.get(standby.size() - 1).getSmState());

    sim.advanceTo(T0.plusSeconds(10));
    SmSweep first = sminfo(sim);
    sim.advanceTo(T0.plusSeconds(20));
    SmSweep second = sminfo(sim);
    assertEquals(SmEventKind.SMINFO_POLL, first.getEvent());
    assertEquals(1, first.getSmLid());
    assertEquals("MASTER", first.getSmState());
    assertEquals(14, first.getPriority());
    assertTrue(first.getSmGuid().startsWith("0xe41d2d03"));
    assertTrue(second.getActivityCount() >= first.getActivityCount() + 10);
    assertTrue(openSm(sim, sm01.openSmLog().orElseThrow(), "sm01").isEmpty(), "sweeps are quiet");
  }

  @Test
  void smFailoverHandsOverAfterFortySeconds() throws Exception {
    FabricSimulator sim = FabricSimulatorTest.sim(1, 32);
    OpenSmLogSource sm02 = sim.sources("sm02").openSmLog().orElseThrow();
    openSm(sim, sm02, "sm02");
    sim.advanceTo(T0.plusSeconds(99));
    SmSweep before = sminfo(sim);
    InjectedFault failover = sim.smFailover(T0.plusSeconds(100));
    assertEquals("sm01", failover.node());
    assertEquals(T0.plusSeconds(140), failover.end());

    sim.advanceTo(T0.plusSeconds(101));
    SmSweep lost = sminfo(sim);
    assertEquals(SmEventKind.SMINFO_FAILED, lost.getEvent());
    assertEquals("sminfo: iberror: failed: query", lost.getMessage());
    sim.advanceTo(T0.plusSeconds(139));
    assertEquals(SmEventKind.SMINFO_FAILED, sminfo(sim).getEvent());
    List<SmSweep> polls = openSm(sim, sm02, "sm02");
    assertEquals(6, polls.size(), "3 failed polls, ERR 3113 and 3120 each");
    assertTrue(polls.stream().allMatch(e -> e.getEvent() == SmEventKind.MAD_ERROR));

    sim.advanceTo(T0.plusSeconds(140));
    List<SmSweep> takeover = openSm(sim, sm02, "sm02");
    assertEquals(
        List.of(
            SmEventKind.MAD_ERROR,
            SmEventKind.MAD_ERROR,
            SmEventKind.STATE_CHANGE,
            SmEventKind.HEAVY_SWEEP,
            SmEventKind.STATE_CHANGE,
            SmEventKind.SUBNET_UP),
        takeover.stream().map(SmSweep::getEvent).toList());
    SmSweep nowMaster = takeover.get(4);
    assertEquals("MASTER", nowMaster.getSmState());
    assertEquals(
        T0.plusSeconds(140),
        nowMaster.getTime().truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
    assertTrue(takeover.get(3).getMessage().contains("coming out of standby 1"));
    SmSweep after = sminfo(sim);
    assertEquals(2, after.getSmLid());
    assertFalse(after.getSmGuid().equals(before.getSmGuid()));
    assertEquals("MASTER", after.getSmState());
    sim.advanceTo(T0.plusSeconds(150));
    assertTrue(sminfo(sim).getActivityCount() > after.getActivityCount());
  }

  @Test
  void gpusAreHealthyAndEccFaultsShowInNvidiaSmiAndKmsg() throws Exception {
    FabricSimulator sim = FabricSimulatorTest.sim(2, 33);
    sim.gpuEccGrowth("gpu001", 0, T0.plusSeconds(10), Duration.ofSeconds(60), 120);
    sim.gpuEccUncorrectable("gpu001", 1, T0.plusSeconds(20));
    sim.gpuRowRemapPending("gpu001", 2, T0.plusSeconds(30));
    sim.gpuHot("gpu001", 3, T0.plusSeconds(10), Duration.ofSeconds(30), 92);
    SimulatedNodeSources sources = sim.sources("gpu001");

    sim.advanceTo(T0.plusSeconds(9));
    for (GpuEcc gpu : gpus(sim, "gpu001")) {
      assertEquals("NVIDIA H100 80GB HBM3", gpu.getName());
      assertEquals(0L, gpu.getEccCorrectedVolatile());
      assertEquals(0L, gpu.getEccUncorrectedAggregate());
      assertNull(gpu.getRetiredPagesSbe(), "[N/A] on H100");
      assertEquals(false, gpu.getRemappedRowsPending());
      assertTrue(gpu.getTemperatureGpu() >= 37 && gpu.getTemperatureGpu() <= 63);
    }
    assertEquals("00000000:18:00.0", gpus(sim, "gpu001").get(0).getPciBusId());
    assertTrue(xids(sim, sources).isEmpty());

    sim.advanceTo(T0.plusSeconds(40));
    List<GpuEcc> g = gpus(sim, "gpu001");
    assertEquals(31 * 2L, g.get(0).getEccCorrectedVolatile(), "120/min for 31 s");
    assertEquals(62L, g.get(0).getEccCorrectedAggregate());
    assertEquals(1L, g.get(1).getEccUncorrectedVolatile());
    assertEquals(1L, g.get(1).getEccUncorrectedAggregate());
    assertEquals(true, g.get(2).getRemappedRowsPending());
    assertEquals(1L, g.get(2).getRemappedRowsCorrectable());
    assertEquals(0L, g.get(2).getEccCorrectedVolatile());
    assertTrue(g.get(3).getTemperatureGpu() < 85, "hot until +30 s only");
    List<GpuXid> xids = xids(sim, sources);
    assertEquals(2, xids.size());
    assertEquals(48, xids.get(0).getXid());
    assertEquals("PCI:0000:2a:00", xids.get(0).getPciBusId());
    assertEquals(T0.plusSeconds(20), xids.get(0).getTime());
    assertEquals("python3", xids.get(0).getProcessName());
    assertEquals(63, xids.get(1).getXid());
    assertEquals("PCI:0000:3a:00", xids.get(1).getPciBusId());
    assertEquals(T0.plusSeconds(30), xids.get(1).getTime());
    assertTrue(xids(sim, sim.sources("gpu002")).isEmpty(), "other node clean");

    ParseResult<GpuEcc> q =
        new NvidiaSmiQParser()
            .parse(
                sources.nvidiaSmi().orElseThrow().queryAll(),
                SampleContext.of(sim.identity("gpu001"), sim.now()),
                "nvidia-smi -q");
    assertTrue(q.malformed().isEmpty());
    assertEquals(8, q.records().size());
    assertEquals(62L, q.records().get(0).getEccCorrectedAggregate());
    assertEquals(1L, q.records().get(1).getEccUncorrectedVolatile());
    assertEquals(true, q.records().get(2).getRemappedRowsPending());
    assertEquals(g.get(5).getTemperatureGpu(), q.records().get(5).getTemperatureGpu());
    assertEquals(g.get(5).getUuid(), q.records().get(5).getUuid());
  }

  @Test
  void gpuHotReads92AndRebootClearsVolatileCounters() throws Exception {
    FabricSimulator sim = FabricSimulatorTest.sim(1, 34);
    sim.gpuHot("gpu001", 3, T0.plusSeconds(10), Duration.ofSeconds(30), 92);
    sim.gpuRowRemapPending("gpu001", 2, T0.plusSeconds(12));
    sim.nodeReboot("gpu001", T0.plusSeconds(50));
    SimulatedNodeSources sources = sim.sources("gpu001");
    sim.advanceTo(T0.plusSeconds(10));
    assertEquals(92, gpus(sim, "gpu001").get(3).getTemperatureGpu());
    assertEquals(99, gpus(sim, "gpu001").get(3).getTemperatureMemory());
    sim.advanceTo(T0.plusSeconds(50));
    assertEquals(false, gpus(sim, "gpu001").get(2).getRemappedRowsPending(), "reset applies it");
    assertEquals(T0.plusSeconds(50), sim.bootTime("gpu001"));
    List<GpuXid> xids = xids(sim, sources);
    assertEquals(1, xids.size(), "the boot's NVRM driver line is no Xid");
  }

  @Test
  void ncclJobsHealthyGdrFallbackAndSocketFallback() {
    FabricSimulator sim = FabricSimulatorTest.sim(6, 35);
    sim.ncclJob("job-a", List.of("gpu001", "gpu002"), T0.plusSeconds(10));
    InjectedFault gdr =
        sim.ncclGdrFallback("job-b", List.of("gpu003", "gpu004"), T0.plusSeconds(10));
    InjectedFault sock =
        sim.ncclSocketFallback("job-c", List.of("gpu005", "gpu006"), T0.plusSeconds(10));
    assertEquals("job-b", gdr.device());
    assertEquals(List.of("gpu003", "gpu004"), gdr.affected());
    assertEquals(FaultKind.NCCL_SOCKET_FALLBACK, sock.kind());

    sim.advanceTo(T0.plusSeconds(9));
    assertTrue(sim.sources("gpu001").nccl().poll().isEmpty(), "nothing before the job starts");
    sim.advanceTo(T0.plusSeconds(12));
    Map<String, NcclTransportVerdict> healthy =
        NcclTransportVerdict.byGroup(nccl(sim, sim.sources("gpu002")));
    assertEquals(1, healthy.size());
    NcclTransportVerdict a = healthy.values().iterator().next();
    assertEquals("IB", a.net());
    assertEquals(true, a.gdr());
    List<NcclLog> aLines = nccl(sim, sim.sources("gpu001"));
    assertEquals("2.27.5", aLines.get(aLines.size() - 1).getNcclVersion());
    assertEquals("job-a", aLines.get(0).getJob());
    assertEquals("/var/log/nccl/job-a/gpu001.log", aLines.get(0).getFile());
    assertEquals(1L, aLines.get(0).getLineNo());
    assertTrue(
        aLines.stream()
            .anyMatch(
                l ->
                    l.getRawLine()
                        .endsWith(
                            "NCCL INFO NET/IB : Using"
                                + " [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB"
                                + " [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB eth0:10.0.0.1<0>")));
    assertEquals(8, aLines.stream().filter(l -> l.getKind().equals("INIT_COMPLETE")).count());
    assertEquals(16, aLines.stream().filter(l -> l.getRawLine().endsWith("/GDRDMA")).count());

    NcclTransportVerdict b =
        NcclTransportVerdict.byGroup(nccl(sim, sim.sources("gpu004"))).values().iterator().next();
    assertEquals("IB", b.net());
    assertEquals(false, b.gdr());
    assertTrue(b.evidence().stream().anyMatch(l -> l.contains("GPU Direct RDMA Disabled for HCA")));
    NcclTransportVerdict c =
        NcclTransportVerdict.byGroup(nccl(sim, sim.sources("gpu005"))).values().iterator().next();
    assertEquals("Socket", c.net());
  }
}
