package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Counter;
import io.fabricpulse.avro.GpuEcc;
import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.NcclLog;
import io.fabricpulse.avro.PfcPauseFrames;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.SmEventKind;
import io.fabricpulse.avro.SmSweep;
import io.fabricpulse.collectors.testing.Samples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fabricpulse parse} on the real captures of collectors/testdata, one test per format. */
class ParseCommandTest {
  @TempDir Path tmp;

  private static String sample(String relative) {
    return Samples.path(relative).toString();
  }

  private static Counter counter(List<Counter> counters, String name) {
    return counters.stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void ncclSlurmv4GivesNcclLogLinesWithVersion2275() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "nccl",
            "--job",
            "4242",
            sample("nccl/slurmv4-sglang-roce-8hca-gdr-2node16gpu-nccl2.27.5.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<NcclLog> logs = run.records(NcclLog.class);
    assertEquals(run.records().size(), logs.size());
    assertFalse(logs.isEmpty());
    Set<String> versions =
        logs.stream()
            .map(NcclLog::getNcclVersion)
            .filter(v -> v != null)
            .collect(Collectors.toSet());
    assertEquals(Set.of("2.27.5"), versions);
    NcclLog first = logs.get(0);
    assertEquals("tpgds-aihub0008", first.getHost());
    assertEquals(207008, first.getPid());
    assertEquals(41, first.getLineNo());
    assertEquals("4242", first.getJob());
    assertEquals(
        "tpgds-aihub0008:207008:207008 [1] NCCL INFO cudaDriverVersion 13010", first.getRawLine());
    // one sequence for the run, in line order
    for (int i = 0; i < logs.size(); i++) {
      assertEquals(i, logs.get(i).getSeq());
    }
  }

  @Test
  void ethtoolEthqGivesPfcPauseFramesWithRxDiscardsPhy() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "ethtool",
            "--netdev",
            "ens1f0",
            "--driver",
            "mlx5_core",
            "--node",
            "gpu017",
            "--cluster",
            "lab",
            "--time",
            "2025-01-02T03:04:05Z",
            sample("ethtool/ethq-mlx5_core-cx4-kernel4.15.txt"));

    assertEquals(0, run.exit(), run.stderr());
    PfcPauseFrames pfc = run.records(PfcPauseFrames.class).get(0);
    assertEquals("ens1f0", pfc.getNetdev());
    assertEquals("mlx5_core", pfc.getDriver());
    assertEquals("gpu017", pfc.getNode());
    assertEquals("lab", pfc.getCluster());
    assertEquals(Instant.parse("2025-01-02T03:04:05Z"), pfc.getTime());
    Counter discards = counter(pfc.getCounters(), "rx_discards_phy");
    assertEquals(0L, discards.getValue());
    assertEquals(64, discards.getWidth());
    assertTrue(run.stderr().contains("1 records, 0 malformed"), run.stderr());
  }

  @Test
  void ethtoolNetdevAndNodeDefaultToTheFileName() throws Exception {
    Path copy = tmp.resolve("ens5f0np0.txt");
    Files.copy(Samples.path("ethtool/byteps-179-mlx5-prio-counters-before-benchmark.txt"), copy);
    Instant mtime = Instant.parse("2024-05-06T07:08:09Z");
    Files.setLastModifiedTime(copy, FileTime.from(mtime));

    CliRun run = CliRun.of("parse", "--format", "ethtool", copy.toString());

    assertEquals(0, run.exit(), run.stderr());
    PfcPauseFrames pfc = run.records(PfcPauseFrames.class).get(0);
    assertEquals("ens5f0np0", pfc.getNetdev());
    assertEquals("ens5f0np0", pfc.getNode());
    assertEquals(mtime, pfc.getTime());
  }

  @Test
  void sminfoGivesTheMasterPoll() {
    CliRun run =
        CliRun.of(
            "parse", "--format", "sminfo", sample("opensm/ibsim-lab-sminfo-master-simulated.txt"));

    assertEquals(0, run.exit(), run.stderr());
    SmSweep poll = run.records(SmSweep.class).get(0);
    assertEquals(SmEventKind.SMINFO_POLL, poll.getEvent());
    assertEquals("0x2c90000000011", poll.getSmGuid());
    assertEquals(1, poll.getSmLid());
    assertEquals(186L, poll.getActivityCount());
    assertEquals("MASTER", poll.getSmState());
  }

  @Test
  void opensmLogYearComesFromTheReferenceTime() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "opensm-log",
            "--time",
            "2025-06-01T00:00:00Z",
            sample("opensm/linux-rdma-opensm-3.3.21-standby-node-log1.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<SmSweep> events = run.records(SmSweep.class);
    assertEquals(354, events.size());
    SmSweep first = events.get(0);
    assertEquals(SmEventKind.STATE_CHANGE, first.getEvent());
    assertEquals("DISCOVERING", first.getSmState());
    assertEquals(Instant.parse("2025-03-10T06:06:02.511Z"), first.getTime());
    assertEquals("STANDBY", events.get(1).getSmState());
    assertEquals("3E03", events.get(3).getErrorCode());
    assertTrue(run.stderr().contains("354 records, 0 malformed"), run.stderr());
  }

  @Test
  void nvidiaSmiCsvWithHeaderCountsTheCaptureHeaderAsMalformedAndExitsZero() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "nvidia-smi-csv",
            sample("nvsmi/nvgpuexp-h100-query-gpu-ecc-csv.txt"));

    assertEquals(ExitCodes.PARTIAL, run.exit(), "the header lines were skipped");
    List<GpuEcc> gpus = run.records(GpuEcc.class);
    assertEquals(2, gpus.size());
    assertEquals("NVIDIA H100 80GB HBM3", gpus.get(0).getName());
    assertEquals("00000000:00:09.0", gpus.get(0).getPciBusId());
    assertEquals(0L, gpus.get(0).getEccUncorrectedVolatile());
    assertTrue(run.stderr().contains("2 records, 6 malformed"), run.stderr());
    assertTrue(run.stderr().contains("nvgpuexp-h100-query-gpu-ecc-csv.txt:9:"), run.stderr());
  }

  @Test
  void nvidiaSmiQGivesEightH100s() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "nvidia-smi-q",
            sample("nvsmi/gpud-nvidia-smi-q-8xh100-535.161.08.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<GpuEcc> gpus = run.records(GpuEcc.class);
    assertEquals(8, gpus.size());
    assertEquals(1, gpus.get(1).getGpu());
    assertEquals("GPU-47daa2ad-a218-6286-252b-af45f0dfaf00", gpus.get(1).getUuid());
    assertEquals("00000000:3B:00.0", gpus.get(1).getPciBusId());
  }

  @Test
  void kmsgDmesgTGivesXidEvents() {
    CliRun run =
        CliRun.of(
            "parse", "--format", "kmsg", sample("kmsg/akash-244-dmesg-xid43-31-94-contained.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<GpuXid> xids = run.records(GpuXid.class);
    assertEquals(List.of(43, 43, 31, 94), xids.stream().map(GpuXid::getXid).toList());
    assertEquals(Instant.parse("2024-07-31T23:14:18Z"), xids.get(0).getTime());
    assertEquals("PCI:0000:00:05", xids.get(0).getPciBusId());
    assertEquals(1045242, xids.get(0).getPid());
    assertEquals("pt_main_thread", xids.get(0).getProcessName());
  }

  @Test
  void perfqueryExtendedGivesTwoSwitchPorts() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "perfquery",
            sample("perfquery/treydock-perfquery-x-edr-switch-2ports.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<PortCounters> ports = run.records(PortCounters.class);
    assertEquals(2, ports.size());
    assertEquals("lid:1719", ports.get(0).getDevice());
    assertEquals(1, ports.get(0).getPort());
    Counter xmitData = counter(ports.get(0).getCounters(), "PortXmitData");
    assertEquals(36298026860928L, xmitData.getValue());
    assertEquals(64, xmitData.getWidth());
  }

  @Test
  void ibqueryerrorsKeepsSaturatedXmitWait() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "ibqueryerrors",
            sample("perfquery/linux-rdma-ibqueryerrors-sx6036-symbolerr-xmitwait-saturated.txt"));

    assertEquals(0, run.exit(), run.stderr());
    List<PortCounters> ports = run.records(PortCounters.class);
    assertEquals(15, ports.size());
    PortCounters saturated = ports.get(2);
    assertEquals("0x2c9030042dff1", saturated.getDevice());
    Counter wait = counter(saturated.getCounters(), "PortXmitWait");
    assertEquals(4294967295L, wait.getValue());
    assertEquals(32, wait.getWidth());
  }

  @Test
  void sysfsRootGivesOnePortCountersPerPort() {
    Path root = Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp);

    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "sysfs",
            "--node",
            "gpu001",
            "--time",
            "2025-01-01T00:00:00Z",
            root.toString());

    assertEquals(0, run.exit(), run.stderr());
    List<PortCounters> ports = run.records(PortCounters.class);
    assertEquals(1, ports.size());
    PortCounters port = ports.get(0);
    assertEquals("mlx5_0", port.getDevice());
    assertEquals(1, port.getPort());
    assertEquals("gpu001", port.getNode());
    assertEquals("ACTIVE", port.getState());
    assertEquals("InfiniBand", port.getLinkLayer());
    assertEquals(2880761508848L, counter(port.getCounters(), "port_xmit_data").getValue());
  }

  @Test
  void stdinIsReadForDash() {
    java.io.InputStream saved = System.in;
    try {
      System.setIn(
          Files.newInputStream(Samples.path("opensm/ibsim-lab-sminfo-master-simulated.txt")));
      CliRun run = CliRun.of("parse", "--format", "sminfo", "--node", "sm01", "-");
      assertEquals(0, run.exit(), run.stderr());
      SmSweep poll = run.records(SmSweep.class).get(0);
      assertEquals("sm01", poll.getNode());
      assertEquals("0x2c90000000011", poll.getSmGuid());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      System.setIn(saved);
    }
  }

  @Test
  void unreadableFileIsAnErrorButOtherFilesStillParse() {
    CliRun run =
        CliRun.of(
            "parse",
            "--format",
            "sminfo",
            tmp.resolve("missing.txt").toString(),
            sample("opensm/ibsim-lab-sminfo-master-simulated.txt"));

    assertEquals(ParseCommand.EXIT_UNREADABLE, run.exit());
    assertTrue(run.stderr().contains("missing.txt: cannot read"), run.stderr());
    assertEquals(1, run.records(SmSweep.class).size());
  }

  @Test
  void unknownFormatAndBadTimeAreUsageErrors() {
    CliRun format = CliRun.of("parse", "--format", "tcpdump", "x");
    assertNotEquals(0, format.exit());
    assertTrue(format.stderr().contains("'tcpdump' is not a format"), format.stderr());
    assertEquals("", format.stdout());

    CliRun time = CliRun.of("parse", "--format", "sminfo", "--time", "yesterday", "x");
    assertNotEquals(0, time.exit());
    assertTrue(time.stderr().contains("--time"), time.stderr());
  }

  @Test
  void sysfsFormatRefusesAFile() {
    CliRun run =
        CliRun.of(
            "parse", "--format", "sysfs", sample("opensm/ibsim-lab-sminfo-master-simulated.txt"));
    assertEquals(ParseCommand.EXIT_UNREADABLE, run.exit());
    assertTrue(run.stderr().contains("not a sysfs root"), run.stderr());
    assertNull(run.records().stream().findAny().orElse(null));
  }

  /**
   * The three log formats skip the lines they do not track, so a capture of another tool used to
   * parse to nothing with exit 0 (issue 14). Now, when not one line has the format's shape, every
   * non-blank line is counted as malformed and the exit code is 2, as for the other formats.
   */
  @Test
  void aLogFormatOnAnotherToolsCaptureParsesNothingAndExitsTwo() throws Exception {
    assertWrongFormat("kmsg", "ethtool/ethq-mlx5_core-cx4-kernel4.15.txt", "not a kernel log line");
    assertWrongFormat(
        "opensm-log", "kmsg/akash-244-dmesg-xid43-31-94-contained.txt", "not an OpenSM log line");
    assertWrongFormat(
        "nccl", "opensm/linux-rdma-opensm-3.3.21-standby-node-log1.txt", "not an NCCL log line");
  }

  private static void assertWrongFormat(String format, String capture, String reason)
      throws Exception {
    String path = sample(capture);
    long nonBlank = Files.readAllLines(Path.of(path)).stream().filter(l -> !l.isBlank()).count();
    CliRun run = CliRun.of("parse", "--format", format, path);
    String err = run.stderr();
    assertEquals(ParseCommand.EXIT_UNREADABLE, run.exit(), format + ": " + err);
    assertTrue(err.contains(": 0 records, " + nonBlank + " malformed"), format + ": " + err);
    assertTrue(err.contains(reason), format + ": " + err);
    assertTrue(err.contains("... and " + (nonBlank - 5) + " more"), format + ": " + err);
    assertTrue(err.contains("is --format " + format + " right?"), format + ": " + err);
    assertEquals("", run.stdout());
  }

  @Test
  void aKernelLogWithoutXidIsReadInFullAndExitsZero() throws Exception {
    // a healthy node's dmesg: nothing to report is not the wrong format (synthetic lines)
    Path file = tmp.resolve("dmesg-healthy-synthetic.txt");
    Files.writeString(
        file,
        "[    0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)\n"
            + "[    2.113208] mlx5_core 0000:17:00.0: firmware version: 28.39.1002\n");
    CliRun run = CliRun.of("parse", "--format", "kmsg", file.toString());
    assertEquals(0, run.exit(), run.stderr());
    assertTrue(run.stderr().contains(": 0 records, 0 malformed"), run.stderr());
  }

  @Test
  void anOpenSmLogWithoutTrackedEventsExitsZero() throws Exception {
    // header lines of messages we do not publish (synthetic, in OpenSM's header layout)
    Path file = tmp.resolve("opensm-quiet-synthetic.log");
    Files.writeString(
        file,
        "Mar 10 06:06:02 454800 [920D9B80] 0x03 -> OpenSM 3.3.21\n"
            + "OpenSM 3.3.21\n"
            + "Mar 10 06:06:03 454853 [920D9B80] 0x80 -> Loading Cached Option:guid = 0x1\n");
    CliRun run = CliRun.of("parse", "--format", "opensm-log", file.toString());
    assertEquals(0, run.exit(), run.stderr());
    assertTrue(run.stderr().contains(": 0 records, 0 malformed"), run.stderr());
  }
}
