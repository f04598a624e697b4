package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesCommandTest {

  /** The shipped rules, from the repository root (found beside the shared samples' parent). */
  private static Path shippedRules() {
    Path dir = Path.of(System.getProperty("user.dir"));
    while (dir != null && !Files.isDirectory(dir.resolve("alert-rules"))) {
      dir = dir.getParent();
    }
    assertTrue(dir != null, "alert-rules/ not found above " + System.getProperty("user.dir"));
    return dir.resolve("alert-rules");
  }

  @Test
  void theShippedRulesAreValid() {
    CliRun run = CliRun.of("rules", "check", shippedRules().toString());
    assertEquals(0, run.exit(), run.stderr());
    assertTrue(run.stdout().contains("pfc-pause-storm"), run.stdout());
    assertTrue(run.stdout().contains("rules valid"), run.stdout());
  }

  @Test
  void aBadRuleNamesFileLineAndKeyAndIsRefused(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve("bad.yaml"),
        String.join(
            "\n",
            "rules:",
            "  - id: storm",
            "    detector: pause_storm",
            "    severity: CRITICAL",
            "    thresholds:",
            "      pause_ratio: 1.5",
            ""));
    CliRun run = CliRun.of("rules", "check", dir.toString());
    assertEquals(1, run.exit());
    assertTrue(
        run.stderr().contains("bad.yaml:6: thresholds.pause_ratio:"), "got: " + run.stderr());
    assertTrue(run.stderr().contains("refused"), run.stderr());
  }

  @Test
  void aMissingDirectoryIsAUsageError(@TempDir Path dir) {
    assertEquals(2, CliRun.of("rules", "check", dir.resolve("nope").toString()).exit());
  }
}
