package io.fabricpulse.app.cli;

import io.fabricpulse.collectors.agent.CollectorAgent;
import io.fabricpulse.collectors.agent.CollectorConfig;
import io.fabricpulse.collectors.agent.ConfigException;
import io.fabricpulse.collectors.agent.KafkaRecordOutput;
import io.fabricpulse.collectors.agent.RecordOutput;
import io.fabricpulse.collectors.agent.SourceKind;
import io.fabricpulse.collectors.agent.SourceTask;
import io.fabricpulse.collectors.agent.SourceTasks;
import io.fabricpulse.collectors.core.NodeFacts;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fabricpulse collect}: the node agent. Without {@code --once} it runs until SIGTERM or
 * Ctrl-C, then flushes to Kafka and exits; with {@code --once --output json} it runs every enabled
 * source once and prints the records as JSON lines, without Kafka.
 */
@Command(
    name = "collect",
    mixinStandardHelpOptions = true,
    description = {
      "Run the node agent: sample sysfs, ethtool, nvidia-smi, the kernel log, the SM and NCCL logs",
      "and publish to Kafka (until SIGTERM), or print one cycle as JSON lines with --once.",
      "Settings: defaults < --config file < FABRICPULSE_*/KAFKA_* environment < these options."
    })
public final class CollectCommand implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(CollectCommand.class);
  static final int EXIT_CONFIG = 2;

  /** Output formats of {@code --once}. */
  public enum Output {
    json
  }

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "collector.yaml (see collectors/collector.yaml)")
  Path config;

  @Option(names = "--once", description = "Run every enabled source once, print the records, exit")
  boolean once;

  @Option(
      names = "--output",
      defaultValue = "json",
      description = "Output of --once: ${COMPLETION-CANDIDATES}")
  Output output;

  @Option(names = "--cluster", description = "Overrides 'cluster'")
  String cluster;

  @Option(names = "--node", description = "Overrides 'node'")
  String node;

  @Option(
      names = "--sysfs-root",
      paramLabel = "DIR",
      description = "Overrides 'sources.sysfs.root'")
  Path sysfsRoot;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Overrides any option, e.g. --set sources.gpu.enabled=false --set kafka.linger.ms=20")
  Map<String, String> settings = new LinkedHashMap<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The process environment; tests replace it. */
  Map<String, String> environment = System.getenv();

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    CollectorConfig loaded;
    try {
      loaded = CollectorConfig.load(config, environment, overrides());
      if (!once) {
        loaded.requireKafka();
      }
    } catch (ConfigException e) {
      e.problems().forEach(err::println);
      err.flush();
      return EXIT_CONFIG;
    }
    NodeFacts facts = new NodeFacts(loaded.procRoot());
    NodeIdentity identity = SourceTasks.identity(loaded, facts);
    Clock clock = Clock.systemUTC();
    List<SourceTask> tasks = SourceTasks.fromConfig(loaded, identity, facts, clock.instant());
    return once ? runOnce(identity, tasks, clock) : runDaemon(loaded, identity, tasks, clock);
  }

  private Map<String, String> overrides() {
    Map<String, String> overrides = new LinkedHashMap<>(settings);
    if (cluster != null) {
      overrides.put(CollectorConfig.CLUSTER, cluster);
    }
    if (node != null) {
      overrides.put(CollectorConfig.NODE, node);
    }
    if (sysfsRoot != null) {
      overrides.put(CollectorConfig.SYSFS_ROOT, sysfsRoot.toString());
    }
    return overrides;
  }

  private int runOnce(NodeIdentity identity, List<SourceTask> tasks, Clock clock) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (CollectorAgent agent = new CollectorAgent(identity, tasks, NO_OUTPUT, clock)) {
      List<SpecificRecord> records = agent.collectOnce();
      for (SpecificRecord record : records) {
        out.println(JsonRecords.toJson(record));
      }
      for (SourceTask task : agent.tasks()) {
        SourceKind kind = task.kind();
        if (agent.malformed(kind) > 0) {
          err.println(
              kind.section()
                  + ": "
                  + agent.malformed(kind)
                  + " malformed or unreadable input(s) skipped");
        }
      }
    }
    out.flush();
    err.flush();
    return 0;
  }

  private int runDaemon(
      CollectorConfig loaded, NodeIdentity identity, List<SourceTask> tasks, Clock clock)
      throws InterruptedException {
    LOG.info(
        "fabricpulse collect on {} (boot {})\n{}",
        identity.key(),
        identity.bootId(),
        loaded.describe());
    CollectorAgent agent =
        new CollectorAgent(identity, tasks, KafkaRecordOutput.forConfig(loaded), clock);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              LOG.info("stopping: flushing to Kafka");
              agent.close();
              stopped.countDown();
            },
            "fabricpulse-collect-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    agent.start();
    stopped.await();
    return 0;
  }

  private static final RecordOutput NO_OUTPUT =
      new RecordOutput() {
        @Override
        public void publish(NodeIdentity identity, List<SpecificRecord> records) {}

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
}
