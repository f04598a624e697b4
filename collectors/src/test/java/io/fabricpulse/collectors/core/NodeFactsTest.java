package io.fabricpulse.collectors.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeFactsTest {
  @TempDir Path proc;

  @Test
  void readsBootIdHostnameAndBootTime() throws IOException {
    Files.createDirectories(proc.resolve("sys/kernel/random"));
    Files.writeString(
        proc.resolve("sys/kernel/random/boot_id"), "4f1c0e2a-9d1b-4c55-8d7e-0a1b2c3d4e5f\n");
    Files.writeString(proc.resolve("sys/kernel/hostname"), "gpu017\n");
    Files.writeString(proc.resolve("uptime"), "350735.47 234388.90\n");
    NodeFacts facts = new NodeFacts(proc);

    assertEquals("4f1c0e2a-9d1b-4c55-8d7e-0a1b2c3d4e5f", facts.bootId());
    assertEquals("gpu017", facts.hostname());
    Instant now = Instant.parse("2025-01-05T00:00:00Z");
    assertEquals(now.minusMillis(350_735_470), facts.bootTime(now));
  }

  @Test
  void missingFilesAreErrorsOrUnknown() {
    NodeFacts facts = new NodeFacts(proc);
    assertThrows(IOException.class, facts::bootId);
    assertNull(facts.bootTime(Instant.EPOCH));
  }
}
