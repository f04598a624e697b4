package io.fabricpulse.collectors.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectorConfigTest {
  @TempDir Path tmp;

  private Path yaml(String text) throws Exception {
    Path file = tmp.resolve("collector.yaml");
    Files.writeString(file, text);
    return file;
  }

  /** The module's sample config, the one the README shows. */
  private static Path sampleConfig() {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    Path inModule = dir.resolve("collector.yaml");
    return Files.exists(inModule) ? inModule : dir.resolve("collectors/collector.yaml");
  }

  @Test
  void defaultsFollowTheIssue() {
    CollectorConfig config = CollectorConfig.defaults();
    assertEquals(Duration.ofSeconds(1), config.interval(SourceKind.SYSFS));
    assertEquals(Duration.ofSeconds(1), config.interval(SourceKind.ETHTOOL));
    assertEquals(Duration.ofSeconds(10), config.interval(SourceKind.GPU));
    assertEquals(Duration.ofSeconds(10), config.interval(SourceKind.SMINFO));
    assertEquals(Duration.ofSeconds(1), config.interval(SourceKind.NCCL));
    assertEquals(Path.of("/sys"), config.path(CollectorConfig.SYSFS_ROOT));
    assertNull(config.node());
    assertEquals(4800, config.bufferRecords());
    assertTrue(config.enabled(SourceKind.SYSFS));
    assertFalse(config.enabled(SourceKind.OPENSM));
  }

  @Test
  void theSampleFileLoadsAndShowsEveryOption() throws Exception {
    Path sample = sampleConfig();
    CollectorConfig config = CollectorConfig.load(sample, Map.of(), Map.of());

    assertEquals("prod-a", config.cluster());
    assertEquals("kafka-1:9092,kafka-2:9092,kafka-3:9092", config.kafka().get("bootstrap.servers"));
    assertEquals("zstd", config.kafka().get("compression.type"));
    assertEquals("http://schema-registry:8081", config.schemaRegistryUrl());
    assertEquals(List.of(), config.list(CollectorConfig.ETHTOOL_NETDEVS));
    String text = Files.readString(sample);
    for (String key : CollectorConfig.optionKeys()) {
      String leaf = key.substring(key.lastIndexOf('.') + 1);
      assertTrue(text.contains(leaf + ":"), "collector.yaml does not show " + key);
    }
  }

  @Test
  void precedenceIsDefaultsFileEnvCli() throws Exception {
    Path file =
        yaml(
            "cluster: from-file\nnode: n-file\nsources:\n  sysfs:\n    interval: 2s\n"
                + "kafka:\n  bootstrap.servers: file:9092\n  linger.ms: 5\n");
    Map<String, String> env =
        Map.of(
            "FABRICPULSE_NODE", "n-env",
            "FABRICPULSE_SOURCES_SYSFS_INTERVAL", "3s",
            "KAFKA_BOOTSTRAP_SERVERS", "env:9092",
            "KAFKA_HOME", "/opt/kafka",
            "KAFKA_HEAP_OPTS", "-Xmx1g");
    CollectorConfig config =
        CollectorConfig.load(
            file, env, Map.of("sources.sysfs.interval", "500ms", "kafka.acks", "1"));

    assertEquals("from-file", config.cluster());
    assertEquals("n-env", config.node());
    assertEquals(Duration.ofMillis(500), config.interval(SourceKind.SYSFS));
    assertEquals("env:9092", config.kafka().get("bootstrap.servers"));
    assertEquals("5", config.kafka().get("linger.ms"));
    // KAFKA_* that are not producer settings are left alone
    assertFalse(config.kafka().containsKey("home"));
    assertFalse(config.kafka().containsKey("heap.opts"));
    assertEquals("env:9092", config.producerProperties().getProperty("bootstrap.servers"));
  }

  @Test
  void everyProblemIsReportedWithFileLineAndKey() throws Exception {
    Path file =
        yaml(
            "cluster: lab\n"
                + "sources:\n"
                + "  sysfs:\n"
                + "    interval: fast\n"
                + "    include: \"mlx5_[\"\n"
                + "  gpus:\n"
                + "    enabled: true\n"
                + "buffer:\n"
                + "  records: -1\n"
                + "colour: blue\n");
    ConfigException e =
        assertThrows(ConfigException.class, () -> CollectorConfig.load(file, Map.of(), Map.of()));

    List<String> problems = e.problems();
    assertTrue(
        problems.contains(
            file
                + ":4: sources.sysfs.interval: 'fast' is not a duration (examples: 500ms, 1s, 10s, 5m)"),
        problems.toString());
    assertTrue(
        problems.stream()
            .anyMatch(
                p -> p.startsWith(file + ":5: sources.sysfs.include: not a regular expression")),
        problems.toString());
    assertTrue(problems.contains(file + ":6: sources.gpus: unknown section"), problems.toString());
    assertTrue(
        problems.contains(file + ":9: buffer.records: must be at least 1"), problems.toString());
    assertTrue(problems.contains(file + ":10: colour: unknown option"), problems.toString());
    assertEquals(5, problems.size(), problems.toString());
  }

  @Test
  void envAndCliProblemsNameTheirOrigin() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                CollectorConfig.load(
                    null,
                    Map.of("FABRICPULSE_SOURCES_GPU_ENABLED", "maybe"),
                    Map.of("sources.nccl.enabled", "true")));
    assertTrue(
        e.problems()
            .contains(
                "env FABRICPULSE_SOURCES_GPU_ENABLED: sources.gpu.enabled: 'maybe' is not true or false"),
        e.problems().toString());
    assertTrue(
        e.problems()
            .contains("cli: sources.nccl.globs: the nccl source is enabled but has no globs"),
        e.problems().toString());
  }

  @Test
  void requireKafkaNamesWhatIsMissingAndDescribeMasksSecrets() throws Exception {
    CollectorConfig config =
        CollectorConfig.load(
            null,
            Map.of(
                "KAFKA_SASL_JAAS_CONFIG",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"hunter2\";"),
            Map.of());
    ConfigException e = assertThrows(ConfigException.class, config::requireKafka);
    assertEquals(2, e.problems().size());
    assertTrue(config.describe().contains("kafka.sasl.jaas.config=****"), config.describe());
    assertFalse(config.describe().contains("hunter2"));
  }

  @Test
  void listsComeFromYamlSequencesOrCommaSeparatedText() throws Exception {
    Path file =
        yaml(
            "sources:\n  nccl:\n    enabled: true\n    globs: [\"/var/log/nccl/*.log\", \"/scratch/**/slurm-*.out\"]\n    job_regex: 'slurm-(\\d+)\\.out'\n");
    CollectorConfig config =
        CollectorConfig.load(
            file, Map.of(), Map.of("sources.ethtool.netdevs", "ens1f0np0, ens2f0np0"));
    assertEquals(
        List.of("/var/log/nccl/*.log", "/scratch/**/slurm-*.out"),
        config.list(CollectorConfig.NCCL_GLOBS));
    assertEquals(List.of("ens1f0np0", "ens2f0np0"), config.list(CollectorConfig.ETHTOOL_NETDEVS));
    assertEquals("slurm-(\\d+)\\.out", config.pattern(CollectorConfig.NCCL_JOB_REGEX).pattern());
  }

  @Test
  void theFabricSourceSweepsAtMostOncePerMinuteWithAKnownTool() throws Exception {
    CollectorConfig defaults = CollectorConfig.defaults();
    assertFalse(defaults.enabled(SourceKind.FABRIC), "one host per fabric enables it");
    assertEquals(Duration.ofMinutes(5), defaults.interval(SourceKind.FABRIC));
    assertEquals("ibnetdiscover", defaults.string(CollectorConfig.FABRIC_TOOL));

    Path file =
        yaml(
            "sources:\n"
                + "  fabric:\n"
                + "    enabled: true\n"
                + "    interval: 30s\n"
                + "    tool: ibdiagnet\n"
                + "    timeout: 2m\n");
    ConfigException e =
        assertThrows(ConfigException.class, () -> CollectorConfig.load(file, Map.of(), Map.of()));

    String where = file + ":";
    assertEquals(3, e.problems().size(), e.problems().toString());
    assertTrue(
        e.problems().stream()
            .anyMatch(
                p ->
                    p.startsWith(
                        where
                            + "5: sources.fabric.tool: must be ibnetdiscover or"
                            + " iblinkinfo, got 'ibdiagnet'")),
        e.problems().toString());
    assertTrue(
        e.problems().stream()
            .anyMatch(p -> p.startsWith(where + "4: sources.fabric.interval: must be at least 1m")),
        e.problems().toString());
    assertTrue(
        e.problems().stream()
            .anyMatch(p -> p.startsWith(where + "6: sources.fabric.timeout: must not exceed")),
        e.problems().toString());
  }
}
