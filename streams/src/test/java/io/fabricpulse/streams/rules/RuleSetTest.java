package io.fabricpulse.streams.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Severity;
import io.fabricpulse.streams.testing.RepoPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuleSetTest {

  @TempDir Path dir;

  private static final String STORM_RULE =
      """
      rules:
        - id: storm
          detector: pause_storm
          severity: CRITICAL
          thresholds:
            pause_ratio: %s
          hysteresis: %s
      """;

  private List<String> problems(String... files) throws Exception {
    for (int i = 0; i < files.length; i += 2) {
      Files.writeString(dir.resolve(files[i]), files[i + 1]);
    }
    return assertThrows(RuleValidationException.class, () -> RuleSet.load(dir)).problems();
  }

  private String at(String file, int line) {
    return dir.resolve(file) + ":" + line + ": ";
  }

  @Test
  void theShippedDefaultRulesLoadCleanlyWithDomainNumbers() throws Exception {
    RuleSet rules = RuleSet.load(RepoPaths.alertRules());
    Rule storm = rules.byId("pfc-pause-storm").orElseThrow();
    assertEquals(Detector.PAUSE_STORM, storm.detector());
    assertEquals(Severity.CRITICAL, storm.severity());
    assertEquals(0.8, storm.thresholds().number("pause_ratio"));
    assertEquals(2, storm.thresholds().integer("consecutive_samples"));
    assertEquals(1, storm.thresholds().integer("storm_events"));
    assertEquals(3, storm.thresholds().integer("lossless_priority"));
    assertEquals(Duration.ofSeconds(60), storm.hysteresis());
    assertEquals("[SONIC-pfcwd][SONIC-lua][K-pfcstall][K-ethdoc]", storm.source());
    assertEquals("fabric", storm.labels().get("team"));
    Rule propagation = rules.byId("pfc-pause-propagation").orElseThrow();
    assertEquals(3, propagation.thresholds().integer("min_nodes"));
    assertEquals(Duration.ofSeconds(30), propagation.thresholds().duration("window"));
    Rule misconfig = rules.byId("pfc-misconfig").orElseThrow();
    assertEquals(List.of(3), misconfig.thresholds().priorities("lossless_priorities"));
    assertEquals(Severity.WARNING, misconfig.severity());
    assertTrue(misconfig.origin().endsWith("pfc.yaml:49"), misconfig.origin());
  }

  @Test
  void omittedThresholdsTakeTheDetectorDefaults() throws Exception {
    Files.writeString(
        dir.resolve("a.yaml"),
        "rules:\n  - id: s\n    detector: pause_storm\n    severity: WARNING\n"
            + "    selectors:\n      node: gpu0*\n      priority: 3\n");
    Rule rule = RuleSet.load(dir).all().get(0);
    assertEquals(Thresholds.defaultsOf(Detector.PAUSE_STORM), rule.thresholds());
    assertEquals(Rule.DEFAULT_HYSTERESIS, rule.hysteresis());
    assertTrue(rule.selectors().matches("c1", "gpu017", "mlx5_0", "ens1", 3));
    assertFalse(rule.selectors().matches("c1", "gpu117", "mlx5_0", "ens1", 3));
    assertFalse(rule.selectors().matches("c1", "gpu017", "mlx5_0", "ens1", 0));
  }

  @Test
  void aValueOutOfRangeNamesFileLineAndKey() throws Exception {
    assertEquals(
        List.of(at("pfc.yaml", 6) + "thresholds.pause_ratio: must be between 0 and 1, got 1.5"),
        problems("pfc.yaml", STORM_RULE.formatted("1.5", "60s")));
  }

  @Test
  void aWrongTypeIsReported() throws Exception {
    assertEquals(
        List.of(at("pfc.yaml", 6) + "thresholds.pause_ratio: must be a number, got \"high\""),
        problems("pfc.yaml", STORM_RULE.formatted("high", "60s")));
  }

  @Test
  void badDurationsAreReported() throws Exception {
    assertEquals(
        List.of(
            at("pfc.yaml", 7)
                + "hysteresis: must be a duration with a unit (ms, s, m, h, d), got 60"),
        problems("pfc.yaml", STORM_RULE.formatted("0.8", "60")));
  }

  @Test
  void aDurationWithAnUnknownUnitIsReported() throws Exception {
    assertEquals(
        List.of(
            at("prop.yaml", 6)
                + "thresholds.window: must be a duration like 200ms, 30s, 10m,"
                + " got \"30 seconds\""),
        problems(
            "prop.yaml",
            "rules:\n  - id: p\n    detector: pause_propagation\n    severity: CRITICAL\n"
                + "    thresholds:\n      window: 30 seconds\n"));
  }

  @Test
  void unknownKeysThresholdsAndDetectorsAreAllReportedAtOnce() throws Exception {
    List<String> problems =
        problems(
            "pfc.yaml",
            """
            rules:
              - id: storm
                detector: pause_storm
                severity: CRITICAL
                threshold: 3
                thresholds:
                  pause_ratoi: 0.9
              - id: flap
                detector: link_flapping
                severity: LOUD
            """);
    assertEquals(
        List.of(
            at("pfc.yaml", 5)
                + "threshold: unknown key (expected one of description, detector, enabled,"
                + " hysteresis, id, labels, selectors, severity, source, thresholds)",
            at("pfc.yaml", 7)
                + "thresholds.pause_ratoi: unknown threshold (expected one of pause_ratio,"
                + " consecutive_samples, storm_events, origin_factor,"
                + " lossless_priority)",
            at("pfc.yaml", 9)
                + "detector: unknown detector \"link_flapping\" (expected one of "
                + Detector.allIds()
                + ")",
            at("pfc.yaml", 10) + "severity: must be one of INFO, WARNING, CRITICAL, got \"LOUD\""),
        problems);
  }

  @Test
  void aDuplicateIdAcrossFilesIsReportedWithTheFirstDefinition() throws Exception {
    String rule = "rules:\n  - id: storm\n    detector: pause_storm\n    severity: INFO\n";
    assertEquals(
        List.of(
            at("b.yaml", 3)
                + "id: duplicate rule id \"storm\", first defined at "
                + dir.resolve("a.yaml")
                + ":2"),
        problems("a.yaml", rule, "b.yaml", "\n" + rule));
  }

  @Test
  void malformedYamlAndMissingKeysAreReported() throws Exception {
    List<String> problems =
        problems(
            "a.yaml",
            "rules:\n  - id: x\n    detector: [pause_storm\n",
            "b.yaml",
            "rules:\n  - id: y\n    detector: pfc_misconfig\n"
                + "    thresholds:\n      lossless_priorities: [3, 9]\n    source: SONiC\n");
    assertEquals(4, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith(at("a.yaml", 4) + "not valid YAML: "), problems.get(0));
    assertEquals(at("b.yaml", 2) + "severity: missing", problems.get(1));
    assertEquals(
        at("b.yaml", 5) + "thresholds.lossless_priorities: PFC priorities are 0 to 7, got 9",
        problems.get(2));
    assertEquals(
        at("b.yaml", 6)
            + "source: must be source keys of docs/thresholds.md like \"[SONIC-pfcwd][K-pfcstall]\", got"
            + " \"SONiC\"",
        problems.get(3));
  }

  @Test
  void durationsParseAndFormat() {
    assertEquals(Duration.ofMillis(200), Durations.parse("200ms").orElseThrow());
    assertEquals(Duration.ofMinutes(10), Durations.parse("10m").orElseThrow());
    assertEquals(Duration.ofMinutes(4), Durations.parse("4m").orElseThrow());
    assertTrue(Durations.parse("2 s").isEmpty());
    assertTrue(Durations.parse("-2s").isEmpty());
    assertEquals("30s", Durations.format(Duration.ofSeconds(30)));
    assertEquals("10m", Durations.format(Duration.ofMinutes(10)));
  }
}
