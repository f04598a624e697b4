package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12, bad configuration: a key of a {@code --kafka-config} file that no Kafka client and not
 * the registry's serdes know (a typo the clients would only log as unused) stops every command that
 * reads the file with one line naming file, line and key, exit 2, before it connects; every key
 * README.md documents is known.
 */
class KafkaConfigFileTest {
  @TempDir Path tmp;

  @Test
  void anUnknownKeyIsRefusedWithItsFileAndLine() throws Exception {
    Path file =
        Files.writeString(
            tmp.resolve("kafka.properties"),
            String.join(
                "\n",
                "# SASL/SCRAM",
                "bootstrap.servers=127.0.0.1:9",
                "security.protocol=SASL_SSL",
                "  sasl.mechansim = SCRAM-SHA-512",
                "schema.registry.url=mock://kafka-config-file-test",
                ""));
    String expected = file + ":4: sasl.mechansim: not a Kafka client or schema registry setting";
    List<String[]> commands = new ArrayList<>();
    commands.add(new String[] {"streams", "--state-dir", tmp.resolve("state").toString()});
    commands.add(new String[] {"sink", "influx", "--influx-url", "http://127.0.0.1:9"});
    commands.add(
        new String[] {"export", "--from", "2026-12-01T00:00:00Z", "--to", "2026-12-01T00:01:00Z"});
    commands.add(new String[] {"query", "--topic", "fabric.rates"});
    commands.add(new String[] {"simulate", "--duration", "1s"});
    for (String[] command : commands) {
      List<String> args = new ArrayList<>(List.of(command));
      args.addAll(List.of("--kafka-config", file.toString()));
      CliRun run = CliRun.of(args.toArray(String[]::new));
      assertEquals(ExitCodes.USAGE, run.exit(), command[0] + ": " + run.stderr());
      assertEquals(List.of(expected), run.stderr().lines().toList(), command[0]);
    }
  }

  @Test
  void everyKeyOfTheReadmeAndStreamsPrefixesAreKnown() throws Exception {
    Path readme = repoRoot().resolve("README.md");
    Matcher block =
        Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL)
            .matcher(Files.readString(readme));
    assertTrue(block.find(), "README.md has no properties block");
    Path file = Files.writeString(tmp.resolve("readme.properties"), block.group(1));
    Properties props = new Properties();
    try (Reader in = Files.newBufferedReader(file)) {
      props.load(in);
    }
    assertTrue(props.size() >= 8, props.keySet().toString());
    KafkaOptions.refuseUnknownKeys(file, props); // throws on an unknown key
    for (String key :
        List.of(
            "producer.linger.ms",
            "main.consumer.max.poll.records",
            "admin.request.timeout.ms",
            "topic.min.insync.replicas",
            "processing.guarantee",
            "ssl.keystore.location",
            "sasl.login.refresh.window.factor",
            "auto.register.schemas",
            "basic.auth.credentials.source")) {
      assertTrue(KafkaOptions.knownKey(key), key);
    }
    for (String typo : List.of("sasl.jaas.conf", "producer.linger", "ssl.trustore.location")) {
      assertTrue(!KafkaOptions.knownKey(typo), typo);
    }
  }

  private static Path repoRoot() {
    Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (d != null && !Files.exists(d.resolve("README.md"))) {
      d = d.getParent();
    }
    if (d == null) {
      throw new IllegalStateException("no README.md above " + System.getProperty("user.dir"));
    }
    return d;
  }
}
