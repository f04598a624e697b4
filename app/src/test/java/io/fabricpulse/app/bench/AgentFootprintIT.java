package io.fabricpulse.app.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.testing.FaultScenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short {@code fabricpulse bench agent}: a real {@code collect} child on a real broker publishes
 * one 8-HCA cycle a second and the parent reads its CPU and memory. Figures are not asserted (they
 * are measured, BENCHMARKS.md); that they are the agent's is: cycles reached the broker at about
 * the sampling interval, and the child ran with the systemd unit's JVM options.
 */
class AgentFootprintIT {

  @Test
  void measuresARealAgentThatPublishesOneCycleASecond(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    AgentFootprint.Result result =
        new AgentFootprint(
                new AgentFootprint.Settings(
                    Duration.ofSeconds(8),
                    Duration.ofSeconds(10),
                    AgentFootprint.UNIT_JAVA_OPTIONS),
                out)
            .run(dir);

    String output = bytes.toString(StandardCharsets.UTF_8);
    // 1 s interval over a 10 s window: a loaded machine may delay a cycle, never skip most of them
    assertTrue(result.cycles() >= 5 && result.cycles() <= 12, result + "\n" + output);
    assertTrue(result.cpuMs() > 0, result.toString());
    assertTrue(result.rssKb() > 0 && result.peakRssKb() >= result.rssKb(), result.toString());
    assertTrue(
        result
            .summaryLine()
            .matches(
                "bench agent: cpu_per_cycle=[0-9.]+ms rss=[0-9.]+MB rss_peak=[0-9.]+MB cycles=\\d+"
                    + " threads=\\d+"),
        result.summaryLine());
    String log = Files.readString(dir.resolve("collect.log"));
    assertTrue(!log.contains("Exception"), log);
  }

  @Test
  void theDefaultJvmOptionsAreTheSystemdUnits() throws Exception {
    Path unit =
        FaultScenario.repoRoot().resolve("collectors").resolve("fabricpulse-collect.service");
    String exec =
        Files.readString(unit)
            .replace("\\\n", " ")
            .lines()
            .filter(l -> l.startsWith("ExecStart="))
            .findFirst()
            .orElseThrow();
    List<String> options =
        Arrays.stream(exec.split("\\s+")).filter(w -> w.startsWith("-X")).toList();
    assertEquals(options, AgentFootprint.UNIT_JAVA_OPTIONS, exec);
  }
}
