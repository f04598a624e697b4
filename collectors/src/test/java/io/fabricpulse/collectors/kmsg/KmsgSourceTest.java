package io.fabricpulse.collectors.kmsg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.GpuXid;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.SampleContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KmsgSourceTest {
  @TempDir Path dir;

  /** /dev/kmsg records (synthetic, in the device's format) with a dictionary line. */
  private static final String RECORDS =
      String.join(
          "\n",
          "6,1001,5000000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.08",
          "4,1002,9000000,-;NVRM: Xid (PCI:0000:b3:00): 79, pid=1234, GPU has fallen off the bus.",
          " SUBSYSTEM=pci",
          " DEVICE=+pci:0000:b3:00.0",
          "4,1003,12500000,-;NVRM: Xid (PCI:0000:b3:00): 48, pid=1234, An uncorrectable double bit error",
          "");

  /** A deadline for the reader threads, never reached when the code works. */
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  /** Everything the source's reader thread reads from the file, once it reached the file's end. */
  private static List<String> readAll(KmsgSource source) throws Exception {
    assertTrue(source.awaitEndOfInput(DEADLINE), "reader did not reach the end of the file");
    List<String> lines = source.poll();
    assertEquals(List.of(), source.poll());
    return lines;
  }

  @Test
  void recordsSinceStartAreReadWithoutTheirDictionaryLines() throws Exception {
    Path device = dir.resolve("kmsg-synthetic");
    Files.writeString(device, RECORDS);
    // the collector started 8 s after boot: the 5 s record is history
    try (KmsgSource source = new KmsgSource(device, 8_000_000)) {
      List<String> lines = readAll(source);

      assertEquals(2, lines.size(), lines.toString());
      assertTrue(lines.get(0).startsWith("4,1002,9000000,-;NVRM: Xid"));
      Instant boot = Instant.parse("2025-03-01T00:00:00Z");
      List<GpuXid> xids =
          new KernelLogXidParser(ZoneOffset.UTC, boot)
              .parseLines(
                  lines,
                  1,
                  SampleContext.of(new NodeIdentity("c", "n", "b"), boot.plusSeconds(60)),
                  "kmsg")
              .records();
      assertEquals(List.of(79, 48), xids.stream().map(GpuXid::getXid).toList());
      assertEquals(boot.plusSeconds(9), xids.get(0).getTime());
      assertEquals(boot.plusMillis(12_500), xids.get(1).getTime());
    }
  }

  @Test
  void zeroSkipReadsTheWholeRingBuffer() throws Exception {
    Path device = dir.resolve("kmsg-synthetic");
    Files.writeString(device, RECORDS);
    try (KmsgSource source = new KmsgSource(device, 0)) {
      assertEquals(3, readAll(source).size());
    }
  }

  @Test
  void journalctlFallbackFollowsTheProcessOutput() throws Exception {
    Path fake = dir.resolve("fake-journalctl");
    Files.writeString(
        fake,
        "#!/bin/sh\n"
            + "echo \"$@\" > '"
            + dir.resolve("args")
            + "'\n"
            + "echo '-- No entries --'\n"
            + "echo '2024-08-05T03:54:13+0000 gpu017 kernel: NVRM: Xid (PCI:0000:00:07): 31, pid=2512125, name=python3.10'\n"
            + "exec sleep 30\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
    JournalctlKernelLogSource source = new JournalctlKernelLogSource(fake.toString());
    try {
      assertEquals(List.of(), source.poll()); // the first poll starts journalctl
      assertTrue(source.awaitBuffered(1, DEADLINE), "journalctl printed nothing");
      List<String> lines = source.poll();

      assertEquals(1, lines.size(), lines.toString());
      GpuXid xid =
          new KernelLogXidParser(ZoneOffset.UTC, null)
              .parseLines(
                  lines,
                  1,
                  SampleContext.of(
                      new NodeIdentity("c", "n", "b"), Instant.parse("2024-08-05T04:00:00Z")),
                  "journal")
              .records()
              .get(0);
      assertEquals(31, xid.getXid());
      assertEquals(Instant.parse("2024-08-05T03:54:13Z"), xid.getTime());
      assertEquals(
          "-k -f -o short-iso -n 0 --no-pager", Files.readString(dir.resolve("args")).strip());
      assertEquals(1, source.starts());
    } finally {
      source.close();
    }
  }
}
