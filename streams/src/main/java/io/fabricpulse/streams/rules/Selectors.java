package io.fabricpulse.streams.rules;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Which subjects a rule applies to. Every field is optional (null = any). {@code node}, {@code
 * device} and {@code netdev} are globs ({@code *}, {@code ?}); {@code cluster} is exact; {@code
 * priorities} lists PFC priorities. A subject field that is null (e.g. no priority on a node-level
 * alert) matches any selector.
 */
public record Selectors(
    String cluster, String node, String device, String netdev, List<Integer> priorities) {

  public static final Selectors ANY = new Selectors(null, null, null, null, null);

  public Selectors {
    priorities = priorities == null ? null : List.copyOf(priorities);
  }

  public boolean matches(
      String subjectCluster,
      String subjectNode,
      String subjectDevice,
      String subjectNetdev,
      Integer subjectPriority) {
    return (cluster == null || subjectCluster == null || cluster.equals(subjectCluster))
        && globMatches(node, subjectNode)
        && globMatches(device, subjectDevice)
        && globMatches(netdev, subjectNetdev)
        && (priorities == null || subjectPriority == null || priorities.contains(subjectPriority));
  }

  /** Compiled globs: rules hold a handful, matched against every record. */
  private static final Map<String, Pattern> COMPILED = new ConcurrentHashMap<>();

  private static boolean globMatches(String glob, String value) {
    return glob == null
        || value == null
        || COMPILED.computeIfAbsent(glob, Selectors::globToRegex).matcher(value).matches();
  }

  static Pattern globToRegex(String glob) {
    StringBuilder regex = new StringBuilder();
    for (char c : glob.toCharArray()) {
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }
}
