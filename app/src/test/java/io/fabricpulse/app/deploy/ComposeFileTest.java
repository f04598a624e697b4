package io.fabricpulse.app.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.app.FabricPulse;
import io.fabricpulse.bridges.config.BridgeConfig;
import io.fabricpulse.bridges.config.BridgeConfigLoader;
import io.fabricpulse.bridges.config.RobotConfig;
import io.fabricpulse.bridges.config.RobotType;
import io.fabricpulse.bridges.config.SecretRef;
import io.fabricpulse.schemas.topics.FabricTopics;
import io.fabricpulse.schemas.topics.TopicSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * docker-compose.yml as {@code docker-compose config} (Debian's docker-compose, offline) resolves
 * it with {@code .env.example}: valid, every image tag pinned, health checks on the servers, no
 * secret value in the file, and every fabricpulse service's command, options and environment
 * accepted by the CLI and the Kafka clients, so the file cannot drift from the code. The one-shot
 * topic creation must create exactly the layout of {@link FabricTopics#defaults()}.
 */
class ComposeFileTest {

  private static final Set<String> SERVERS =
      Set.of("kafka", "schema-registry", "influxdb", "grafana");
  private static final Pattern TOPIC_LINE =
      Pattern.compile(
          "kafka-topics\\.sh --bootstrap-server \\S+ --create --if-not-exists --topic (\\S+)"
              + " --partitions (\\d+) --replication-factor \\S+((?: --config \\S+)*)");

  private static Map<String, Map<String, Object>> services;
  private static Map<String, Object> compose;

  @BeforeAll
  @SuppressWarnings("unchecked")
  static void resolveWithDockerCompose() throws Exception {
    Path root = repoRoot();
    Process p =
        new ProcessBuilder(
                "docker-compose",
                "--env-file",
                ".env.example",
                "-f",
                "docker-compose.yml",
                "config")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "docker-compose config did not finish");
    assertEquals(0, p.exitValue(), "docker-compose config:\n" + out);
    compose = new Yaml(new SafeConstructor(new LoaderOptions())).load(out);
    services = (Map<String, Map<String, Object>>) compose.get("services");
  }

  @Test
  void everyImageIsPinnedAndEveryServerHasAHealthCheck() {
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      String image = (String) s.getValue().get("image");
      assertTrue(image != null && image.contains(":"), s.getKey() + ": image without a tag");
      String tag = image.substring(image.lastIndexOf(':') + 1);
      assertTrue(
          !tag.equals("latest") && tag.matches(".*\\d.*"),
          s.getKey() + ": tag '" + tag + "' is not a version");
      assertTrue(
          !image.startsWith("bitnami/"), s.getKey() + ": Bitnami images are no longer updated");
    }
    for (String server : SERVERS) {
      assertTrue(services.get(server).containsKey("healthcheck"), server + " has no health check");
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void secretsAreFilesNeverValues() {
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      Map<String, Object> env = environment(s.getValue());
      List<String> mounted = new ArrayList<>();
      for (Object secret : (List<Object>) s.getValue().getOrDefault("secrets", List.of())) {
        mounted.add(secret instanceof Map<?, ?> m ? (String) m.get("source") : (String) secret);
      }
      for (Map.Entry<String, Object> e : env.entrySet()) {
        String key = e.getKey().toUpperCase(Locale.ROOT);
        if (key.contains("PASSWORD") || key.contains("TOKEN") || key.contains("SECRET")) {
          assertTrue(
              key.endsWith("_FILE"), s.getKey() + ": " + e.getKey() + " holds a secret value");
          String path = String.valueOf(e.getValue());
          assertTrue(
              path.startsWith("/run/secrets/"), s.getKey() + ": " + e.getKey() + " = " + path);
          assertTrue(
              mounted.contains(path.substring("/run/secrets/".length())),
              s.getKey() + ": " + path + " is not one of its secrets " + mounted);
        }
      }
    }
    Map<String, Object> secrets = (Map<String, Object>) compose.get("secrets");
    secrets.forEach(
        (name, def) ->
            assertTrue(((Map<String, Object>) def).containsKey("file"), name + " is not a file"));
  }

  @Test
  void everyFabricpulseServiceRunsACommandTheCliAccepts() {
    int checked = 0;
    for (Map.Entry<String, Map<String, Object>> s : services.entrySet()) {
      if (!String.valueOf(s.getValue().get("image")).startsWith("fabricpulse:")) {
        continue;
      }
      checked++;
      @SuppressWarnings("unchecked")
      List<String> args = (List<String>) s.getValue().get("command");
      CommandLine cli = FabricPulse.commandLine();
      ParseResult parsed;
      try {
        parsed = cli.parseArgs(args.toArray(String[]::new));
      } catch (CommandLine.ParameterException e) {
        throw new AssertionError(s.getKey() + ": " + args + ": " + e.getMessage(), e);
      }
      ParseResult leaf = parsed;
      while (leaf.hasSubcommand()) {
        leaf = leaf.subcommand();
      }
      assertTrue(
          leaf.commandSpec().subcommands().isEmpty(),
          s.getKey() + ": " + args + " names a command group, not a command");
      for (Map.Entry<String, Object> e : environment(s.getValue()).entrySet()) {
        String problem = environmentProblem(leaf.commandSpec().qualifiedName(" "), e.getKey());
        assertTrue(problem == null, s.getKey() + ": " + e.getKey() + ": " + problem);
      }
    }
    assertEquals(
        5, checked, "streams, sink, collect and the two bridges run the fabricpulse image");
  }

  @Test
  @SuppressWarnings("unchecked")
  void theServicesHaveRealHealthChecksAndTheBridgesAreAProfileOffByDefault() {
    for (String service :
        List.of("streams", "sink", "collect", "bridge-wecom", "bridge-dingtalk")) {
      Map<String, Object> s = services.get(service);
      assertTrue(s.containsKey("healthcheck"), service + " has no health check");
      assertEquals(
          !service.startsWith("bridge-"),
          !s.containsKey("profiles"),
          service
              + (service.startsWith("bridge-") ? " must be in a profile" : " must run by default"));
      List<String> command = (List<String>) s.get("command");
      String check =
          String.join(" ", (List<String>) ((Map<String, Object>) s.get("healthcheck")).get("test"));
      // the health check reads what the service's own option says it writes
      command.stream()
          .filter(a -> a.startsWith("--alive-file="))
          .map(a -> a.substring("--alive-file=".length()))
          .forEach(
              file -> assertTrue(check.contains("stat -c %Y " + file), service + ": " + check));
      if (!service.equals("streams")) {
        assertTrue(
            command.stream().anyMatch(a -> a.startsWith("--alive-file=")),
            service + " writes no alive file for its health check");
      }
    }
    for (String bridge : List.of("bridge-wecom", "bridge-dingtalk")) {
      Map<String, Object> s = services.get(bridge);
      assertEquals(List.of("bridges"), s.get("profiles"), bridge + " must be in profile bridges");
      List<String> command = (List<String>) s.get("command");
      assertEquals(List.of("bridge", bridge.substring("bridge-".length())), command.subList(0, 2));
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void theBridgesConfigLoadsAndReadsItsSecretsFromTheServicesDockerSecrets() throws Exception {
    Path config = repoRoot().resolve("deploy/bridges/bridge.yaml");
    BridgeConfig loaded = BridgeConfigLoader.load(config);
    for (String bridge : List.of("bridge-wecom", "bridge-dingtalk")) {
      Map<String, Object> s = services.get(bridge);
      List<String> mounted = new ArrayList<>();
      for (Object secret : (List<Object>) s.getOrDefault("secrets", List.of())) {
        mounted.add(secret instanceof Map<?, ?> m ? (String) m.get("source") : (String) secret);
      }
      RobotType type =
          RobotType.valueOf(bridge.substring("bridge-".length()).toUpperCase(Locale.ROOT));
      List<RobotConfig> robots = loaded.robotsOf(type);
      assertTrue(!robots.isEmpty(), bridge + ": no " + type + " robot in " + config);
      for (RobotConfig r : robots) {
        for (SecretRef ref : java.util.Arrays.asList(r.key(), r.signSecret())) {
          if (ref == null) {
            continue;
          }
          assertTrue(ref.env() == null, r.name() + ": compose passes secrets as files");
          Path file = ref.file();
          assertTrue(file.startsWith("/run/secrets/"), r.name() + ": " + file);
          assertTrue(
              mounted.contains(file.getFileName().toString()),
              bridge + ": " + file + " is not one of its secrets " + mounted);
        }
      }
      String option =
          ((List<String>) s.get("command"))
              .stream().filter(a -> a.startsWith("--config=")).findFirst().orElseThrow();
      assertEquals("--config=/etc/fabricpulse/bridges/bridge.yaml", option);
    }
  }

  @Test
  void theInitServiceCreatesExactlyTheTopicLayoutOfTheCode() {
    @SuppressWarnings("unchecked")
    String script = String.join("\n", (List<String>) services.get("kafka-init").get("command"));
    Map<String, String> created = new TreeMap<>();
    Matcher m = TOPIC_LINE.matcher(script);
    while (m.find()) {
      Map<String, String> configs = new LinkedHashMap<>();
      for (String c : m.group(3).trim().split("\\s*--config\\s+")) {
        if (!c.isBlank()) {
          configs.put(c.substring(0, c.indexOf('=')), c.substring(c.indexOf('=') + 1));
        }
      }
      created.put(m.group(1), m.group(2) + " " + new TreeMap<>(configs));
    }
    Map<String, String> expected = new TreeMap<>();
    List<TopicSpec> layout = new ArrayList<>(FabricTopics.defaults().all());
    layout.add(FabricTopics.bridgeCounters()); // TopicBootstrap creates it too: the sink reads it
    for (TopicSpec spec : layout) {
      expected.put(spec.name(), spec.partitions() + " " + new TreeMap<>(spec.configs()));
    }
    assertEquals(expected, created);
  }

  @Test
  void grafanaMountsTheProvisioningAndDashboardsOfTheRepository() {
    @SuppressWarnings("unchecked")
    List<String> volumes = (List<String>) services.get("grafana").get("volumes");
    Set<String> sources = new HashSet<>();
    for (Object v : volumes) {
      String spec =
          v instanceof Map<?, ?> map ? map.get("source") + ":" + map.get("target") : (String) v;
      sources.add(spec.substring(0, spec.indexOf(':')));
    }
    Path root = repoRoot();
    for (String dir :
        List.of(
            "dashboards",
            "dashboards/provisioning/datasources",
            "dashboards/provisioning/dashboards")) {
      assertTrue(
          sources.contains(root.resolve(dir).toString()),
          "grafana does not mount " + dir + ": " + volumes);
    }
  }

  /**
   * Null when the variable means something to {@code command}: {@code KAFKA_<NAME>} a real client
   * setting (the CLI maps it to {@code name.lower.dotted}), {@code INFLUX_TOKEN_FILE} for the sink.
   */
  private static String environmentProblem(String command, String variable) {
    if (variable.startsWith("KAFKA_")) {
      String key = variable.substring("KAFKA_".length()).toLowerCase(Locale.ROOT).replace('_', '.');
      Set<String> known = new HashSet<>();
      known.addAll(ProducerConfig.configNames());
      known.addAll(ConsumerConfig.configNames());
      known.addAll(AdminClientConfig.configNames());
      known.addAll(StreamsConfig.configDef().names());
      return known.contains(key) ? null : key + " is not a Kafka client setting";
    }
    if (variable.equals("INFLUX_TOKEN_FILE") || variable.equals("INFLUX_TOKEN")) {
      return command.equals("fabricpulse sink influx") ? null : "only 'sink influx' reads it";
    }
    return "no fabricpulse command reads it";
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> environment(Map<String, Object> service) {
    Object env = service.get("environment");
    return env == null ? Map.of() : (Map<String, Object>) env;
  }

  private static Path repoRoot() {
    Path d = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (d != null) {
      if (Files.exists(d.resolve("pom.xml")) && Files.isDirectory(d.resolve(".mvn"))) {
        return d;
      }
      d = d.getParent();
    }
    throw new IllegalStateException("no reactor root above " + System.getProperty("user.dir"));
  }
}
