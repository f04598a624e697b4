package io.fabricpulse.streams.rules;

import io.fabricpulse.avro.Severity;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Parses one rule file through snakeyaml's node graph (not object binding) so every problem can be
 * reported with the line of the offending key or value: {@code file:line: key: problem}.
 */
final class RuleFileParser {

  static final Set<String> RULE_KEYS =
      Set.of(
          "id",
          "detector",
          "severity",
          "thresholds",
          "hysteresis",
          "selectors",
          "labels",
          "enabled",
          "source",
          "description");
  static final Set<String> SELECTOR_KEYS =
      Set.of("cluster", "node", "device", "netdev", "priority");

  private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]*");
  private static final Pattern SOURCE = Pattern.compile("(\\[[A-Za-z0-9][A-Za-z0-9.-]*\\])+");

  /** A rule as found in the file; {@code rule} is null when the rule has problems. */
  record ParsedRule(String id, String idLocation, Rule rule) {}

  record Result(List<ParsedRule> rules, List<String> problems) {}

  private final String file;
  private final List<String> problems = new ArrayList<>();

  RuleFileParser(String file) {
    this.file = file;
  }

  Result parse(String text) {
    List<ParsedRule> rules = new ArrayList<>();
    Node root;
    try {
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(true); // reported below with their line
      options.setMaxAliasesForCollections(10);
      root = new Yaml(options).compose(new StringReader(text));
    } catch (MarkedYAMLException e) {
      int line = e.getProblemMark() == null ? 1 : e.getProblemMark().getLine() + 1;
      problems.add(file + ":" + line + ": not valid YAML: " + e.getProblem());
      return new Result(rules, problems);
    } catch (YAMLException e) {
      problems.add(file + ":1: not valid YAML: " + e.getMessage());
      return new Result(rules, problems);
    }
    if (!(root instanceof MappingNode top)) {
      problems.add(file + ":1: rules: missing (a rule file is a map with a 'rules:' list)");
      return new Result(rules, problems);
    }
    Map<String, NodeTuple> entries = entries(top, "");
    for (Map.Entry<String, NodeTuple> e : entries.entrySet()) {
      if (!e.getKey().equals("rules")) {
        problem(e.getValue().getKeyNode(), e.getKey(), "unknown key (expected 'rules')");
      }
    }
    NodeTuple rulesEntry = entries.get("rules");
    if (rulesEntry == null) {
      problem(top, "rules", "missing");
    } else if (!(rulesEntry.getValueNode() instanceof SequenceNode list)) {
      problem(rulesEntry.getValueNode(), "rules", "must be a list of rules");
    } else {
      for (Node ruleNode : list.getValue()) {
        parseRule(ruleNode).ifPresent(rules::add);
      }
    }
    return new Result(rules, problems);
  }

  private Optional<ParsedRule> parseRule(Node node) {
    if (!(node instanceof MappingNode map)) {
      problem(node, "rules[]", "each rule must be a map, got " + describe(node));
      return Optional.empty();
    }
    int before = problems.size();
    Map<String, NodeTuple> entries = entries(map, "");
    for (Map.Entry<String, NodeTuple> e : entries.entrySet()) {
      if (!RULE_KEYS.contains(e.getKey())) {
        problem(
            e.getValue().getKeyNode(),
            e.getKey(),
            "unknown key (expected one of " + sorted(RULE_KEYS) + ")");
      }
    }
    String id = null;
    String idLocation = location(map);
    Node idNode = value(entries, "id");
    if (idNode == null) {
      problem(map, "id", "missing");
    } else {
      idLocation = location(idNode);
      String text = string(idNode, "id");
      if (text != null && !ID.matcher(text).matches()) {
        problem(idNode, "id", "must match " + ID.pattern() + ", got \"" + text + "\"");
      } else {
        id = text;
      }
    }
    Detector detector = null;
    Node detectorNode = value(entries, "detector");
    if (detectorNode == null) {
      problem(map, "detector", "missing");
    } else {
      String text = string(detectorNode, "detector");
      if (text != null) {
        detector = Detector.fromId(text).orElse(null);
        if (detector == null) {
          problem(
              detectorNode,
              "detector",
              "unknown detector \"" + text + "\" (expected one of " + Detector.allIds() + ")");
        }
      }
    }
    Severity severity = null;
    Node severityNode = value(entries, "severity");
    if (severityNode == null) {
      problem(map, "severity", "missing");
    } else {
      String text = string(severityNode, "severity");
      if (text != null) {
        severity =
            Arrays.stream(Severity.values())
                .filter(s -> s.name().equals(text))
                .findFirst()
                .orElse(null);
        if (severity == null) {
          problem(
              severityNode,
              "severity",
              "must be one of INFO, WARNING, CRITICAL, got \"" + text + "\"");
        }
      }
    }
    Thresholds thresholds =
        detector == null ? null : thresholds(detector, value(entries, "thresholds"));
    Duration hysteresis = Rule.DEFAULT_HYSTERESIS;
    Node hysteresisNode = value(entries, "hysteresis");
    if (hysteresisNode != null) {
      hysteresis = duration(hysteresisNode, "hysteresis", Duration.ZERO);
    }
    Selectors selectors = selectors(value(entries, "selectors"));
    Map<String, String> labels = labels(value(entries, "labels"));
    boolean enabled = true;
    Node enabledNode = value(entries, "enabled");
    if (enabledNode != null) {
      if (enabledNode instanceof ScalarNode s && s.getTag().equals(Tag.BOOL)) {
        enabled = Boolean.parseBoolean(s.getValue().toLowerCase());
      } else {
        problem(enabledNode, "enabled", "must be true or false, got " + describe(enabledNode));
      }
    }
    String source = "";
    Node sourceNode = value(entries, "source");
    if (sourceNode != null) {
      String text = string(sourceNode, "source");
      if (text != null && !SOURCE.matcher(text.replace(" ", "")).matches()) {
        problem(
            sourceNode,
            "source",
            "must be source keys of docs/thresholds.md like \"[SONIC-pfcwd][K-pfcstall]\", got \""
                + text
                + "\"");
      } else if (text != null) {
        source = text;
      }
    }
    String description = "";
    Node descriptionNode = value(entries, "description");
    if (descriptionNode != null) {
      String text = string(descriptionNode, "description");
      description = text == null ? "" : text;
    }
    if (problems.size() > before || id == null) {
      return id == null ? Optional.empty() : Optional.of(new ParsedRule(id, idLocation, null));
    }
    Rule rule =
        new Rule(
            id,
            detector,
            severity,
            thresholds,
            hysteresis,
            selectors,
            labels,
            enabled,
            source,
            description,
            location(map));
    return Optional.of(new ParsedRule(id, idLocation, rule));
  }

  private Thresholds thresholds(Detector detector, Node node) {
    ThresholdSchema schema = detector.thresholdSchema();
    Map<String, Object> values = schema.defaults();
    if (node == null) {
      return new Thresholds(values);
    }
    if (!(node instanceof MappingNode map)) {
      problem(node, "thresholds", "must be a map, got " + describe(node));
      return new Thresholds(values);
    }
    for (Map.Entry<String, NodeTuple> e : entries(map, "thresholds.").entrySet()) {
      String key = "thresholds." + e.getKey();
      Optional<ThresholdSpec> spec = schema.spec(e.getKey());
      if (spec.isEmpty()) {
        String expected =
            schema.specs().isEmpty()
                ? "detector " + detector.id() + " takes no thresholds"
                : "expected one of " + String.join(", ", schema.specs().keySet());
        problem(e.getValue().getKeyNode(), key, "unknown threshold (" + expected + ")");
        continue;
      }
      Object value = thresholdValue(spec.get(), e.getValue().getValueNode(), key);
      if (value != null) {
        values.put(e.getKey(), value);
      }
    }
    return new Thresholds(values);
  }

  private Object thresholdValue(ThresholdSpec spec, Node node, String key) {
    return switch (spec.type()) {
      case NUMBER -> {
        Double d = number(node, key);
        yield d != null && inRange(spec, d, node, key) ? d : null;
      }
      case INTEGER -> {
        Long l = integer(node, key);
        yield l != null && inRange(spec, l, node, key) ? l : null;
      }
      case DURATION -> duration(node, key, Duration.ofMillis((long) (spec.min() * 1000)));
      case PRIORITY_LIST -> priorities(node, key);
      case BOOLEAN -> {
        if (node instanceof ScalarNode s && s.getTag().equals(Tag.BOOL)) {
          yield Boolean.parseBoolean(s.getValue().toLowerCase());
        }
        problem(node, key, "must be true or false, got " + describe(node));
        yield null;
      }
      case CHOICE -> {
        String text =
            node instanceof ScalarNode s && s.getTag().equals(Tag.STR) ? s.getValue() : null;
        if (text != null && spec.choices().contains(text)) {
          yield text;
        }
        problem(
            node,
            key,
            "must be one of " + String.join(", ", spec.choices()) + ", got " + describe(node));
        yield null;
      }
    };
  }

  private boolean inRange(ThresholdSpec spec, double v, Node node, String key) {
    if ((spec.min() != null && v < spec.min()) || (spec.max() != null && v > spec.max())) {
      problem(node, key, "must be " + spec.rangeText() + ", got " + scalarText(node));
      return false;
    }
    return true;
  }

  private Selectors selectors(Node node) {
    if (node == null) {
      return Selectors.ANY;
    }
    if (!(node instanceof MappingNode map)) {
      problem(node, "selectors", "must be a map, got " + describe(node));
      return Selectors.ANY;
    }
    Map<String, NodeTuple> entries = entries(map, "selectors.");
    for (Map.Entry<String, NodeTuple> e : entries.entrySet()) {
      if (!SELECTOR_KEYS.contains(e.getKey())) {
        problem(
            e.getValue().getKeyNode(),
            "selectors." + e.getKey(),
            "unknown selector (expected one of " + sorted(SELECTOR_KEYS) + ")");
      }
    }
    List<Integer> priorities = null;
    Node priorityNode = value(entries, "priority");
    if (priorityNode != null) {
      priorities = priorities(priorityNode, "selectors.priority");
    }
    return new Selectors(
        optionalString(entries, "cluster", "selectors.cluster"),
        optionalString(entries, "node", "selectors.node"),
        optionalString(entries, "device", "selectors.device"),
        optionalString(entries, "netdev", "selectors.netdev"),
        priorities);
  }

  private Map<String, String> labels(Node node) {
    Map<String, String> labels = new LinkedHashMap<>();
    if (node == null) {
      return labels;
    }
    if (!(node instanceof MappingNode map)) {
      problem(node, "labels", "must be a map of strings, got " + describe(node));
      return labels;
    }
    for (Map.Entry<String, NodeTuple> e : entries(map, "labels.").entrySet()) {
      Node v = e.getValue().getValueNode();
      if (v instanceof ScalarNode s && !s.getTag().equals(Tag.NULL)) {
        labels.put(e.getKey(), s.getValue());
      } else {
        problem(v, "labels." + e.getKey(), "must be a string, got " + describe(v));
      }
    }
    return labels;
  }

  private List<Integer> priorities(Node node, String key) {
    List<Node> items =
        node instanceof SequenceNode seq
            ? seq.getValue()
            : node == null ? List.of() : List.of(node);
    List<Integer> result = new ArrayList<>();
    boolean ok = true;
    for (Node item : items) {
      Long p = integer(item, key);
      if (p == null) {
        ok = false;
      } else if (p < 0 || p > 7) {
        problem(item, key, "PFC priorities are 0 to 7, got " + p);
        ok = false;
      } else if (!result.contains(p.intValue())) {
        result.add(p.intValue());
      }
    }
    return ok ? List.copyOf(result) : null;
  }

  private Duration duration(Node node, String key, Duration min) {
    if (!(node instanceof ScalarNode s)) {
      problem(node, key, "must be a duration like 200ms, 30s, 10m, got " + describe(node));
      return null;
    }
    if (s.getTag().equals(Tag.INT) || s.getTag().equals(Tag.FLOAT)) {
      problem(node, key, "must be a duration with a unit (ms, s, m, h, d), got " + s.getValue());
      return null;
    }
    Optional<Duration> d = Durations.parse(s.getValue());
    if (d.isEmpty()) {
      problem(node, key, "must be a duration like 200ms, 30s, 10m, got \"" + s.getValue() + "\"");
      return null;
    }
    if (d.get().compareTo(min) < 0) {
      problem(node, key, "must be at least " + Durations.format(min) + ", got " + s.getValue());
      return null;
    }
    return d.get();
  }

  private Double number(Node node, String key) {
    if (node instanceof ScalarNode s
        && (s.getTag().equals(Tag.INT) || s.getTag().equals(Tag.FLOAT))) {
      try {
        double d = Double.parseDouble(s.getValue().replace("_", ""));
        if (Double.isFinite(d)) {
          return d;
        }
      } catch (NumberFormatException e) {
        // falls through to the problem below (e.g. YAML 1.1 sexagesimal or hex forms)
      }
    }
    problem(node, key, "must be a number, got " + describe(node));
    return null;
  }

  private Long integer(Node node, String key) {
    if (node instanceof ScalarNode s && s.getTag().equals(Tag.INT)) {
      try {
        return Long.parseLong(s.getValue().replace("_", ""));
      } catch (NumberFormatException e) {
        // falls through
      }
    }
    problem(node, key, "must be an integer, got " + describe(node));
    return null;
  }

  private String optionalString(Map<String, NodeTuple> entries, String name, String key) {
    Node node = value(entries, name);
    return node == null ? null : string(node, key);
  }

  private String string(Node node, String key) {
    if (node instanceof ScalarNode s && !s.getTag().equals(Tag.NULL) && !s.getValue().isBlank()) {
      return s.getValue();
    }
    problem(node, key, "must be a non-empty string, got " + describe(node));
    return null;
  }

  /** The entries of a map by key text; duplicate and non-scalar keys are reported. */
  private Map<String, NodeTuple> entries(MappingNode map, String prefix) {
    Map<String, NodeTuple> entries = new LinkedHashMap<>();
    Map<String, Integer> firstLine = new HashMap<>();
    for (NodeTuple t : map.getValue()) {
      if (!(t.getKeyNode() instanceof ScalarNode k)) {
        problem(t.getKeyNode(), prefix + "?", "keys must be plain strings");
        continue;
      }
      Integer first = firstLine.putIfAbsent(k.getValue(), line(k));
      if (first != null) {
        problem(k, prefix + k.getValue(), "duplicate key (first at line " + first + ")");
        continue;
      }
      entries.put(k.getValue(), t);
    }
    return entries;
  }

  private static Node value(Map<String, NodeTuple> entries, String key) {
    NodeTuple t = entries.get(key);
    return t == null ? null : t.getValueNode();
  }

  private void problem(Node node, String key, String what) {
    problems.add(location(node) + ": " + key + ": " + what);
  }

  private String location(Node node) {
    return file + ":" + (node == null ? 1 : line(node));
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 1 : node.getStartMark().getLine() + 1;
  }

  private static String describe(Node node) {
    if (node == null) {
      return "nothing";
    }
    if (node instanceof MappingNode) {
      return "a map";
    }
    if (node instanceof SequenceNode) {
      return "a list";
    }
    ScalarNode s = (ScalarNode) node;
    if (s.getTag().equals(Tag.NULL)) {
      return "nothing";
    }
    if (s.getTag().equals(Tag.STR)) {
      return "\"" + s.getValue() + "\"";
    }
    return s.getValue();
  }

  private static String scalarText(Node node) {
    return node instanceof ScalarNode s ? s.getValue() : describe(node);
  }

  private static String sorted(Set<String> keys) {
    return keys.stream().sorted().collect(Collectors.joining(", "));
  }
}
