package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, security: no secret ever appears in what a command prints. One child JVM, its
 * environment and configuration files holding a sentinel value for every secret (SASL password,
 * registry password, InfluxDB token, WeCom key, DingTalk token and signing secret, truststore
 * password, status page token), runs every command's {@code --help}, {@code --version}, {@code
 * collect --once} (JSON output), {@code bridge --dry-run} and the real bridge, {@code sink influx}
 * (also with {@code --debug}, so with its stack trace) and {@code streams} against a Kafka that
 * does not answer, and {@code rules check}; every byte of its stdout and stderr (the logs included:
 * slf4j-simple writes to stderr) is scanned for each sentinel.
 */
class SentinelSecretsTest {
  static final Map<String, String> SENTINELS = new LinkedHashMap<>();

  static {
    SENTINELS.put("SASL password", "sentinelSaslPw7c1e");
    SENTINELS.put("registry password", "sentinelRegistryPw41d2");
    SENTINELS.put("InfluxDB token", "sentinelInfluxToken9b3a");
    SENTINELS.put("WeCom key", "sentinelWecomKey55e0");
    SENTINELS.put("DingTalk token", "sentinelDingtalkToken12ab");
    SENTINELS.put("DingTalk signing secret", "SECsentinelDingtalkSecret0af7");
    SENTINELS.put("truststore password", "sentinelTruststorePw3c3c");
    SENTINELS.put("status page token", "sentinelStatusToken8d8d");
  }

  private static final String NO_KAFKA = "127.0.0.1:9";

  @TempDir Path tmp;

  @Test
  void noCommandPrintsASecret() throws Exception {
    Path kafkaConfig = tmp.resolve("kafka.properties");
    Files.writeString(
        kafkaConfig,
        String.join(
            "\n",
            "security.protocol=SASL_PLAINTEXT",
            "sasl.mechanism=SCRAM-SHA-512",
            "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"fabricpulse\" password=\""
                + SENTINELS.get("SASL password")
                + "\";",
            "basic.auth.credentials.source=USER_INFO",
            "basic.auth.user.info=fabricpulse:" + SENTINELS.get("registry password"),
            // fail fast against the closed port
            "default.api.timeout.ms=3000",
            "request.timeout.ms=2000",
            "max.block.ms=2000",
            ""));
    Path statusToken =
        Files.writeString(tmp.resolve("status-token"), SENTINELS.get("status page token"));
    Path bridgeYaml = tmp.resolve("bridge.yaml");
    Files.writeString(
        bridgeYaml,
        String.join(
            "\n",
            "language: en",
            "robots:",
            "  - name: oncall",
            "    type: wecom",
            "    url: http://127.0.0.1:9/cgi-bin/webhook/send",
            "    key_env: SENTINEL_WECOM_KEY",
            "    routes: [{}]",
            "  - name: ops",
            "    type: dingtalk",
            "    url: http://127.0.0.1:9/robot/send",
            "    token_env: SENTINEL_DINGTALK_TOKEN",
            "    secret_env: SENTINEL_DINGTALK_SECRET",
            "    routes: [{}]",
            ""));
    Path alerts = tmp.resolve("alerts.jsonl");
    Files.writeString(alerts, "");
    Path collector = tmp.resolve("collector.yaml");
    Files.writeString(
        collector,
        String.join(
            "\n",
            "cluster: sentinel",
            "proc_root: " + tmp,
            "sources:",
            "  sysfs: {root: " + tmp + "}",
            "  ethtool: {enabled: false}",
            "  gpu: {enabled: false}",
            "  kmsg: {enabled: false}",
            ""));

    Map<String, String> env = new LinkedHashMap<>();
    env.put(
        "KAFKA_SASL_JAAS_CONFIG",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"fp\""
            + " password=\""
            + SENTINELS.get("SASL password")
            + "\";");
    env.put("KAFKA_SSL_TRUSTSTORE_PASSWORD", SENTINELS.get("truststore password"));
    env.put("INFLUX_TOKEN", SENTINELS.get("InfluxDB token"));
    env.put("SENTINEL_WECOM_KEY", SENTINELS.get("WeCom key"));
    env.put("SENTINEL_DINGTALK_TOKEN", SENTINELS.get("DingTalk token"));
    env.put("SENTINEL_DINGTALK_SECRET", SENTINELS.get("DingTalk signing secret"));
    env.put("FABRICPULSE_WECOM_KEY", SENTINELS.get("WeCom key"));
    env.put("FABRICPULSE_DINGTALK_TOKEN", SENTINELS.get("DingTalk token"));
    env.put("FABRICPULSE_DINGTALK_SECRET", SENTINELS.get("DingTalk signing secret"));

    String registry = "--schema-registry-url";
    List<String[]> commands = new ArrayList<>();
    commands.add(new String[] {"HELP-ALL"});
    commands.add(new String[] {"--version"});
    commands.add(
        new String[] {"collect", "--once", "--output", "json", "--config", collector.toString()});
    commands.add(
        new String[] {
          "bridge",
          "wecom",
          "--config",
          bridgeYaml.toString(),
          "--dry-run",
          "--alerts",
          alerts.toString()
        });
    for (String robot : new String[] {"wecom", "dingtalk"}) {
      commands.add(
          new String[] {
            "bridge",
            robot,
            "--config",
            bridgeYaml.toString(),
            "--kafka-config",
            kafkaConfig.toString(),
            "--bootstrap-servers",
            NO_KAFKA,
            registry,
            "mock://sentinel"
          });
    }
    for (boolean debug : new boolean[] {false, true}) {
      List<String> sink =
          new ArrayList<>(
              List.of(
                  "sink",
                  "influx",
                  "--influx-url",
                  "http://127.0.0.1:9",
                  "--kafka-config",
                  kafkaConfig.toString(),
                  "--bootstrap-servers",
                  "not a host",
                  registry,
                  "mock://sentinel"));
      if (debug) {
        sink.add("--debug");
      }
      commands.add(sink.toArray(String[]::new));
    }
    commands.add(
        new String[] {
          "streams",
          "--kafka-config",
          kafkaConfig.toString(),
          "--bootstrap-servers",
          NO_KAFKA,
          registry,
          "mock://sentinel",
          "--state-dir",
          tmp.resolve("state").toString(),
          "--status-port",
          "0",
          "--status-token-file",
          statusToken.toString()
        });
    commands.add(new String[] {"rules", "check", tmp.toString()});

    Path out = tmp.resolve("stdout.txt");
    Path err = tmp.resolve("stderr.txt");
    Process child = SentinelCommands.start(commands, env, out, err);
    boolean done = child.waitFor(3, TimeUnit.MINUTES);
    if (!done) {
      child.destroyForcibly();
    }
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    assertTrue(done, "the commands did not end in 3 minutes; stderr:\n" + tail(stderr));
    assertEquals(0, child.exitValue(), tail(stderr));

    // every command ran (a child that stopped early would scan nothing)
    long ran = stdout.lines().filter(l -> l.startsWith("=== exit ")).count();
    assertTrue(ran >= 20, ran + " commands ran:\n" + tail(stdout));
    assertTrue(stdout.contains("Usage: fabricpulse sink influx"), tail(stdout));
    assertTrue(
        stderr.contains("Kafka"), "the bridge and streams must have tried Kafka:\n" + tail(stderr));

    List<String> leaks = new ArrayList<>();
    SENTINELS.forEach(
        (what, value) -> {
          scan(what, value, "stdout", stdout, leaks);
          scan(what, value, "stderr", stderr, leaks);
        });
    assertTrue(leaks.isEmpty(), String.join("\n", leaks));
    // what the failing commands said, for reading a run's report
    System.out.println(stderr);
    System.out.printf(
        "sentinel secrets: %d commands, %d stdout and %d stderr bytes scanned for %d secrets, %d leaks%n",
        ran, stdout.length(), stderr.length(), SENTINELS.size(), leaks.size());
  }

  private static void scan(
      String what, String value, String stream, String text, List<String> leaks) {
    int at = text.indexOf(value);
    if (at >= 0) {
      int lineStart = text.lastIndexOf('\n', at) + 1;
      int lineEnd = text.indexOf('\n', at);
      String command = text.substring(0, at);
      int header = command.lastIndexOf("=== fabricpulse ");
      leaks.add(
          what
              + " on "
              + stream
              + " of '"
              + (header < 0 ? "?" : command.substring(header, command.indexOf('\n', header)))
              + "': "
              + text.substring(lineStart, lineEnd < 0 ? text.length() : lineEnd));
    }
  }

  private static String tail(String text) {
    return text.length() <= 6000 ? text : "..." + text.substring(text.length() - 6000);
  }
}
