package io.fabricpulse.app.cli;

import io.fabricpulse.app.run.KafkaCredentialsCheck;
import io.fabricpulse.collectors.agent.CollectorAgent;
import io.fabricpulse.collectors.agent.CollectorConfig;
import io.fabricpulse.collectors.agent.ConfigException;
import io.fabricpulse.collectors.agent.KafkaRecordOutput;
import io.fabricpulse.collectors.agent.SourceKind;
import io.fabricpulse.collectors.agent.SourceTask;
import io.fabricpulse.collectors.agent.SourceTasks;
import io.fabricpulse.collectors.core.Malformed;
import io.fabricpulse.collectors.core.NodeFacts;
import io.fabricpulse.collectors.core.NodeIdentity;
import io.fabricpulse.collectors.core.ParseResult;
import io.fabricpulse.schemas.json.JsonRecords;
import java.io.PrintWriter;
import java.nio.file.Files;
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
 * source once and prints the records as JSON lines, without Kafka, and says per source what it read
 * or why it could not.
 */
@Command(
    name = "collect",
    mixinStandardHelpOptions = true,
    description = {
      "Run the node agent, or with --once print one collection cycle as JSON lines.",
      "",
      "Samples sysfs, ethtool, nvidia-smi, the kernel log, the SM and NCCL logs and",
      "publishes to Kafka until SIGTERM; --once prints one cycle without Kafka.",
      "Settings, lowest first: defaults < --config file < FABRICPULSE_<KEY> and",
      "KAFKA_<NAME> environment < these options. collectors/collector.yaml shows every",
      "option with its default; a bad value stops with file:line: key: problem, and",
      "an unknown FABRICPULSE_* variable is refused like an unknown --set key."
    },
    footerHeading = "%nExamples:%n",
    footer = {
      "  fabricpulse collect --once",
      "  fabricpulse collect --once --set sources.gpu.enabled=false",
      "  fabricpulse collect --once --sysfs-root /tmp/sysfs-capture",
      "  fabricpulse collect --config /etc/fabricpulse/collector.yaml"
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:--once: every enabled source was read; daemon: stopped by SIGTERM",
      "1:--once: some sources failed or skipped malformed input (named on stderr)",
      "2:a bad option or configuration; --once: no source gave anything; daemon: Kafka",
      "  refused the credentials or its TLS certificate is not trusted"
    })
public final class CollectCommand implements Callable<Integer> {
  static final int EXIT_CONFIG = ExitCodes.USAGE;
  private static final int PROBLEM_CHARS = 300;

  /** Read when --config is not given and it exists, as the systemd unit installs it. */
  static final Path DEFAULT_CONFIG = Path.of("/etc/fabricpulse/collector.yaml");

  private static final Logger LOG = LoggerFactory.getLogger(CollectCommand.class);

  /** Output formats of {@code --once}. */
  public enum Output {
    json
  }

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = {
        "The settings file (default:",
        "/etc/fabricpulse/collector.yaml when it exists,",
        "else the built-in defaults)."
      })
  Path config;

  @Option(names = "--once", description = "Run every enabled source once, print the records, exit.")
  boolean once;

  @Option(
      names = "--output",
      defaultValue = "json",
      description = "Output of --once: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Output output;

  @Option(
      names = "--cluster",
      paramLabel = "NAME",
      description = "Sets 'cluster' (default: default).")
  String cluster;

  @Option(
      names = "--node",
      paramLabel = "NAME",
      description = "Sets 'node' (default: the host name).")
  String node;

  @Option(
      names = "--sysfs-root",
      paramLabel = "DIR",
      description = "Sets 'sources.sysfs.root' (default: /sys).")
  Path sysfsRoot;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = {
        "Sets any option, e.g. --set sources.gpu.enabled=false;",
        "lists as a,b or [a, b]; kafka.<name> sets a producer setting."
      })
  Map<String, String> settings = new LinkedHashMap<>();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** How long the daemon's start waits for Kafka to accept or refuse the credentials. */
  static final java.time.Duration CREDENTIALS_WAIT = java.time.Duration.ofSeconds(10);

  private final CountDownLatch stopped = new CountDownLatch(1);
  private CollectorAgent agent;

  /** The process environment; tests replace it. */
  Map<String, String> environment = System.getenv();

  /** The file read without --config; tests replace it. */
  Path defaultConfig = DEFAULT_CONFIG;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Path file = config != null ? config : Files.isRegularFile(defaultConfig) ? defaultConfig : null;
    CollectorConfig loaded;
    try {
      loaded = CollectorConfig.load(file, environment, overrides());
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
    return once ? runOnce(loaded, tasks, clock) : runDaemon(loaded, identity, tasks, clock);
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

  /**
   * One cycle of every source, printed; one stderr line per source with what it gave, so a source
   * that read nothing says so (a missing sysfs root, a tool that is not installed).
   */
  private int runOnce(CollectorConfig loaded, List<SourceTask> tasks, Clock clock) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    int records = 0;
    int failedSources = 0;
    for (SourceTask task : tasks) {
      String section = task.kind().section();
      ParseResult<SpecificRecord> result;
      try {
        result = task.collect(clock.instant());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Exception | LinkageError e) {
        failedSources++;
        err.println(section + ": failed: " + (e.getMessage() != null ? e.getMessage() : e));
        close(task);
        continue;
      }
      close(task);
      result.records().forEach(r -> out.println(JsonRecords.toJson(r)));
      records += result.records().size();
      List<Malformed> malformed = result.malformed();
      String problem = malformed.isEmpty() ? emptySysfsRoot(loaded, task, result) : null;
      if (!malformed.isEmpty() || problem != null) {
        failedSources++;
      }
      err.println(section + ": " + summary(result, problem));
    }
    out.flush();
    err.flush();
    if (failedSources == 0) {
      return ExitCodes.OK;
    }
    return records == 0 ? ExitCodes.USAGE : ExitCodes.PARTIAL;
  }

  /** {@code 4 records}, {@code 0 records, 2 skipped: nvidia-smi: ... (and 1 more)}. */
  private static String summary(ParseResult<SpecificRecord> result, String problem) {
    List<Malformed> malformed = result.malformed();
    String text = result.records().size() + " records";
    if (problem != null) {
      return text + ": " + problem;
    }
    if (malformed.isEmpty()) {
      return text;
    }
    String first = malformed.get(0).toString();
    if (first.length() > PROBLEM_CHARS) {
      first = first.substring(0, PROBLEM_CHARS) + "...";
    }
    return text
        + ", "
        + malformed.size()
        + " skipped: "
        + first
        + (malformed.size() > 1 ? " (and " + (malformed.size() - 1) + " more)" : "");
  }

  /** Why sysfs gave no port: its root has no class/infiniband (null when it gave ports). */
  private static String emptySysfsRoot(
      CollectorConfig loaded, SourceTask task, ParseResult<SpecificRecord> result) {
    Path root = loaded.path(CollectorConfig.SYSFS_ROOT);
    if (task.kind() != SourceKind.SYSFS || !result.records().isEmpty()) {
      return null;
    }
    Path devices = root.resolve("class/infiniband");
    return Files.isDirectory(devices)
        ? devices + " lists no device (none matched include/exclude?)"
        : "no " + devices + " (no RDMA device, or a wrong --sysfs-root)";
  }

  private static void close(SourceTask task) {
    try {
      task.close();
    } catch (Exception e) {
      LOG.warn("closing source {}: {}", task.kind().section(), e.toString());
    }
  }

  private int runDaemon(
      CollectorConfig loaded, NodeIdentity identity, List<SourceTask> tasks, Clock clock)
      throws InterruptedException {
    LOG.info(
        "fabricpulse collect on {} (boot {})\n{}",
        identity.key(),
        identity.bootId(),
        loaded.describe());
    // wrong credentials would have every record refused and dropped: stop before collecting
    KafkaCredentialsCheck.verify(loaded.producerProperties(), CREDENTIALS_WAIT);
    Thread hook = new Thread(this::stop, "fabricpulse-collect-shutdown");
    synchronized (this) {
      if (stopped.getCount() == 0) {
        return 0; // stopped while checking
      }
      agent = new CollectorAgent(identity, tasks, KafkaRecordOutput.forConfig(loaded), clock);
      Runtime.getRuntime().addShutdownHook(hook);
      agent.start();
    }
    stopped.await();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is what stopped us
    }
    return 0;
  }

  /** What SIGTERM does: flush to Kafka, close the agent, and let the command return. */
  synchronized void stop() {
    if (agent != null && stopped.getCount() > 0) {
      LOG.info("stopping: flushing to Kafka");
      agent.close();
    }
    stopped.countDown();
  }
}
