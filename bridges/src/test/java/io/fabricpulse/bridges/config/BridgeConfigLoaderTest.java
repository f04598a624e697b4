package io.fabricpulse.bridges.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.bridges.testing.TestAlerts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BridgeConfigLoaderTest {
  @TempDir Path dir;

  private List<String> problems(String yaml) throws Exception {
    Path file = dir.resolve("bridge.yaml");
    Files.writeString(file, yaml);
    BridgeConfigException e =
        assertThrows(BridgeConfigException.class, () -> BridgeConfigLoader.load(file));
    return e.problems().stream().map(p -> p.replace(file.toString(), "bridge.yaml")).toList();
  }

  @Test
  void theSampleLoadsAndRoutes() throws Exception {
    BridgeConfig c = BridgeConfigLoader.load(Path.of("bridge.yaml"));
    assertEquals(BridgeConfig.DEFAULT_ZONE, c.zone());
    RobotConfig wecom = c.robotsOf(RobotType.WECOM).get(0);
    assertEquals("fabric-oncall", wecom.name());
    assertEquals("WECOM_FABRIC_KEY", wecom.key().env());
    var storm = TestAlerts.storm("s", "gpu007");
    assertEquals(1, wecom.matching(storm).size());
    assertEquals(List.of("alice"), wecom.mentionsFor(storm).stream().map(Person::name).toList());
    var resolved = TestAlerts.resolved(storm, storm.getStartedAt().plusSeconds(600));
    assertEquals(Set.of(), wecom.mentionsFor(resolved), "a resolved notice mentions nobody");
    var onStorage = TestAlerts.storm("s", "stor01");
    assertTrue(wecom.matching(onStorage).isEmpty(), "node glob gpu*");
    var info = TestAlerts.firing("i", AlertKind.LINK_FLAP, Severity.INFO, "gpu001").build();
    assertTrue(wecom.matching(info).isEmpty(), "severity");
    assertTrue(
        wecom.quiet().orElseThrow().isQuiet(ZonedDateTime.parse("2026-12-01T23:30:00+08:00")));
    assertFalse(
        wecom.quiet().orElseThrow().isQuiet(ZonedDateTime.parse("2026-12-01T08:00:00+08:00")));
    RobotConfig ding = c.robotsOf(RobotType.DINGTALK).get(0);
    assertEquals("fabricpulse", ding.keyword());
    assertEquals("DINGTALK_OPS_SECRET", ding.signSecret().env());
    var labelled =
        io.fabricpulse.avro.Alert.newBuilder(storm).setLabels(Map.of("team", "fabric")).build();
    assertEquals(
        List.of("alice", "bob"), ding.mentionsFor(labelled).stream().map(Person::name).toList());
    assertEquals(List.of(), ding.mentionsFor(storm).stream().map(Person::name).toList());
    assertEquals(1, ding.matching(storm).size(), "the catch-all route");
  }

  @Test
  void theSampleTemplatesLoadAndRender() throws Exception {
    Path bridge = dir.resolve("bridge.yaml");
    Files.copy(Path.of("bridge-templates.yaml"), dir.resolve("my-templates.yaml"));
    Files.writeString(
        bridge,
        "language: en\ntemplates: my-templates.yaml\nrobots:\n"
            + "  - {name: a, type: wecom, key_env: K, routes: [{}]}\n");
    BridgeConfig c = BridgeConfigLoader.load(bridge);
    var renderer =
        new io.fabricpulse.bridges.render.MessageRenderer(
            c.language(), c.zone(), null, c.templates());
    var storm =
        io.fabricpulse.avro.Alert.newBuilder(TestAlerts.storm("s", "gpu007"))
            .setLabels(Map.of("team", "fabric"))
            .build();
    // no peer label: the switch port line is left out; no links: that line too
    assertEquals(
        List.of(
            "### [CRITICAL] PAUSE_STORM firing",
            "**Where**: gpu007 ens9f0np0 prio 3, cluster demo",
            "**What**: gpu007 ens9f0np0 prio 3: rx pause ratio 0.42 above 0.1 for 30s",
            "**Measured**: 0.42 ratio (threshold 0.1 ratio)",
            "**Since**: 2026-12-01 19:30:00 (Asia/Shanghai)",
            "**Owner**: fabric"),
        renderer.single(storm, Set.of()).lines());
    assertEquals(
        "- [CRITICAL] PAUSE_STORM **gpu007 ens9f0np0 prio 3** 0.42 ratio (threshold 0.1 ratio),"
            + " since 19:30:00",
        renderer.digestLine(storm));
    var resolved = TestAlerts.resolved(storm, storm.getStartedAt().plusSeconds(750));
    assertEquals(
        "**Lasted**: 12m30s (2026-12-01 19:30:00 to 2026-12-01 19:42:30)",
        renderer.single(resolved, Set.of()).lines().get(3));
  }

  @Test
  void badTemplatesNameFileLineAndKey() throws Exception {
    Path templates = dir.resolve("t.yaml");
    Files.writeString(
        templates,
        "firing:\n  - \"### {title}\"\n  - \"**Node**: {nodes}\"\n"
            + "digest_firing: \"- {kind} {subject\"\nresolve: []\n");
    assertEquals(
        List.of(
            "t.yaml:5: resolve: unknown key (known: digest_firing, digest_resolved, firing, resolved)",
            "t.yaml:3: firing[1]: unknown placeholder {nodes} (known: cluster, kind, lasted, links,"
                + " node, peer, resolved, severity, since, started, state, subject, summary, title,"
                + " value, zone, label.NAME)",
            "t.yaml:4: digest_firing: a '{' or '}' that is not part of a {placeholder}"),
        problems(
                "templates: t.yaml\nrobots:\n  - {name: a, type: wecom, key_env: K, routes: [{}]}\n")
            .stream()
            .map(p -> p.replace(templates.toString(), "t.yaml"))
            .toList());
    assertEquals(
        List.of("bridge.yaml:1: templates: " + dir.resolve("none.yaml") + ": No such file"),
        problems(
            "templates: none.yaml\nrobots:\n  - {name: a, type: wecom, key_env: K, routes: [{}]}\n"));
  }

  @Test
  void yamlSyntaxErrorsNameTheLine() throws Exception {
    assertEquals(
        List.of("bridge.yaml:3: not valid YAML: mapping values are not allowed here"),
        problems("robots:\n  - name: a\n    type: wecom: x\n"));
  }

  @Test
  void everyProblemNamesLineAndKey() throws Exception {
    assertEquals(
        List.of(
            "bridge.yaml:1: zone: 'Mars/Olympus' is not a time zone",
            "bridge.yaml:2: give_up_after: 'soon' is not a duration (90s, 30m, 2h)",
            "bridge.yaml:6: robots[0].url: must not carry the secret; put it in the environment (key_env, token_env)",
            "bridge.yaml:7: robots[0].keyword: not a setting of a wecom robot",
            "bridge.yaml:4: robots[0]: needs key_env or key_file (the webhook key is never written in bridge.yaml)",
            "bridge.yaml:10: robots[0].routes[0].nodes: unknown key (known: cluster, kind, labels, mention, node, severity)",
            "bridge.yaml:9: robots[0].routes[0].kind: 'PAUSE' is not an alert kind",
            "bridge.yaml:12: robots[1].type: 'slack' is not wecom or dingtalk"),
        problems(
            String.join(
                "\n",
                "zone: Mars/Olympus",
                "give_up_after: soon",
                "robots:",
                "  - name: a",
                "    type: wecom",
                "    url: https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=abc",
                "    keyword: x",
                "    routes:",
                "      - kind: PAUSE",
                "        nodes: gpu*",
                "  - name: b",
                "    type: slack",
                "")));
  }

  @Test
  void aSecretComesFromOnePlaceAndAFileIsRelativeToTheConfig() throws Exception {
    assertEquals(
        List.of(
            "bridge.yaml:6: robots[0].token_file: give token_env or token_file, not both",
            "bridge.yaml:2: robots[0]: needs token_env or token_file (the access token is never written in bridge.yaml)"),
        problems(
            "robots:\n  - name: a\n    type: dingtalk\n    routes: [{}]\n    token_env: T\n    token_file: t.txt\n"));
    Path file = dir.resolve("ok.yaml");
    Files.writeString(
        file,
        "robots:\n  - name: a\n    type: dingtalk\n    routes: [{}]\n    token_file: t.txt\n");
    Files.writeString(dir.resolve("t.txt"), "tok\n");
    SecretRef ref = BridgeConfigLoader.load(file).robots().get(0).key();
    assertEquals("tok", ref.resolve(Map.of()));
    assertEquals("file " + dir.resolve("t.txt").toAbsolutePath(), ref.toString());
  }
}
