package io.fabricpulse.schemas.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OutageLogTest {
  private static final long S = 1_000_000_000L;

  @Test
  void anOutageWarnsAfterTheGraceThenAtTheRepeatRateAndOnceWhenItEnds() {
    OutageLog log = new OutageLog("Kafka at k:9092", Duration.ofSeconds(5), Duration.ofSeconds(30));
    List<String> lines = new ArrayList<>();
    // a failed check every second for two minutes
    for (long t = 0; t <= 120; t++) {
      long second = t;
      log.failed(t * S, "timed out").ifPresent(line -> lines.add(second + " " + line.text()));
    }
    assertEquals(
        List.of(
            "5 Kafka at k:9092 unreachable for 5 s: timed out",
            "35 Kafka at k:9092 unreachable for 35 s: timed out",
            "65 Kafka at k:9092 unreachable for 65 s: timed out",
            "95 Kafka at k:9092 unreachable for 95 s: timed out"),
        lines);
    assertTrue(log.down());

    Optional<OutageLog.Line> back = log.answered(121 * S);
    assertEquals("Kafka at k:9092 answers again after 121 s", back.orElseThrow().text());
    assertFalse(back.orElseThrow().warning());
    assertFalse(log.down());
    assertTrue(log.answered(122 * S).isEmpty(), "one line per outage, not per answer");
  }

  @Test
  void aBlipShorterThanTheGraceSaysNothing() {
    OutageLog log = new OutageLog("store", Duration.ofSeconds(5), Duration.ofSeconds(30));
    assertTrue(log.failed(0, "refused").isEmpty());
    assertTrue(log.failed(4 * S, "refused").isEmpty());
    assertFalse(log.down());
    assertTrue(log.answered(4 * S + 1).isEmpty());
    // the next outage counts its own time from its own first failure
    assertTrue(log.failed(10 * S, "refused").isEmpty());
    assertTrue(log.failed(15 * S, "refused").orElseThrow().warning());
  }
}
