package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabricpulse.avro.CounterRates;
import io.fabricpulse.avro.NodeCounters;
import io.fabricpulse.avro.PortCounters;
import io.fabricpulse.avro.RateTag;
import io.fabricpulse.collectors.testing.Samples;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fabricpulse collect --once} against unpacked real sysfs captures: no Kafka involved. */
class CollectCommandTest {
  @TempDir Path tmp;

  /** A proc root with a known boot id, so the records' boot_id is checked exactly. */
  private Path procRoot() throws Exception {
    Path proc = tmp.resolve("proc");
    Files.createDirectories(proc.resolve("sys/kernel/random"));
    Files.writeString(
        proc.resolve("sys/kernel/random/boot_id"), "4f1c0e2a-9d1b-4c55-8d7e-0a1b2c3d4e5f\n");
    Files.writeString(proc.resolve("uptime"), "1234.56 2000.00\n");
    return proc;
  }

  @Test
  void onceWithAConfigFilePrintsOneNodeRecordCarryingEveryPort() throws Exception {
    Path root = Samples.unpackSysfs("procfs-mlx4_0-qdr-2port.ttar.txt", tmp.resolve("sysfs"));
    Path config = tmp.resolve("collector.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "cluster: lab",
            "node: gpu001",
            "proc_root: " + procRoot(),
            "sources:",
            "  sysfs:",
            "    root: " + root,
            "  ethtool: {enabled: false}",
            "  gpu: {enabled: false}",
            "  kmsg: {enabled: false}",
            ""));

    CliRun run = CliRun.of("collect", "--once", "--output", "json", "--config", config.toString());

    assertEquals(0, run.exit(), run.stderr());
    assertEquals(1, run.records().size(), "one NodeCounters for the sysfs cycle");
    assertEquals(0L, run.records(NodeCounters.class).get(0).getSeq());
    List<PortCounters> ports = run.ports(PortCounters.class);
    assertEquals(List.of(1, 2), ports.stream().map(PortCounters::getPort).toList());
    PortCounters first = ports.get(0);
    assertEquals("mlx4_0", first.getDevice());
    assertEquals("lab", first.getCluster());
    assertEquals("gpu001", first.getNode());
    assertEquals("4f1c0e2a-9d1b-4c55-8d7e-0a1b2c3d4e5f", first.getBootId());
    // the ports share their node record's number
    assertEquals(List.of(0L, 0L), ports.stream().map(PortCounters::getSeq).toList());
  }

  @Test
  void sysfsRootAndSetOverrideTheFile() throws Exception {
    Path root = Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp.resolve("sysfs"));

    CliRun run =
        CliRun.of(
            "collect",
            "--once",
            "--sysfs-root",
            root.toString(),
            "--cluster",
            "c2",
            "--node",
            "n9",
            "--set",
            "proc_root=" + procRoot(),
            "--set",
            "sources.ethtool.enabled=false",
            "--set",
            "sources.gpu.enabled=false",
            "--set",
            "sources.kmsg.enabled=false");

    assertEquals(0, run.exit(), run.stderr());
    PortCounters port = run.ports(PortCounters.class).get(0);
    assertEquals("mlx5_0", port.getDevice());
    assertEquals("c2", port.getCluster());
    assertEquals("n9", port.getNode());
    assertTrue(
        port.getCounters().stream()
            .anyMatch(c -> c.getName().equals("port_xmit_data") && c.getValue() == 2880761508848L));
  }

  @Test
  void anUnreadableToolIsCountedNotFatal() throws Exception {
    Path root = Samples.unpackSysfs("procfs-mlx5_0-hw_counters.ttar.txt", tmp.resolve("sysfs"));

    CliRun run =
        CliRun.of(
            "collect",
            "--once",
            "--sysfs-root",
            root.toString(),
            "--set",
            "proc_root=" + procRoot(),
            "--set",
            "sources.gpu.command=" + tmp.resolve("no-such-nvidia-smi"),
            "--set",
            "sources.ethtool.enabled=false",
            "--set",
            "sources.kmsg.enabled=false");

    assertEquals(ExitCodes.PARTIAL, run.exit(), run.stderr());
    assertEquals(1, run.ports(PortCounters.class).size());
    assertTrue(run.stderr().contains("gpu: "), run.stderr());
  }

  @Test
  void invalidConfigStopsWithFileLineKey() throws Exception {
    Path config = tmp.resolve("bad.yaml");
    Files.writeString(config, "cluster: lab\nsources:\n  sysfs:\n    interval: often\n");

    CliRun run = CliRun.of("collect", "--once", "--config", config.toString());

    assertEquals(CollectCommand.EXIT_CONFIG, run.exit());
    assertTrue(
        run.stderr().contains(config + ":4: sources.sysfs.interval: 'often' is not a duration"),
        run.stderr());
  }

  @Test
  void theDaemonRefusesToStartWithoutKafka() throws Exception {
    CliRun run = CliRun.of("collect", "--set", "proc_root=" + procRoot());

    assertEquals(CollectCommand.EXIT_CONFIG, run.exit());
    assertTrue(run.stderr().contains("kafka.bootstrap.servers: required"), run.stderr());
  }

  @Test
  void detectReadsTheNodeRecordsCollectOncePrintsAndRatesEveryPort() throws Exception {
    Path root = Samples.unpackSysfs("procfs-mlx4_0-qdr-2port.ttar.txt", tmp.resolve("sysfs"));
    CliRun collect =
        CliRun.of(
            "collect",
            "--once",
            "--sysfs-root",
            root.toString(),
            "--set",
            "proc_root=" + procRoot(),
            "--set",
            "sources.ethtool.enabled=false",
            "--set",
            "sources.gpu.enabled=false",
            "--set",
            "sources.kmsg.enabled=false");
    assertEquals(0, collect.exit(), collect.stderr());
    Path cycle = tmp.resolve("cycle.jsonl");
    Files.writeString(cycle, collect.stdout());

    CliRun detect = CliRun.of("detect", "--rates", cycle.toString());

    assertEquals(0, detect.exit(), detect.stderr());
    // one CounterRates line per port of the node record: mlx4_0 ports 1 and 2, first samples
    List<CounterRates> rates = detect.records(CounterRates.class);
    assertEquals(List.of(1, 2), rates.stream().map(CounterRates::getPort).toList());
    assertTrue(
        rates.stream()
            .flatMap(r -> r.getRates().stream())
            .allMatch(r -> r.getTag() == RateTag.first || r.getTag() == RateTag.unavailable),
        detect.stdout());
  }
}
