package io.fabricpulse.collectors.opensm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenSmLogTailerTest {
  @TempDir Path dir;

  @Test
  void returnsOnlyCompleteNewLines() throws IOException {
    Path log = dir.resolve("opensm.log");
    append(log, "line 1\nline 2\npart");
    try (OpenSmLogTailer tailer = OpenSmLogTailer.fromStart(log)) {
      assertEquals(List.of("line 1", "line 2"), tailer.poll());
      assertEquals(List.of(), tailer.poll());
      append(log, "ial 3\nline 4\n");
      assertEquals(List.of("partial 3", "line 4"), tailer.poll());
    }
  }

  @Test
  void fromEndSkipsWhatWasThereAtStart() throws IOException {
    Path log = dir.resolve("opensm.log");
    append(log, "old 1\nold 2\n");
    try (OpenSmLogTailer tailer = OpenSmLogTailer.fromEnd(log)) {
      assertEquals(List.of(), tailer.poll());
      append(log, "new 1\n");
      assertEquals(List.of("new 1"), tailer.poll());
    }
  }

  @Test
  void followsRotationByRenameWithoutLosingTheOldTail() throws IOException {
    Path log = dir.resolve("opensm.log");
    append(log, "a1\n");
    try (OpenSmLogTailer tailer = OpenSmLogTailer.fromStart(log)) {
      assertEquals(List.of("a1"), tailer.poll());
      append(log, "a2\n");
      Files.move(log, dir.resolve("opensm.log.1"));
      append(log, "b1\nb2\n");
      assertEquals(List.of("a2", "b1", "b2"), tailer.poll());
      assertEquals(1, tailer.rotations());
      append(log, "b3\n");
      assertEquals(List.of("b3"), tailer.poll());
    }
  }

  @Test
  void restartsAfterTruncation() throws IOException {
    Path log = dir.resolve("opensm.log");
    append(log, "first line that is long\nsecond line that is long\n");
    try (OpenSmLogTailer tailer = OpenSmLogTailer.fromStart(log)) {
      assertEquals(2, tailer.poll().size());
      // What OpenSM does past log_max_size [OSM-log], and logrotate copytruncate.
      Files.write(log, new byte[0], StandardOpenOption.TRUNCATE_EXISTING);
      append(log, "after\n");
      assertEquals(List.of("after"), tailer.poll());
      assertEquals(1, tailer.truncations());
    }
  }

  @Test
  void waitsForAMissingFileAndReadsItFromItsStart() throws IOException {
    Path log = dir.resolve("later.log");
    try (OpenSmLogTailer tailer = OpenSmLogTailer.fromEnd(log)) {
      assertEquals(List.of(), tailer.poll());
      append(log, "x1\n");
      assertEquals(List.of("x1"), tailer.poll());
    }
  }

  @Test
  void boundsTheBytesReadPerPoll() throws IOException {
    Path log = dir.resolve("opensm.log");
    append(log, "0123456789\nabcdefghij\n");
    try (OpenSmLogTailer tailer = OpenSmLogTailer.fromStart(log, 12, 1024)) {
      assertEquals(List.of("0123456789"), tailer.poll());
      assertEquals(List.of("abcdefghij"), tailer.poll());
    }
  }

  private static void append(Path file, String text) throws IOException {
    Files.writeString(
        file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }
}
