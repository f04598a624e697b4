package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.Alert;
import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.AlertState;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.schemas.json.JsonRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bridge wecom|dingtalk}: dry runs of the sample bridge.yaml, and bad configurations. */
class BridgeCommandTest {
  @TempDir Path dir;

  private static final Path SAMPLE =
      Path.of(System.getProperty("user.dir")).resolveSibling("bridges").resolve("bridge.yaml");

  private static Alert storm(int i) {
    return Alert.newBuilder()
        .setAlertId("storm-" + i)
        .setRule("pfc-pause-storm")
        .setKind(AlertKind.PAUSE_STORM)
        .setSeverity(Severity.CRITICAL)
        .setState(AlertState.FIRING)
        .setCluster("demo")
        .setNode(String.format("gpu%03d", i))
        .setNetdev("ens9f0np0")
        .setPriority(3)
        .setStartedAt(Instant.parse("2026-12-01T06:00:00Z"))
        .setValue(0.42)
        .setThreshold(0.1)
        .setUnit("ratio")
        .setSummary(String.format("gpu%03d ens9f0np0 prio 3: rx pause ratio 0.42 above 0.1", i))
        .setEvidence(Map.of())
        .setLabels(Map.of("team", "fabric"))
        .build();
  }

  private Path alerts(int n) throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      lines.add(JsonRecords.toJson(storm(i)));
    }
    Path file = dir.resolve("alerts.jsonl");
    Files.write(file, lines, StandardCharsets.UTF_8);
    return file;
  }

  @Test
  void dryRunPrintsTheRequestsWithTheSecretsMasked() throws Exception {
    CliRun run =
        CliRun.of(
            "bridge",
            "dingtalk",
            "--config",
            SAMPLE.toString(),
            "--dry-run",
            "--alerts",
            alerts(1).toString(),
            "--now",
            "2026-12-01T06:00:10Z");
    assertEquals(0, run.exit(), run.stderr());
    assertTrue(
        run.stdout()
            .startsWith(
                "+0s fabric-ops POST https://oapi.dingtalk.com/robot/send?access_token=***&timestamp=<ms>&sign=*** (1 alert)\n"),
        run.stdout());
    assertTrue(run.stdout().contains("\"title\":\"fabricpulse 【严重】PAUSE_STORM 告警\""), run.stdout());
    assertTrue(
        run.stdout().contains("\"atMobiles\":[\"13800001111\",\"13900002222\"]"), run.stdout());
    assertTrue(run.stdout().contains("@13800001111 @13900002222 @0123456789"), run.stdout());
    assertTrue(run.stderr().contains("1 alert(s) read, 1 message(s) would be sent"), run.stderr());
  }

  @Test
  void aBurstIsDigestedWithinTheBudgetInTheDryRun() throws Exception {
    // 06:00Z is 14:00 in Shanghai: outside the sample's quiet hours
    CliRun run =
        CliRun.of(
            "bridge",
            "wecom",
            "--config",
            SAMPLE.toString(),
            "--dry-run",
            "--alerts",
            alerts(120).toString(),
            "--now",
            "2026-12-01T06:00:10Z");
    assertEquals(0, run.exit(), run.stderr());
    long requests = run.stdout().lines().filter(l -> l.startsWith("+")).count();
    assertTrue(requests < 20, requests + " requests");
    assertTrue(
        run.stdout().contains("robot fabric-oncall: " + requests + " messages, 120 alert changes"),
        run.stdout());
    // each digest says what it holds: 120 one-line alerts need several 4096-byte messages
    assertTrue(
        java.util.regex.Pattern.compile(
                "\"content\":\"### (\\d+) 条告警\\\\n\\1 PAUSE_STORM，节点 gpu001-gpu0\\d\\d\\\\n")
            .matcher(run.stdout())
            .find(),
        run.stdout());
    assertFalse(run.stdout().contains("key=" + "dry-run"), "the placeholder key must not show");
  }

  @Test
  void aBadConfigNamesFileLineAndKey() throws Exception {
    Path bad = dir.resolve("bridge.yaml");
    Files.writeString(
        bad,
        String.join(
            "\n",
            "language: fr",
            "robots:",
            "  - name: a",
            "    type: wecom",
            "    key_env: K",
            "    messages_per_minute: 40",
            "    routes:",
            "      - severity: [LOUD]",
            "        mention: [nobody]",
            ""));
    CliRun run =
        CliRun.of(
            "bridge",
            "wecom",
            "--config",
            bad.toString(),
            "--dry-run",
            "--alerts",
            alerts(1).toString());
    assertEquals(2, run.exit());
    assertEquals(
        List.of(
            bad + ":1: language: 'fr' is not zh or en",
            bad
                + ":6: robots[0].messages_per_minute: 40 is outside 1..20 (the robots lock out above 20 a minute)",
            bad + ":8: robots[0].routes[0].severity: 'LOUD' is not INFO, WARNING or CRITICAL",
            bad + ":9: robots[0].routes[0].mention: 'nobody' is not one of people"),
        run.stderr().lines().toList());
  }

  @Test
  void aMissingSecretIsAUsageErrorThatNamesTheVariableNotAValue() throws Exception {
    Path cfg = dir.resolve("bridge.yaml");
    Files.writeString(
        cfg,
        "robots:\n  - name: a\n    type: wecom\n    key_env: FABRICPULSE_TEST_UNSET_KEY\n    routes: [{}]\n");
    CliRun run =
        CliRun.of(
            "bridge",
            "wecom",
            "--config",
            cfg.toString(),
            "--bootstrap-servers",
            "127.0.0.1:1",
            "--schema-registry-url",
            "mock://x");
    assertEquals(2, run.exit());
    assertEquals(
        cfg + ":4: robots[0].key_env: environment variable FABRICPULSE_TEST_UNSET_KEY is not set\n",
        run.stderr());
  }

  @Test
  void aConfigWithoutRobotsOfTheTypeIsRefused() throws Exception {
    Path cfg = dir.resolve("bridge.yaml");
    Files.writeString(
        cfg, "robots:\n  - name: a\n    type: wecom\n    key_env: K\n    routes: [{}]\n");
    CliRun run = CliRun.of("bridge", "dingtalk", "--config", cfg.toString(), "--dry-run");
    assertEquals(2, run.exit());
    assertEquals(cfg + ": robots: no robot of type dingtalk\n", run.stderr());
  }

  @Test
  void theDemoRefusesAWebhookWithoutItsSecretOrWithTheSecretInTheUrl() {
    CliRun noKey =
        CliRun.of("demo", "--wecom-webhook", "https://qyapi.weixin.qq.com/cgi-bin/webhook/send");
    assertEquals(2, noKey.exit());
    assertTrue(
        noKey
            .stderr()
            .startsWith("--wecom-webhook: needs the environment variable FABRICPULSE_WECOM_KEY"),
        noKey.stderr());
    CliRun inUrl =
        CliRun.of(
            "demo", "--dingtalk-webhook", "https://oapi.dingtalk.com/robot/send?access_token=abc");
    assertEquals(2, inUrl.exit());
    assertTrue(
        inUrl
            .stderr()
            .startsWith(
                "--dingtalk-webhook: give the URL without its secret; the secret comes from FABRICPULSE_DINGTALK_TOKEN"),
        inUrl.stderr());
    assertFalse(inUrl.stderr().contains("abc"), "the secret is not echoed");
  }
}
