package io.fabricpulse.app.bench;

import io.fabricpulse.app.embedded.EmbeddedKafkaBroker;
import io.fabricpulse.app.embedded.TopicBootstrap;
import io.fabricpulse.collectors.sim.FabricSimulator;
import io.fabricpulse.collectors.sim.SimulatorConfig;
import io.fabricpulse.collectors.sysfs.SysfsSnapshot;
import io.fabricpulse.schemas.topics.FabricTopics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The node agent's own cost ({@code fabricpulse bench agent}): a real {@code fabricpulse collect}
 * process, started with the JVM options of the systemd unit, samples the sysfs tree of one
 * simulated 8-HCA node (written to a directory, so every counter is a real open/read/close) every
 * second and publishes to a real in-process broker. After a warm-up the parent reads the child's
 * CPU time and resident set from /proc for the measured window, and counts the cycles that reached
 * the broker: CPU per cycle is CPU time over published cycles, so an agent that stalls or drops
 * cannot look cheap.
 */
public final class AgentFootprint {
  /**
   * The JVM options of {@code collectors/fabricpulse-collect.service}'s ExecStart (a test keeps the
   * two the same): what a node runs, so what this measures.
   */
  public static final List<String> UNIT_JAVA_OPTIONS =
      List.of(
          "-Xms16m",
          "-Xmx128m",
          "-XX:+UseSerialGC",
          "-XX:MinHeapFreeRatio=10",
          "-XX:MaxHeapFreeRatio=30",
          "-XX:TieredStopAtLevel=1",
          "-XX:CICompilerCount=1",
          "-Xss512k",
          "-XX:ReservedCodeCacheSize=16m",
          "-XX:-UsePerfData");

  /** HCAs of the measured node: the "8-HCA node" (the simulator's storage NIC left out). */
  static final String HCA_INCLUDE = "mlx5_[0-7]";

  static final int HCAS = 8;

  public record Settings(Duration warmup, Duration measure, List<String> javaOptions) {}

  /**
   * One measurement, of at least one cycle that reached the broker (a window without one fails).
   */
  public record Result(long cycles, double cpuMs, long rssKb, long peakRssKb, int threads) {
    public double cpuMsPerCycle() {
      return cpuMs / cycles;
    }

    public String summaryLine() {
      return String.format(
          Locale.ROOT,
          "bench agent: cpu_per_cycle=%.2fms rss=%.1fMB rss_peak=%.1fMB cycles=%d threads=%d",
          cpuMsPerCycle(),
          rssKb / 1024.0,
          peakRssKb / 1024.0,
          cycles,
          threads);
    }
  }

  /** The child stopped, published nothing, or /proc could not be read: named in the message. */
  public static final class Failed extends Exception {
    Failed(String message) {
      super(message);
    }
  }

  private final Settings settings;
  private final PrintStream out;

  public AgentFootprint(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  public Result run(Path dir) throws IOException, InterruptedException, Failed {
    Path sysfs = dir.resolve("sys");
    String node = writeNodeTree(sysfs);
    FabricTopics topics = FabricTopics.defaults("", 1);
    try (EmbeddedKafkaBroker broker =
            EmbeddedKafkaBroker.start(dir.resolve("broker"), Duration.ofMinutes(2));
        Admin admin = Admin.create(adminConfig(broker))) {
      TopicBootstrap.ensure(admin, topics, (short) 1);
      Path config = writeConfig(dir, broker.bootstrapServers(), sysfs, node);
      Path log = dir.resolve("collect.log");
      out.printf(
          "  agent: %s collect, %d HCAs of %s, log %s%n",
          String.join(" ", settings.javaOptions()), HCAS, node, log);
      Process agent = start(config, log);
      try {
        return measure(agent, admin, topics.portCounters().name(), log);
      } finally {
        stop(agent);
      }
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new Failed("could not create the topics: " + e.getMessage());
    }
  }

  private Result measure(Process agent, Admin admin, String topic, Path log)
      throws InterruptedException, Failed {
    long pid = agent.pid();
    sleepWatching(agent, settings.warmup(), "warm-up", log);
    long cycles0 = endOffset(admin, topic);
    Map<String, Long> threads0 = ThreadTicks.read(pid);
    Duration cpu0 = cpu(agent);
    long t0 = System.nanoTime();
    long peak = 0;
    long rss = 0;
    long left = settings.measure().toMillis();
    while (left > 0) {
      long step = Math.min(left, 5_000);
      sleepWatching(agent, Duration.ofMillis(step), "measurement", log);
      left -= step;
      Map<String, Long> status = ProcStatus.read(pid);
      rss = status.getOrDefault("VmRSS", 0L);
      peak = Math.max(peak, status.getOrDefault("VmHWM", 0L));
      out.printf(
          Locale.ROOT,
          "  agent: %3.0f s measured, rss %.1f MB, %d cycles published%n",
          (System.nanoTime() - t0) / 1e9,
          rss / 1024.0,
          endOffset(admin, topic) - cycles0);
    }
    Duration cpu1 = cpu(agent);
    Map<String, Long> threads1 = ThreadTicks.read(pid);
    long cycles = endOffset(admin, topic) - cycles0;
    if (cycles == 0) {
      throw new Failed(
          "the agent published no cycle in " + settings.measure() + " (log " + log + ")");
    }
    printByThread(threads0, threads1, cycles);
    int threads = ProcStatus.read(pid).getOrDefault("Threads", 0L).intValue();
    return new Result(cycles, cpu1.minus(cpu0).toNanos() / 1e6, rss, peak, threads);
  }

  /** Where the CPU went: each thread name's share, in ms per cycle, largest first. */
  private void printByThread(Map<String, Long> before, Map<String, Long> after, long cycles) {
    Map<String, Long> delta = new java.util.TreeMap<>();
    after.forEach((name, ticks) -> delta.put(name, ticks - before.getOrDefault(name, 0L)));
    String shares =
        delta.entrySet().stream()
            .filter(e -> e.getValue() > 0)
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .limit(8)
            .map(
                e ->
                    String.format(
                        Locale.ROOT,
                        "%s %.2f",
                        e.getKey(),
                        e.getValue() * ThreadTicks.MS_PER_TICK / cycles))
            .collect(java.util.stream.Collectors.joining(", "));
    out.println("  agent: CPU ms per cycle by thread: " + (shares.isEmpty() ? "none" : shares));
  }

  /** Writes one simulated IB node's sysfs to {@code target}; returns the node's name. */
  static String writeNodeTree(Path target) throws IOException {
    Instant start = Instant.parse("2025-01-23T17:07:40Z");
    FabricSimulator simulator =
        new FabricSimulator(SimulatorConfig.infiniband("bench", 1, 42L, start));
    simulator.advanceTo(start.plusSeconds(10));
    String node = simulator.nodes().get(0);
    SysfsSnapshot.write(simulator.nodeTree(node), "", target);
    return node;
  }

  private static Path writeConfig(Path dir, String bootstrap, Path sysfs, String node)
      throws IOException {
    String yaml =
        String.join(
            "\n",
            "cluster: bench",
            "node: " + node,
            "kafka:",
            "  bootstrap.servers: " + bootstrap,
            "  compression.type: zstd",
            "  linger.ms: 50",
            "schema.registry.url: mock://bench-agent",
            "sources:",
            "  sysfs:",
            "    interval: 1s",
            "    root: " + sysfs,
            "    include: \"" + HCA_INCLUDE + "\"",
            "  ethtool:",
            "    enabled: false",
            "  gpu:",
            "    enabled: false",
            "  kmsg:",
            "    enabled: false",
            "");
    Path config = dir.resolve("collector.yaml");
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    return config;
  }

  private Process start(Path config, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(settings.javaOptions());
    command.add("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.fabricpulse.avro");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("io.fabricpulse.app.FabricPulse");
    command.add("collect");
    command.add("--config");
    command.add(config.toString());
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void stop(Process agent) throws InterruptedException {
    agent.destroy(); // SIGTERM: the agent flushes and exits
    if (!agent.waitFor(60, TimeUnit.SECONDS)) {
      agent.destroyForcibly().waitFor();
    }
  }

  private static void sleepWatching(Process agent, Duration time, String phase, Path log)
      throws InterruptedException, Failed {
    if (agent.waitFor(time.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new Failed(
          "the agent exited with "
              + agent.exitValue()
              + " during the "
              + phase
              + " (log "
              + log
              + ")");
    }
  }

  private static Duration cpu(Process agent) throws Failed {
    return agent
        .info()
        .totalCpuDuration()
        .orElseThrow(() -> new Failed("the agent's CPU time is not readable on this system"));
  }

  private static long endOffset(Admin admin, String topic) throws Failed {
    try {
      TopicPartition partition = new TopicPartition(topic, 0);
      return admin
          .listOffsets(Map.of(partition, OffsetSpec.latest()))
          .partitionResult(partition)
          .get(30, TimeUnit.SECONDS)
          .offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failed("interrupted");
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new Failed("could not read the end offset of " + topic + ": " + e.getMessage());
    }
  }

  private static Properties adminConfig(EmbeddedKafkaBroker broker) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    return p;
  }

  /** The {@code key: value kB} lines of /proc/PID/status, numbers only. */
  static final class ProcStatus {
    private ProcStatus() {}

    static Map<String, Long> read(long pid) throws Failed {
      Map<String, Long> values = new java.util.HashMap<>();
      try {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
          int colon = line.indexOf(':');
          if (colon < 0) {
            continue;
          }
          String[] words = line.substring(colon + 1).trim().split("\\s+");
          if (!words[0].isEmpty() && words[0].chars().allMatch(Character::isDigit)) {
            values.put(line.substring(0, colon), Long.parseLong(words[0]));
          }
        }
      } catch (IOException e) {
        throw new Failed("cannot read /proc/" + pid + "/status: " + e.getMessage());
      }
      return values;
    }
  }

  /**
   * CPU ticks (user + system) of every thread of a process by thread name ({@code
   * /proc/PID/task/TID/stat}; numbered names such as {@code GC Thread#0} summed under one name).
   */
  static final class ThreadTicks {
    /** USER_HZ, the unit of the stat file's times: 100 on every Linux architecture we run on. */
    static final double MS_PER_TICK = 10.0;

    private ThreadTicks() {}

    static Map<String, Long> read(long pid) throws Failed {
      Map<String, Long> ticks = new java.util.HashMap<>();
      Path tasks = Path.of("/proc", Long.toString(pid), "task");
      try (java.util.stream.Stream<Path> ids = Files.list(tasks)) {
        for (Path task : ids.toList()) {
          String stat;
          try {
            stat = Files.readString(task.resolve("stat"));
          } catch (IOException gone) {
            continue; // the thread ended between the listing and the read
          }
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          String name = stat.substring(open + 1, close).replaceAll("#?\\d+$", "").trim();
          String[] fields = stat.substring(close + 2).split(" ");
          // after the name: state(3) ... utime(14) stime(15), counted from 1 as in proc(5)
          long used = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
          ticks.merge(name, used, Long::sum);
        }
      } catch (IOException e) {
        throw new Failed("cannot read " + tasks + ": " + e.getMessage());
      }
      return ticks;
    }
  }
}
