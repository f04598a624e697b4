package io.fabricpulse.bridges.config;

import io.fabricpulse.avro.AlertKind;
import io.fabricpulse.avro.Severity;
import io.fabricpulse.bridges.config.BridgeConfig.Language;
import io.fabricpulse.bridges.render.MessageTemplates;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * Reads bridge.yaml. Every problem is reported as {@code file:line: key: what is wrong} (the style
 * of the collector configuration and the rules loader), all of them at once, and nothing is started
 * from a file with any problem. Secrets are never in the file: it names the environment variable or
 * file that holds each one.
 */
public final class BridgeConfigLoader {

  static final Set<String> TOP_KEYS =
      Set.of("language", "zone", "grafana_url", "give_up_after", "templates", "people", "robots");
  static final Set<String> TEMPLATE_KEYS =
      Set.of("firing", "resolved", "digest_firing", "digest_resolved");
  static final Set<String> PERSON_KEYS =
      Set.of("wecom", "dingtalk_user", "dingtalk_mobile", "mobile");
  static final Set<String> ROBOT_KEYS =
      Set.of(
          "name",
          "type",
          "url",
          "key_env",
          "key_file",
          "token_env",
          "token_file",
          "secret_env",
          "secret_file",
          "keyword",
          "message_type",
          "messages_per_minute",
          "quiet_hours",
          "routes");
  static final Set<String> ROUTE_KEYS =
      Set.of("severity", "kind", "cluster", "node", "labels", "mention");
  private static final Pattern ROBOT_NAME = Pattern.compile("[A-Za-z0-9._-]+");
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  /** Both robots allow 20 messages per minute; a higher budget would only earn a lockout. */
  public static final int MAX_MESSAGES_PER_MINUTE = 20;

  private final Path file;
  private final List<String> problems = new ArrayList<>();

  private BridgeConfigLoader(Path file) {
    this.file = file;
  }

  /**
   * Loads and checks {@code file}.
   *
   * @throws BridgeConfigException listing every problem, each naming file, line and key
   */
  public static BridgeConfig load(Path file) throws BridgeConfigException {
    BridgeConfigLoader loader = new BridgeConfigLoader(file);
    BridgeConfig config = loader.read();
    if (!loader.problems.isEmpty()) {
      throw new BridgeConfigException(loader.problems);
    }
    return config;
  }

  /** The file's YAML tree, or null (with the problem noted) when it cannot be read or parsed. */
  private Node compose() {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return new Yaml(new SafeConstructor(new LoaderOptions())).compose(reader);
    } catch (IOException e) {
      problems.add(file + ": cannot read: " + reason(e));
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      String where = mark != null ? file + ":" + (mark.getLine() + 1) : file.toString();
      String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
      problems.add(where + ": not valid YAML: " + problem.replace('\n', ' '));
    } catch (YAMLException e) {
      problems.add(file + ": not valid YAML: " + e.getMessage().replace('\n', ' '));
    }
    return null;
  }

  private BridgeConfig read() {
    Node root = compose();
    if (root == null) {
      return null;
    }
    if (!(root instanceof MappingNode top)) {
      problems.add(
          (root == null ? file.toString() : where(root))
              + ": the file must be a mapping with a robots list");
      return null;
    }
    Map<String, NodeTuple> keys = keys(top, "", TOP_KEYS);
    Language language = Language.ZH;
    NodeTuple t = keys.get("language");
    if (t != null) {
      String text = scalar("language", t.getValueNode());
      if (text != null) {
        try {
          language = Language.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          problems.add(where(t.getValueNode()) + ": language: '" + text + "' is not zh or en");
        }
      }
    }
    ZoneId zone = BridgeConfig.DEFAULT_ZONE;
    t = keys.get("zone");
    if (t != null) {
      String text = scalar("zone", t.getValueNode());
      if (text != null) {
        try {
          zone = ZoneId.of(text);
        } catch (DateTimeException e) {
          problems.add(where(t.getValueNode()) + ": zone: '" + text + "' is not a time zone");
        }
      }
    }
    String grafana = null;
    t = keys.get("grafana_url");
    if (t != null) {
      grafana = httpUrl("grafana_url", t.getValueNode());
    }
    Duration giveUp = BridgeConfig.DEFAULT_GIVE_UP_AFTER;
    t = keys.get("give_up_after");
    if (t != null) {
      Duration d = duration("give_up_after", t.getValueNode());
      giveUp = d != null ? d : giveUp;
    }
    MessageTemplates templates = null;
    t = keys.get("templates");
    if (t != null) {
      String name = scalar("templates", t.getValueNode());
      if (name != null) {
        Path path = file.toAbsolutePath().getParent().resolve(name);
        BridgeConfigLoader loader = new BridgeConfigLoader(path);
        templates = loader.readTemplates(where(t.getValueNode()));
        problems.addAll(loader.problems);
      }
    }
    Map<String, Person> people = new LinkedHashMap<>();
    t = keys.get("people");
    if (t != null) {
      people = people(t.getValueNode());
    }
    List<RobotConfig> robots = new ArrayList<>();
    t = keys.get("robots");
    if (t == null) {
      problems.add(where(top) + ": robots: required (a list of robots)");
    } else {
      robots = robots(t.getValueNode(), people);
    }
    return new BridgeConfig(language, zone, grafana, giveUp, people, robots, templates);
  }

  /**
   * The templates file bridge.yaml names at {@code namedAt}: a mapping of {@code firing} and {@code
   * resolved} (lists of lines) and {@code digest_firing}, {@code digest_resolved} (one line each),
   * every one optional, every placeholder known.
   */
  private MessageTemplates readTemplates(String namedAt) {
    if (!Files.isRegularFile(file)) {
      problems.add(namedAt + ": templates: " + file + ": No such file");
      return null;
    }
    Node root = compose();
    if (root == null) {
      return null;
    }
    if (!(root instanceof MappingNode top)) {
      problems.add(
          where(root)
              + ": the templates file must map firing, resolved, digest_firing, digest_resolved");
      return null;
    }
    Map<String, NodeTuple> keys = keys(top, "", TEMPLATE_KEYS);
    return new MessageTemplates(
        templateLines("firing", keys.get("firing")),
        templateLines("resolved", keys.get("resolved")),
        templateLine("digest_firing", keys.get("digest_firing")),
        templateLine("digest_resolved", keys.get("digest_resolved")));
  }

  private List<String> templateLines(String key, NodeTuple tuple) {
    if (tuple == null) {
      return null;
    }
    if (!(tuple.getValueNode() instanceof SequenceNode seq) || seq.getValue().isEmpty()) {
      problems.add(where(tuple.getValueNode()) + ": " + key + ": must be a list of lines");
      return null;
    }
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < seq.getValue().size(); i++) {
      Node n = seq.getValue().get(i);
      String line = checkedTemplate(key + "[" + i + "]", n);
      if (line != null) {
        lines.add(line);
      }
    }
    return List.copyOf(lines);
  }

  private String templateLine(String key, NodeTuple tuple) {
    return tuple == null ? null : checkedTemplate(key, tuple.getValueNode());
  }

  private String checkedTemplate(String key, Node node) {
    String text = scalar(key, node);
    if (text == null) {
      if (isNull(node)) {
        problems.add(where(node) + ": " + key + ": needs a value");
      }
      return null;
    }
    for (String problem : MessageTemplates.problems(text)) {
      problems.add(where(node) + ": " + key + ": " + problem);
    }
    return text;
  }

  private Map<String, Person> people(Node node) {
    Map<String, Person> people = new LinkedHashMap<>();
    if (!(node instanceof MappingNode map)) {
      problems.add(where(node) + ": people: must map each name to its identities");
      return people;
    }
    for (NodeTuple tuple : map.getValue()) {
      String name = scalar("people", tuple.getKeyNode());
      if (name == null) {
        continue;
      }
      String key = "people." + name;
      if (!(tuple.getValueNode() instanceof MappingNode ids)) {
        problems.add(
            where(tuple.getValueNode()) + ": " + key + ": must be a mapping of identities");
        continue;
      }
      Map<String, NodeTuple> fields = keys(ids, key + ".", PERSON_KEYS);
      String wecom = optionalScalar(key + ".wecom", fields.get("wecom"));
      String user = optionalScalar(key + ".dingtalk_user", fields.get("dingtalk_user"));
      String dingtalkMobile =
          optionalScalar(key + ".dingtalk_mobile", fields.get("dingtalk_mobile"));
      String mobile = optionalScalar(key + ".mobile", fields.get("mobile"));
      if (wecom == null && user == null && dingtalkMobile == null && mobile == null) {
        problems.add(
            where(tuple.getKeyNode())
                + ": "
                + key
                + ": needs at least one of wecom, dingtalk_user, dingtalk_mobile, mobile");
      }
      people.put(name, new Person(name, wecom, user, dingtalkMobile, mobile));
    }
    return people;
  }

  private List<RobotConfig> robots(Node node, Map<String, Person> people) {
    List<RobotConfig> robots = new ArrayList<>();
    if (!(node instanceof SequenceNode list) || list.getValue().isEmpty()) {
      problems.add(where(node) + ": robots: must be a non-empty list of robots");
      return robots;
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < list.getValue().size(); i++) {
      Node item = list.getValue().get(i);
      String key = "robots[" + i + "]";
      if (!(item instanceof MappingNode map)) {
        problems.add(where(item) + ": " + key + ": must be a mapping");
        continue;
      }
      RobotConfig robot = robot(key, map, people);
      if (robot != null) {
        if (!names.add(robot.name())) {
          problems.add(robot.where() + ": " + key + ".name: '" + robot.name() + "' is used twice");
        }
        robots.add(robot);
      }
    }
    return robots;
  }

  private RobotConfig robot(String key, MappingNode map, Map<String, Person> people) {
    Map<String, NodeTuple> f = keys(map, key + ".", ROBOT_KEYS);
    String name = required(key + ".name", f.get("name"), map);
    String typeText = required(key + ".type", f.get("type"), map);
    RobotType type = null;
    if (typeText != null) {
      try {
        type = RobotType.valueOf(typeText.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        problems.add(
            where(f.get("type").getValueNode())
                + ": "
                + key
                + ".type: '"
                + typeText
                + "' is not wecom or dingtalk");
      }
    }
    if (name != null && !ROBOT_NAME.matcher(name).matches()) {
      problems.add(
          where(f.get("name").getValueNode())
              + ": "
              + key
              + ".name: '"
              + name
              + "' must be letters, digits, '.', '_' or '-'");
    }
    if (type == null || name == null) {
      return null;
    }
    String url = type.defaultUrl();
    if (f.containsKey("url")) {
      Node urlNode = f.get("url").getValueNode();
      String raw = urlNode instanceof ScalarNode sn ? sn.getValue() : "";
      if (raw.contains("key=") || raw.contains("access_token=")) {
        // checked first, so that no message ever echoes a URL with a secret in it
        problems.add(
            where(urlNode)
                + ": "
                + key
                + ".url: must not carry the secret; put it in the environment (key_env, token_env)");
      } else {
        String u = httpUrl(key + ".url", urlNode);
        if (u != null) {
          url = u;
        }
      }
    }
    String secretName = type == RobotType.WECOM ? "key" : "token";
    for (String other :
        type == RobotType.WECOM
            ? List.of("token_env", "token_file", "secret_env", "secret_file", "keyword")
            : List.of("key_env", "key_file", "message_type")) {
      if (f.containsKey(other)) {
        problems.add(
            where(f.get(other).getKeyNode())
                + ": "
                + key
                + "."
                + other
                + ": not a setting of a "
                + type.configName()
                + " robot");
      }
    }
    SecretRef secret = secretRef(key, secretName, f);
    if (secret == null) {
      problems.add(
          where(map)
              + ": "
              + key
              + ": needs "
              + secretName
              + "_env or "
              + secretName
              + "_file (the "
              + (type == RobotType.WECOM ? "webhook key" : "access token")
              + " is never written in bridge.yaml)");
    }
    SecretRef sign = type == RobotType.DINGTALK ? secretRef(key, "secret", f) : null;
    String keyword = optionalScalar(key + ".keyword", f.get("keyword"));
    boolean text = false;
    String messageType = optionalScalar(key + ".message_type", f.get("message_type"));
    if (messageType != null) {
      if (messageType.equals("text")) {
        text = true;
      } else if (!messageType.equals("markdown")) {
        problems.add(
            where(f.get("message_type").getValueNode())
                + ": "
                + key
                + ".message_type: '"
                + messageType
                + "' is not markdown or text");
      }
    }
    int perMinute = MAX_MESSAGES_PER_MINUTE;
    if (f.containsKey("messages_per_minute")) {
      Node v = f.get("messages_per_minute").getValueNode();
      String s = scalar(key + ".messages_per_minute", v);
      if (s != null) {
        try {
          perMinute = Integer.parseInt(s);
          if (perMinute < 1 || perMinute > MAX_MESSAGES_PER_MINUTE) {
            problems.add(
                where(v)
                    + ": "
                    + key
                    + ".messages_per_minute: "
                    + perMinute
                    + " is outside 1.."
                    + MAX_MESSAGES_PER_MINUTE
                    + " (the robots lock out above 20 a minute)");
          }
        } catch (NumberFormatException e) {
          problems.add(where(v) + ": " + key + ".messages_per_minute: '" + s + "' is not a number");
        }
      }
    }
    QuietHours quiet = null;
    if (f.containsKey("quiet_hours")) {
      quiet = quietHours(key + ".quiet_hours", f.get("quiet_hours").getValueNode());
    }
    List<Route> routes = new ArrayList<>();
    if (!f.containsKey("routes")) {
      problems.add(where(map) + ": " + key + ".routes: required (a list; [{}] takes every alert)");
    } else {
      Node r = f.get("routes").getValueNode();
      if (!(r instanceof SequenceNode seq) || seq.getValue().isEmpty()) {
        problems.add(where(r) + ": " + key + ".routes: must be a non-empty list of routes");
      } else {
        for (int i = 0; i < seq.getValue().size(); i++) {
          Route route = route(key + ".routes[" + i + "]", seq.getValue().get(i), people);
          if (route != null) {
            routes.add(route);
          }
        }
      }
    }
    return new RobotConfig(
        name, type, url, secret, sign, keyword, text, perMinute, routes, quiet, where(map));
  }

  private SecretRef secretRef(String key, String secret, Map<String, NodeTuple> f) {
    String env = optionalScalar(key + "." + secret + "_env", f.get(secret + "_env"));
    String path = optionalScalar(key + "." + secret + "_file", f.get(secret + "_file"));
    if (env != null && path != null) {
      problems.add(
          where(f.get(secret + "_file").getKeyNode())
              + ": "
              + key
              + "."
              + secret
              + "_file: give "
              + secret
              + "_env or "
              + secret
              + "_file, not both");
      return null;
    }
    if (env != null) {
      return new SecretRef(
          env,
          null,
          where(f.get(secret + "_env").getKeyNode()) + ": " + key + "." + secret + "_env");
    }
    if (path != null) {
      Path p = Path.of(path);
      return new SecretRef(
          null,
          p.isAbsolute() ? p : file.toAbsolutePath().resolveSibling(p),
          where(f.get(secret + "_file").getKeyNode()) + ": " + key + "." + secret + "_file");
    }
    return null;
  }

  private QuietHours quietHours(String key, Node node) {
    if (!(node instanceof MappingNode map)) {
      problems.add(where(node) + ": " + key + ": must be {from: \"HH:MM\", to: \"HH:MM\"}");
      return null;
    }
    Map<String, NodeTuple> f = keys(map, key + ".", Set.of("from", "to"));
    LocalTime from = time(key + ".from", required(key + ".from", f.get("from"), map), map);
    LocalTime to = time(key + ".to", required(key + ".to", f.get("to"), map), map);
    return from != null && to != null ? new QuietHours(from, to) : null;
  }

  private LocalTime time(String key, String text, Node at) {
    if (text == null) {
      return null;
    }
    try {
      return LocalTime.parse(text);
    } catch (DateTimeParseException e) {
      problems.add(where(at) + ": " + key + ": '" + text + "' is not a time of day (HH:MM)");
      return null;
    }
  }

  private Route route(String key, Node node, Map<String, Person> people) {
    if (!(node instanceof MappingNode map)) {
      problems.add(where(node) + ": " + key + ": must be a mapping (or {} for every alert)");
      return null;
    }
    Map<String, NodeTuple> f = keys(map, key + ".", ROUTE_KEYS);
    Set<Severity> severities = EnumSet.noneOf(Severity.class);
    for (Item s : list(key + ".severity", f.get("severity"))) {
      try {
        severities.add(Severity.valueOf(s.text().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        problems.add(
            s.where()
                + ": "
                + key
                + ".severity: '"
                + s.text()
                + "' is not INFO, WARNING or CRITICAL");
      }
    }
    Set<AlertKind> kinds = EnumSet.noneOf(AlertKind.class);
    for (Item k : list(key + ".kind", f.get("kind"))) {
      try {
        kinds.add(AlertKind.valueOf(k.text().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        problems.add(k.where() + ": " + key + ".kind: '" + k.text() + "' is not an alert kind");
      }
    }
    Set<String> clusters = new LinkedHashSet<>();
    list(key + ".cluster", f.get("cluster")).forEach(c -> clusters.add(c.text()));
    List<String> nodes = new ArrayList<>();
    list(key + ".node", f.get("node")).forEach(n -> nodes.add(n.text()));
    Map<String, String> labels = new LinkedHashMap<>();
    NodeTuple l = f.get("labels");
    if (l != null) {
      if (!(l.getValueNode() instanceof MappingNode lm)) {
        problems.add(where(l.getValueNode()) + ": " + key + ".labels: must map label to value");
      } else {
        for (NodeTuple lt : lm.getValue()) {
          String name = scalar(key + ".labels", lt.getKeyNode());
          String value = scalar(key + ".labels." + name, lt.getValueNode());
          if (name != null && value != null) {
            labels.put(name, value);
          }
        }
      }
    }
    List<Person> mention = new ArrayList<>();
    for (Item m : list(key + ".mention", f.get("mention"))) {
      Person p = people.get(m.text());
      if (p == null) {
        problems.add(m.where() + ": " + key + ".mention: '" + m.text() + "' is not one of people");
      } else {
        mention.add(p);
      }
    }
    return new Route(
        Set.copyOf(severities),
        Set.copyOf(kinds),
        Set.copyOf(clusters),
        List.copyOf(nodes),
        Map.copyOf(labels),
        List.copyOf(mention));
  }

  private record Item(String text, String where) {}

  /** A scalar or a list of scalars, as items with their lines. */
  private List<Item> list(String key, NodeTuple tuple) {
    List<Item> items = new ArrayList<>();
    if (tuple == null) {
      return items;
    }
    Node node = tuple.getValueNode();
    if (node instanceof SequenceNode seq) {
      for (Node n : seq.getValue()) {
        String text = scalar(key, n);
        if (text != null) {
          items.add(new Item(text, where(n)));
        }
      }
    } else {
      String text = scalar(key, node);
      if (text != null) {
        items.add(new Item(text, where(node)));
      }
    }
    return items;
  }

  /** The entries of a mapping by key; unknown and repeated keys are problems. */
  private Map<String, NodeTuple> keys(MappingNode map, String prefix, Set<String> known) {
    Map<String, NodeTuple> found = new LinkedHashMap<>();
    for (NodeTuple tuple : map.getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode k)) {
        problems.add(where(tuple.getKeyNode()) + ": keys must be plain names");
        continue;
      }
      String name = k.getValue();
      if (!known.contains(name)) {
        problems.add(
            where(k)
                + ": "
                + prefix
                + name
                + ": unknown key (known: "
                + String.join(", ", sorted(known))
                + ")");
      } else if (found.put(name, tuple) != null) {
        problems.add(where(k) + ": " + prefix + name + ": given twice");
      }
    }
    return found;
  }

  private static List<String> sorted(Set<String> names) {
    return names.stream().sorted().toList();
  }

  private String required(String key, NodeTuple tuple, Node parent) {
    if (tuple == null) {
      problems.add(where(parent) + ": " + key + ": required");
      return null;
    }
    String text = scalar(key, tuple.getValueNode());
    if (text == null && isNull(tuple.getValueNode())) {
      problems.add(where(tuple.getValueNode()) + ": " + key + ": needs a value");
    }
    return text;
  }

  private String optionalScalar(String key, NodeTuple tuple) {
    return tuple == null ? null : scalar(key, tuple.getValueNode());
  }

  private String httpUrl(String key, Node node) {
    String text = scalar(key, node);
    if (text == null) {
      return null;
    }
    try {
      URI uri = new URI(text);
      if (uri.getHost() == null
          || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        problems.add(where(node) + ": " + key + ": '" + text + "' is not an http(s):// URL");
        return null;
      }
    } catch (URISyntaxException e) {
      problems.add(where(node) + ": " + key + ": '" + text + "' is not a URL: " + e.getReason());
      return null;
    }
    return text;
  }

  private Duration duration(String key, Node node) {
    String text = scalar(key, node);
    if (text == null) {
      return null;
    }
    Matcher m = DURATION.matcher(text.trim());
    if (!m.matches()) {
      problems.add(where(node) + ": " + key + ": '" + text + "' is not a duration (90s, 30m, 2h)");
      return null;
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  private String scalar(String key, Node node) {
    if (node instanceof ScalarNode s) {
      return isNull(node) ? null : s.getValue();
    }
    problems.add(where(node) + ": " + key + ": expected a single value");
    return null;
  }

  private static boolean isNull(Node node) {
    return node instanceof ScalarNode s
        && node.getTag().getValue().endsWith(":null")
        && (s.getValue().isEmpty() || s.getValue().equals("~") || s.getValue().equals("null"));
  }

  private String where(Node node) {
    return file + ":" + (node.getStartMark().getLine() + 1);
  }

  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "No such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "Permission denied";
    }
    return e.getMessage();
  }
}
