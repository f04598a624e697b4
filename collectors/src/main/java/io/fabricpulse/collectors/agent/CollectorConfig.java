package io.fabricpulse.collectors.agent;

import io.fabricpulse.collectors.core.IoReason;
import io.fabricpulse.collectors.nccl.NcclLogTailer;
import io.fabricpulse.collectors.publish.RecordPublisher;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The node agent's settings. Precedence, lowest first: built-in defaults &lt; the YAML file &lt;
 * environment ({@code FABRICPULSE_<KEY>} for every option, the key upper-cased with '.' as '_',
 * e.g. {@code FABRICPULSE_SOURCES_SYSFS_INTERVAL}; {@code KAFKA_<NAME>} for any Kafka producer
 * setting, e.g. {@code KAFKA_BOOTSTRAP_SERVERS}) &lt; command-line overrides. Everything is
 * validated when loaded, without network, and every problem is reported as {@code file:line: key:
 * what is wrong} (or {@code env NAME: ...}, {@code cli: ...}).
 *
 * <p>Options (every one is shown in {@code collectors/collector.yaml}):
 *
 * <ul>
 *   <li>{@code cluster}, {@code node} (default: the host name), {@code proc_root} (/proc)
 *   <li>{@code kafka:} a map passed to the producer as is (bootstrap.servers, security.protocol,
 *       sasl.*, ssl.*, compression.type ...); {@code enable.idempotence} and {@code acks} are
 *       forced to true and all
 *   <li>{@code schema.registry.url}, {@code buffer.records} (bound of each topic's buffer)
 *   <li>{@code sources.<name>.enabled} and {@code .interval} for each {@link SourceKind}, plus the
 *       source options listed in {@link #OPTIONS}
 * </ul>
 */
public final class CollectorConfig {
  public static final String ENV_PREFIX = "FABRICPULSE_";
  public static final String KAFKA_ENV_PREFIX = "KAFKA_";

  /**
   * {@code FABRICPULSE_*} variables that other fabricpulse commands read (the demo's robot secrets,
   * the query API's token), so not typos of an agent option: a shell that exported them for the
   * demo still runs the agent.
   */
  public static final java.util.Set<String> OTHER_COMMANDS_VARIABLES =
      java.util.Set.of(
          "FABRICPULSE_WECOM_KEY",
          "FABRICPULSE_DINGTALK_TOKEN",
          "FABRICPULSE_DINGTALK_SECRET",
          "FABRICPULSE_DINGTALK_KEYWORD",
          "FABRICPULSE_QUERY_TOKEN");

  public static final String KAFKA = "kafka";

  public static final String CLUSTER = "cluster";
  public static final String NODE = "node";
  public static final String PROC_ROOT = "proc_root";
  public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
  public static final String BUFFER_RECORDS = "buffer.records";
  public static final String SYSFS_ROOT = SourceKind.SYSFS.key("root");
  public static final String SYSFS_INCLUDE = SourceKind.SYSFS.key("include");
  public static final String SYSFS_EXCLUDE = SourceKind.SYSFS.key("exclude");
  public static final String ETHTOOL_COMMAND = SourceKind.ETHTOOL.key("command");
  public static final String ETHTOOL_TIMEOUT = SourceKind.ETHTOOL.key("timeout");
  public static final String ETHTOOL_NETDEVS = SourceKind.ETHTOOL.key("netdevs");
  public static final String GPU_COMMAND = SourceKind.GPU.key("command");
  public static final String GPU_TIMEOUT = SourceKind.GPU.key("timeout");
  public static final String KMSG_DEVICE = SourceKind.KMSG.key("device");
  public static final String KMSG_JOURNALCTL = SourceKind.KMSG.key("journalctl");
  public static final String SMINFO_COMMAND = SourceKind.SMINFO.key("command");
  public static final String SMINFO_ARGS = SourceKind.SMINFO.key("args");
  public static final String SMINFO_TIMEOUT = SourceKind.SMINFO.key("timeout");
  public static final String OPENSM_LOG = SourceKind.OPENSM.key("log");
  public static final String OPENSM_ZONE = SourceKind.OPENSM.key("zone");
  public static final String NCCL_GLOBS = SourceKind.NCCL.key("globs");
  public static final String NCCL_JOB_REGEX = SourceKind.NCCL.key("job_regex");
  public static final String FABRIC_TOOL = SourceKind.FABRIC.key("tool");
  public static final String FABRIC_COMMAND = SourceKind.FABRIC.key("command");
  public static final String FABRIC_ARGS = SourceKind.FABRIC.key("args");
  public static final String FABRIC_TIMEOUT = SourceKind.FABRIC.key("timeout");
  public static final String FABRIC_IBDIAGNET_DIR = SourceKind.FABRIC.key("ibdiagnet_dir");

  public static final String LLDP_COMMAND = SourceKind.LLDP.key("command");
  public static final String LLDP_TIMEOUT = SourceKind.LLDP.key("timeout");

  /** {@code host} (the links of its RoCE netdevs) or {@code switch} (its cables to switches). */
  public static final String LLDP_ROLE = SourceKind.LLDP.key("role");

  /** The switch-port counter sweep's perfquery; null (~) for topology only. */
  public static final String FABRIC_PERFQUERY = SourceKind.FABRIC.key("perfquery");

  /**
   * The fabric source's shortest interval: one ibnetdiscover or iblinkinfo sweep sends SMPs
   * (NodeInfo, PortInfo, ...) to every node and port of the fabric through the SM's port.
   */
  public static final Duration FABRIC_MIN_INTERVAL = Duration.ofMinutes(1);

  /** Kinds of option values and how their text is read. */
  enum Type {
    STRING,
    INT,
    BOOLEAN,
    DURATION,
    PATH,
    REGEX,
    ZONE,
    LIST
  }

  /** One known option: its type and default (null = unset). */
  record Option(Type type, Object defaultValue) {}

  /** Every option by key, in documentation order. */
  static final Map<String, Option> OPTIONS = options();

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");
  private static final Pattern SECRET = Pattern.compile("(?i)password|secret|jaas|user\\.info|key");

  private final Map<String, Object> values;
  private final Map<String, String> kafka;

  private CollectorConfig(Map<String, Object> values, Map<String, String> kafka) {
    this.values = Collections.unmodifiableMap(values);
    this.kafka = Collections.unmodifiableMap(kafka);
  }

  private static Map<String, Option> options() {
    Map<String, Option> o = new LinkedHashMap<>();
    o.put(CLUSTER, new Option(Type.STRING, "default"));
    o.put(NODE, new Option(Type.STRING, null));
    o.put(PROC_ROOT, new Option(Type.PATH, Path.of("/proc")));
    o.put(SCHEMA_REGISTRY_URL, new Option(Type.STRING, null));
    o.put(BUFFER_RECORDS, new Option(Type.INT, RecordPublisher.DEFAULT_BUFFER_RECORDS));
    for (SourceKind kind : SourceKind.values()) {
      o.put(kind.key("enabled"), new Option(Type.BOOLEAN, kind.enabledByDefault()));
      o.put(kind.key("interval"), new Option(Type.DURATION, kind.defaultInterval()));
      switch (kind) {
        case SYSFS -> {
          o.put(SYSFS_ROOT, new Option(Type.PATH, Path.of("/sys")));
          o.put(SYSFS_INCLUDE, new Option(Type.REGEX, null));
          o.put(SYSFS_EXCLUDE, new Option(Type.REGEX, null));
        }
        case ETHTOOL -> {
          o.put(ETHTOOL_COMMAND, new Option(Type.STRING, "ethtool"));
          o.put(ETHTOOL_TIMEOUT, new Option(Type.DURATION, Duration.ofSeconds(5)));
          o.put(ETHTOOL_NETDEVS, new Option(Type.LIST, List.of()));
        }
        case GPU -> {
          o.put(GPU_COMMAND, new Option(Type.STRING, "nvidia-smi"));
          o.put(GPU_TIMEOUT, new Option(Type.DURATION, Duration.ofSeconds(8)));
        }
        case KMSG -> {
          o.put(KMSG_DEVICE, new Option(Type.PATH, Path.of("/dev/kmsg")));
          o.put(KMSG_JOURNALCTL, new Option(Type.STRING, "journalctl"));
        }
        case SMINFO -> {
          o.put(SMINFO_COMMAND, new Option(Type.STRING, "sminfo"));
          o.put(SMINFO_ARGS, new Option(Type.LIST, List.of()));
          o.put(SMINFO_TIMEOUT, new Option(Type.DURATION, Duration.ofSeconds(5)));
        }
        case OPENSM -> {
          o.put(OPENSM_LOG, new Option(Type.PATH, Path.of("/var/log/opensm.log")));
          o.put(OPENSM_ZONE, new Option(Type.ZONE, null));
        }
        case NCCL -> {
          o.put(NCCL_GLOBS, new Option(Type.LIST, List.of()));
          o.put(NCCL_JOB_REGEX, new Option(Type.REGEX, null));
        }
        case FABRIC -> {
          o.put(FABRIC_TOOL, new Option(Type.STRING, "ibnetdiscover"));
          o.put(FABRIC_COMMAND, new Option(Type.STRING, null));
          o.put(FABRIC_ARGS, new Option(Type.LIST, List.of()));
          o.put(FABRIC_TIMEOUT, new Option(Type.DURATION, Duration.ofMinutes(2)));
          o.put(FABRIC_IBDIAGNET_DIR, new Option(Type.PATH, null));
          o.put(FABRIC_PERFQUERY, new Option(Type.STRING, "perfquery"));
        }
        case LLDP -> {
          o.put(LLDP_COMMAND, new Option(Type.STRING, "lldpcli"));
          o.put(LLDP_TIMEOUT, new Option(Type.DURATION, Duration.ofSeconds(5)));
          o.put(LLDP_ROLE, new Option(Type.STRING, "host"));
        }
      }
    }
    return Collections.unmodifiableMap(o);
  }

  /** Every option key, in documentation order. */
  public static Set<String> optionKeys() {
    return OPTIONS.keySet();
  }

  /** The built-in defaults only. */
  public static CollectorConfig defaults() {
    try {
      return load(null, Map.of(), Map.of());
    } catch (ConfigException e) {
      throw new IllegalStateException("built-in defaults are invalid", e);
    }
  }

  /**
   * Defaults, then {@code file} (null for none), then {@code env} (pass {@code System.getenv()}),
   * then {@code overrides} (key to text, from the command line; {@code kafka.<name>} sets a Kafka
   * setting).
   *
   * @throws ConfigException listing every problem found
   */
  public static CollectorConfig load(
      Path file, Map<String, String> env, Map<String, String> overrides) throws ConfigException {
    Loader loader = new Loader();
    if (file != null) {
      loader.readFile(file);
    }
    loader.readEnv(env);
    overrides.forEach((key, text) -> loader.set("cli", key, text));
    loader.validate();
    if (!loader.problems.isEmpty()) {
      throw new ConfigException(loader.problems);
    }
    return new CollectorConfig(loader.values, loader.kafka);
  }

  public String cluster() {
    return (String) values.get(CLUSTER);
  }

  /** The configured node name, or null to use the host name. */
  public String node() {
    return (String) values.get(NODE);
  }

  public Path procRoot() {
    return path(PROC_ROOT);
  }

  public String schemaRegistryUrl() {
    return (String) values.get(SCHEMA_REGISTRY_URL);
  }

  public int bufferRecords() {
    return (Integer) values.get(BUFFER_RECORDS);
  }

  public boolean enabled(SourceKind kind) {
    return (Boolean) values.get(kind.key("enabled"));
  }

  public Duration interval(SourceKind kind) {
    return duration(kind.key("interval"));
  }

  /** The Kafka settings as given (no secrets are logged from here: see {@link #describe()}). */
  public Map<String, String> kafka() {
    return kafka;
  }

  /** What {@link RecordPublisher} takes: the Kafka settings plus {@code schema.registry.url}. */
  public Properties producerProperties() {
    Properties properties = new Properties();
    properties.putAll(kafka);
    if (schemaRegistryUrl() != null) {
      properties.setProperty(SCHEMA_REGISTRY_URL, schemaRegistryUrl());
    }
    return properties;
  }

  /** The daemon needs somewhere to publish; {@code collect --once} does not. */
  public void requireKafka() throws ConfigException {
    List<String> problems = new ArrayList<>();
    if (!kafka.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
      problems.add("kafka.bootstrap.servers: required to publish (or KAFKA_BOOTSTRAP_SERVERS)");
    }
    if (schemaRegistryUrl() == null) {
      problems.add("schema.registry.url: required to publish (or FABRICPULSE_SCHEMA_REGISTRY_URL)");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }

  public String string(String key) {
    return (String) values.get(known(key));
  }

  public Duration duration(String key) {
    return (Duration) values.get(known(key));
  }

  public Path path(String key) {
    return (Path) values.get(known(key));
  }

  /** A regex option, or null when unset. */
  public Pattern pattern(String key) {
    return (Pattern) values.get(known(key));
  }

  public ZoneId zone(String key) {
    return (ZoneId) values.get(known(key));
  }

  @SuppressWarnings("unchecked")
  public List<String> list(String key) {
    return (List<String>) values.get(known(key));
  }

  /** Every effective setting, one per line, secrets masked: for the start-up log. */
  public String describe() {
    StringBuilder text = new StringBuilder();
    values.forEach(
        (key, value) -> {
          if (value != null) {
            text.append(key).append('=').append(value).append('\n');
          }
        });
    new TreeMap<>(kafka)
        .forEach(
            (key, value) ->
                text.append("kafka.")
                    .append(key)
                    .append('=')
                    .append(SECRET.matcher(key).find() ? "****" : value)
                    .append('\n'));
    return text.toString();
  }

  private static String known(String key) {
    if (!OPTIONS.containsKey(key)) {
      throw new IllegalArgumentException("not a collector option: " + key);
    }
    return key;
  }

  /** The environment variable that sets an option. */
  public static String envName(String key) {
    return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_');
  }

  /** Builds the layered values and collects problems. */
  private static final class Loader {
    final Map<String, Object> values = new LinkedHashMap<>();
    final Map<String, String> kafka = new LinkedHashMap<>();
    final Map<String, String> origins = new LinkedHashMap<>();
    final List<String> problems = new ArrayList<>();

    Loader() {
      OPTIONS.forEach((key, option) -> values.put(key, option.defaultValue()));
    }

    void readFile(Path file) {
      Node root;
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(reader);
      } catch (IOException e) {
        problems.add(file + ": cannot read: " + IoReason.of(e));
        return;
      } catch (MarkedYAMLException e) {
        Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        String where = mark != null ? file + ":" + (mark.getLine() + 1) : file.toString();
        String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
        problems.add(where + ": not valid YAML: " + problem.replace('\n', ' '));
        return;
      } catch (YAMLException e) {
        problems.add(file + ": not valid YAML: " + e.getMessage().replace('\n', ' '));
        return;
      }
      if (root == null) {
        return; // an empty file is all defaults
      }
      if (!(root instanceof MappingNode mapping)) {
        problems.add(where(file, root) + ": the file must be a mapping of options");
        return;
      }
      readMapping(file, "", mapping);
    }

    private void readMapping(Path file, String prefix, MappingNode mapping) {
      for (NodeTuple tuple : mapping.getValue()) {
        if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
          problems.add(where(file, tuple.getKeyNode()) + ": keys must be plain names");
          continue;
        }
        String key = prefix + keyNode.getValue();
        Node value = tuple.getValueNode();
        String at = where(file, keyNode);
        if (key.equals(KAFKA)) {
          readKafka(file, value);
        } else if (key.startsWith(KAFKA + ".")) {
          setKafka(at, key.substring(KAFKA.length() + 1), scalar(file, key, value));
        } else if (value instanceof MappingNode nested) {
          if (OPTIONS.keySet().stream().noneMatch(k -> k.startsWith(key + "."))) {
            problems.add(at + ": " + key + ": unknown section");
          } else {
            readMapping(file, key + ".", nested);
          }
        } else if (value instanceof SequenceNode sequence) {
          List<String> items = new ArrayList<>();
          for (Node item : sequence.getValue()) {
            String text = scalar(file, key, item);
            if (text != null) {
              items.add(text);
            }
          }
          setValue(at, key, items);
        } else {
          String text = scalar(file, key, value);
          if (text != null || isNull(value)) {
            setText(at, key, text);
          }
        }
      }
    }

    private void readKafka(Path file, Node value) {
      if (isNull(value)) {
        return;
      }
      if (!(value instanceof MappingNode mapping)) {
        problems.add(where(file, value) + ": kafka: must be a map of producer settings");
        return;
      }
      for (NodeTuple tuple : mapping.getValue()) {
        Node keyNode = tuple.getKeyNode();
        String name = keyNode instanceof ScalarNode s ? s.getValue() : null;
        if (name == null) {
          problems.add(where(file, keyNode) + ": kafka: keys must be plain names");
          continue;
        }
        setKafka(where(file, keyNode), name, scalar(file, "kafka." + name, tuple.getValueNode()));
      }
    }

    private String scalar(Path file, String key, Node node) {
      if (node instanceof ScalarNode s) {
        return isNull(node) ? null : s.getValue();
      }
      problems.add(where(file, node) + ": " + key + ": expected a single value");
      return null;
    }

    private static boolean isNull(Node node) {
      return node instanceof ScalarNode s
          && node.getTag().getValue().endsWith(":null")
          && (s.getValue().isEmpty() || s.getValue().equals("~") || s.getValue().equals("null"));
    }

    private static String where(Path file, Node node) {
      return file + ":" + (node.getStartMark().getLine() + 1);
    }

    void readEnv(Map<String, String> env) {
      Set<String> producerKeys = ProducerConfig.configNames();
      for (Map.Entry<String, String> entry : new TreeMap<>(env).entrySet()) {
        String name = entry.getKey();
        if (name.startsWith(KAFKA_ENV_PREFIX)) {
          // KAFKA_SASL_JAAS_CONFIG -> sasl.jaas.config; other KAFKA_* (KAFKA_HOME, KAFKA_OPTS)
          // are not producer settings and are left alone.
          String key =
              name.substring(KAFKA_ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.');
          if (producerKeys.contains(key)) {
            setKafka("env " + name, key, entry.getValue());
          }
        }
      }
      Map<String, String> keyByEnvName = new LinkedHashMap<>();
      OPTIONS.keySet().forEach(key -> keyByEnvName.put(envName(key), key));
      for (String name : new TreeMap<>(env).keySet()) {
        // a typo must not be ignored: --set with the same typo is refused too
        if (name.startsWith(ENV_PREFIX)
            && !keyByEnvName.containsKey(name)
            && !OTHER_COMMANDS_VARIABLES.contains(name)) {
          problems.add("env " + name + ": unknown option (" + ENV_PREFIX + "<KEY> sets an option)");
        }
      }
      keyByEnvName.forEach(
          (name, key) -> {
            String value = env.get(name);
            if (value != null) {
              setText("env " + name, key, value);
            }
          });
    }

    void set(String at, String key, String text) {
      if (key.startsWith(KAFKA + ".")) {
        setKafka(at, key.substring(KAFKA.length() + 1), text);
      } else {
        setText(at, key, text);
      }
    }

    private void setKafka(String at, String name, String value) {
      if (value == null) {
        problems.add(at + ": kafka." + name + ": needs a value");
      } else {
        kafka.put(name, value);
        origins.put(KAFKA + "." + name, at);
      }
    }

    private void setText(String at, String key, String text) {
      Option option = OPTIONS.get(key);
      if (option == null) {
        problems.add(at + ": " + key + ": unknown option");
        return;
      }
      if (text == null) {
        setValue(at, key, option.type() == Type.LIST ? List.of() : null);
        return;
      }
      Object value = convert(at, key, option.type(), text.strip());
      if (value != null) {
        setValue(at, key, value);
      }
    }

    private void setValue(String at, String key, Object value) {
      Option option = OPTIONS.get(key);
      if (option == null) {
        problems.add(at + ": " + key + ": unknown option");
        return;
      }
      if (value instanceof List<?> && option.type() != Type.LIST) {
        problems.add(at + ": " + key + ": expected a single value, not a list");
        return;
      }
      values.put(key, value);
      origins.put(key, at);
    }

    private Object convert(String at, String key, Type type, String text) {
      try {
        return switch (type) {
          case STRING -> text;
          case PATH -> Path.of(text);
          case INT -> Integer.parseInt(text);
          case BOOLEAN -> bool(text);
          case DURATION -> duration(text);
          case REGEX -> text.isEmpty() ? null : Pattern.compile(text);
          case ZONE -> ZoneId.of(text);
          case LIST -> list(text);
        };
      } catch (NumberFormatException e) {
        problems.add(at + ": " + key + ": '" + text + "' is not a whole number");
      } catch (PatternSyntaxException e) {
        problems.add(at + ": " + key + ": not a regular expression: " + e.getDescription());
      } catch (java.time.DateTimeException e) {
        problems.add(
            at + ": " + key + ": '" + text + "' is not a time zone (e.g. UTC, Asia/Shanghai)");
      } catch (IllegalArgumentException e) {
        problems.add(at + ": " + key + ": " + e.getMessage());
      }
      return null;
    }

    /** {@code a,b} or, as the file writes it, {@code [a, b]}. */
    private static List<String> list(String text) {
      String items =
          text.startsWith("[") && text.endsWith("]")
              ? text.substring(1, text.length() - 1).strip()
              : text;
      return items.isEmpty() ? List.of() : List.of(items.split("\\s*,\\s*"));
    }

    private static Boolean bool(String text) {
      return switch (text.toLowerCase(Locale.ROOT)) {
        case "true", "yes", "on" -> true;
        case "false", "no", "off" -> false;
        default -> throw new IllegalArgumentException("'" + text + "' is not true or false");
      };
    }

    private static Duration duration(String text) {
      Matcher m = DURATION.matcher(text.toLowerCase(Locale.ROOT));
      if (!m.matches()) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a duration (examples: 500ms, 1s, 10s, 5m)");
      }
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }

    void validate() {
      for (SourceKind kind : SourceKind.values()) {
        String key = kind.key("interval");
        Duration interval = (Duration) values.get(key);
        if (interval != null && interval.toMillis() < 100) {
          problems.add(origin(key) + ": " + key + ": must be at least 100ms, got " + interval);
        }
      }
      validateFabric();
      Object role = values.get(LLDP_ROLE);
      if (!List.of("host", "switch").contains(role)) {
        problems.add(
            origin(LLDP_ROLE) + ": " + LLDP_ROLE + ": must be host or switch, got '" + role + "'");
      }
      for (String key :
          List.of(ETHTOOL_TIMEOUT, GPU_TIMEOUT, SMINFO_TIMEOUT, FABRIC_TIMEOUT, LLDP_TIMEOUT)) {
        Duration timeout = (Duration) values.get(key);
        if (timeout != null && timeout.isZero()) {
          problems.add(origin(key) + ": " + key + ": must be more than 0");
        }
      }
      Integer buffer = (Integer) values.get(BUFFER_RECORDS);
      if (buffer != null && buffer < 1) {
        problems.add(origin(BUFFER_RECORDS) + ": " + BUFFER_RECORDS + ": must be at least 1");
      }
      String cluster = (String) values.get(CLUSTER);
      if (cluster == null || cluster.isBlank() || cluster.contains("/")) {
        problems.add(origin(CLUSTER) + ": cluster: must be a non-empty name without '/'");
      }
      String node = (String) values.get(NODE);
      if (node != null && (node.isBlank() || node.contains("/"))) {
        problems.add(origin(NODE) + ": node: must be a non-empty name without '/'");
      }
      for (Object glob : (List<?>) values.get(NCCL_GLOBS)) {
        String problem = NcclLogTailer.problem(glob.toString());
        if (problem != null) {
          problems.add(origin(NCCL_GLOBS) + ": " + NCCL_GLOBS + ": " + problem);
        }
      }
      if (Boolean.TRUE.equals(values.get(SourceKind.NCCL.key("enabled")))
          && ((List<?>) values.get(NCCL_GLOBS)).isEmpty()) {
        problems.add(
            origin(SourceKind.NCCL.key("enabled"))
                + ": sources.nccl.globs: the nccl source is enabled but has no globs");
      }
    }

    /** The fabric source: a known tool, a sweep at most every minute, within its interval. */
    private void validateFabric() {
      Object tool = values.get(FABRIC_TOOL);
      if (!List.of("ibnetdiscover", "iblinkinfo").contains(tool)) {
        problems.add(
            origin(FABRIC_TOOL)
                + ": "
                + FABRIC_TOOL
                + ": must be ibnetdiscover or iblinkinfo, got '"
                + tool
                + "'");
      }
      if (!Boolean.TRUE.equals(values.get(SourceKind.FABRIC.key("enabled")))) {
        return;
      }
      String intervalKey = SourceKind.FABRIC.key("interval");
      Duration interval = (Duration) values.get(intervalKey);
      if (interval != null && interval.compareTo(FABRIC_MIN_INTERVAL) < 0) {
        problems.add(
            origin(intervalKey)
                + ": "
                + intervalKey
                + ": must be at least 1m (each sweep queries every port of the fabric), got "
                + interval);
      }
      Duration timeout = (Duration) values.get(FABRIC_TIMEOUT);
      if (interval != null && timeout != null && timeout.compareTo(interval) > 0) {
        problems.add(
            origin(FABRIC_TIMEOUT)
                + ": "
                + FABRIC_TIMEOUT
                + ": must not exceed "
                + intervalKey
                + " ("
                + interval
                + "), got "
                + timeout);
      }
    }

    private String origin(String key) {
      return origins.getOrDefault(key, "defaults");
    }
  }
}
