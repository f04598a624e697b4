package io.fabricpulse.collectors.kmsg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.avro.XidKind;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.collectors.core.SampleContext;
import io.fabricpulse.collectors.testing.Samples;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class KernelLogXidParserTest {
  private static final NodeIdentity NODE = new NodeIdentity("c1", "node4", "boot-7");

  @Test
  void dmesgTWithXid43And31AndContained94() {
    String name = "kmsg/akash-244-dmesg-xid43-31-94-contained.txt";
    SampleContext context = SampleContext.of(NODE, Instant.parse("2024-08-10T00:00:00Z"));
    ParseResult<GpuXid> result =
        new KernelLogXidParser(ZoneOffset.UTC, null).parse(Samples.read(name), context, name);

    assertEquals(List.of(), result.malformed());
    List<GpuXid> xids = result.records();
    assertEquals(List.of(43, 43, 31, 94), xids.stream().map(GpuXid::getXid).toList());

    GpuXid first = xids.get(0);
    assertEquals(XidKind.XID, first.getKind());
    assertEquals("PCI:0000:00:05", first.getPciBusId());
    assertEquals(1045242, first.getPid());
    assertEquals("pt_main_thread", first.getProcessName());
    assertEquals("pid=1045242, name=pt_main_thread, Ch 00000008", first.getMessage());
    assertEquals(Instant.parse("2024-07-31T23:14:18Z"), first.getTime());
    assertEquals(
        "[Wed Jul 31 23:14:18 2024] NVRM: Xid (PCI:0000:00:05): 43, pid=1045242,"
            + " name=pt_main_thread, Ch 00000008",
        first.getRawLine());
    assertEquals(1084984, xids.get(1).getPid());
    assertEquals(Instant.parse("2024-07-31T23:15:26Z"), xids.get(1).getTime());

    GpuXid mmuFault = xids.get(2);
    assertEquals("PCI:0000:00:07", mmuFault.getPciBusId());
    assertEquals(2512125, mmuFault.getPid());
    assertEquals("python3.10", mmuFault.getProcessName());
    assertEquals(Instant.parse("2024-08-05T03:54:13Z"), mmuFault.getTime());

    GpuXid contained = xids.get(3);
    assertEquals("PCI:0000:00:08", contained.getPciBusId());
    assertNull(contained.getPid());
    assertNull(contained.getProcessName());
    assertEquals(
        "pid='<unknown>', name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No",
        contained.getMessage());
    assertEquals(Instant.parse("2024-08-09T13:32:56Z"), contained.getTime());
  }

  @Test
  void xid63RowRemapperLineWithoutPrefix() {
    String name = "nvsmi/mleng-a100-xid63-and-nvidia-smi-q-remap-pending.txt";
    Instant readTime = Instant.parse("2023-06-07T19:32:16Z");
    ParseResult<GpuXid> result =
        new KernelLogXidParser(ZoneOffset.UTC, null)
            .parse(Samples.read(name), SampleContext.of(NODE, readTime), name);

    assertEquals(1, result.records().size());
    GpuXid remap = result.records().get(0);
    assertEquals(63, remap.getXid());
    assertEquals("PCI:0000:10:1c", remap.getPciBusId());
    assertEquals(1896, remap.getPid());
    assertNull(remap.getProcessName());
    assertEquals(
        "pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
        remap.getMessage());
    assertEquals(readTime, remap.getTime());
  }

  @Test
  void kmsgDmesgJournalPrefixesAndFallenOffTheBus() {
    Instant boot = Instant.parse("2024-01-01T12:00:00Z");
    Instant readTime = Instant.parse("2024-01-02T00:00:00Z");
    String name = "kernel-log-prefixes-fallen-off-bus-synthetic.txt";
    ParseResult<GpuXid> result =
        new KernelLogXidParser(ZoneOffset.ofHours(8), boot)
            .parse(Samples.resource("/kmsg/" + name), SampleContext.of(NODE, readTime), name);
    List<GpuXid> records = result.records();

    assertEquals(6, records.size());
    GpuXid kmsg = records.get(0);
    assertEquals(XidKind.XID, kmsg.getKind());
    assertEquals(79, kmsg.getXid());
    assertEquals("PCI:0000:3b:00", kmsg.getPciBusId());
    assertEquals(21503, kmsg.getPid());
    assertEquals("python3", kmsg.getProcessName());
    assertEquals(boot.plusMillis(1_843_308), kmsg.getTime());

    GpuXid threeLines = records.get(1);
    assertEquals(XidKind.FALLEN_OFF_BUS, threeLines.getKind());
    assertNull(threeLines.getXid());
    assertEquals("0000:b3:00.0", threeLines.getPciBusId());
    assertEquals("fallen off the bus and is not responding to commands.", threeLines.getMessage());

    GpuXid oneLine = records.get(2);
    assertEquals(XidKind.FALLEN_OFF_BUS, oneLine.getKind());
    assertEquals("0000:4c:00.0", oneLine.getPciBusId());
    assertEquals(boot.plusSeconds(1900), oneLine.getTime());

    GpuXid journal = records.get(3);
    assertEquals(48, journal.getXid());
    assertEquals("train.py", journal.getProcessName());
    // Jan 02 03:04:05 at UTC+8, read on Jan 2 2024.
    assertEquals(Instant.parse("2024-01-01T19:04:05Z"), journal.getTime());

    GpuXid iso = records.get(4);
    assertEquals(95, iso.getXid());
    assertEquals(Instant.parse("2024-01-01T19:04:06Z"), iso.getTime());

    GpuXid bare = records.get(5);
    assertEquals(119, bare.getXid());
    assertEquals("PCI:0000:b3:00.0", bare.getPciBusId());
    assertEquals("", bare.getMessage());
    assertEquals(readTime, bare.getTime());
  }
}
