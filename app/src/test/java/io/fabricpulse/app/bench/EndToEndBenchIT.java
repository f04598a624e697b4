package io.fabricpulse.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small {@code fabricpulse bench} (two nodes, 20 simulated seconds) on the real broker: every
 * phase runs to the end and the last line carries a figure for each. Speeds are not asserted (they
 * are measured, BENCHMARKS.md); that each phase carried all of its input is: streams and the sink
 * wait for every record, and alerts were timed from their raw samples.
 */
class EndToEndBenchIT {

  private static final Pattern SUMMARY =
      Pattern.compile(
          "bench: streams=(\\d+)/s baseline=(\\d+)/s ratio=([0-9.]+) alert_p99=(\\d+)ms"
              + " sink=(\\d+)/s detect=(\\d+)/s");

  @Test
  void everyPhaseRunsAndTheLastLineSumsThemUp(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    int exit =
        new EndToEndBench(
                new EndToEndBench.Settings(
                    2, Duration.ofSeconds(20), Duration.ofSeconds(70), 42, dir),
                out)
            .run();

    String output = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, output);
    List<String> lines = output.lines().toList();
    Matcher summary = SUMMARY.matcher(lines.get(lines.size() - 1));
    assertTrue(summary.matches(), output);
    for (int group = 1; group <= 6; group++) {
      if (group != 3 && group != 4) {
        assertTrue(Long.parseLong(summary.group(group)) > 0, summary.group(0));
      }
    }
    assertTrue(output.contains("alerts timed (0 without their raw sample)"), output);
  }

  @Test
  void percentilesAreNearestRank() {
    List<Double> values = List.of(5.0, 1.0, 4.0, 2.0, 3.0);
    assertEquals(3.0, EndToEndBench.percentile(values, 0.50));
    assertEquals(5.0, EndToEndBench.percentile(values, 0.99));
    assertEquals(null, EndToEndBench.percentile(List.of(), 0.99));
  }
}
