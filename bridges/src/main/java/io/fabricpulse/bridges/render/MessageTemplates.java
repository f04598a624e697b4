package io.fabricpulse.bridges.render;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Message templates from the file bridge.yaml's {@code templates} names: each one given replaces
 * the built-in template of the configured language, the others stay built in (null here). Templates
 * hold text and {@code {placeholder}}s ({@link #PLACEHOLDERS}, or {@code {label.NAME}} for any
 * alert label). A line of {@code firing} or {@code resolved} with a placeholder the alert has no
 * value for is left out (so "**Peer**: {peer}" shows only when the topology is known); in a digest
 * line such a placeholder is empty.
 *
 * @param firing the lines of a single FIRING page
 * @param resolved the lines of a single RESOLVED notice
 * @param digestFiring a FIRING alert's line in a digest
 * @param digestResolved a RESOLVED alert's line in a digest
 */
public record MessageTemplates(
    List<String> firing, List<String> resolved, String digestFiring, String digestResolved) {

  /** Every placeholder a template may use, besides {@code label.NAME}. */
  public static final Set<String> PLACEHOLDERS =
      Set.of(
          "title",
          "severity",
          "kind",
          "state",
          "cluster",
          "node",
          "subject",
          "peer",
          "summary",
          "value",
          "started",
          "since",
          "resolved",
          "lasted",
          "zone",
          "links");

  public static final String LABEL_PREFIX = "label.";

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^{}]*)}");

  /**
   * What is wrong with one template, one problem per entry: an unknown placeholder, or a brace that
   * opens or closes none.
   */
  public static List<String> problems(String template) {
    List<String> problems = new ArrayList<>();
    Matcher m = PLACEHOLDER.matcher(template);
    int last = 0;
    while (m.find()) {
      checkBraces(template.substring(last, m.start()), problems);
      String name = m.group(1);
      if (!PLACEHOLDERS.contains(name)
          && !(name.startsWith(LABEL_PREFIX) && name.length() > LABEL_PREFIX.length())) {
        problems.add(
            "unknown placeholder {"
                + name
                + "} (known: "
                + String.join(", ", new TreeSet<>(PLACEHOLDERS))
                + ", label.NAME)");
      }
      last = m.end();
    }
    checkBraces(template.substring(last), problems);
    return problems;
  }

  private static void checkBraces(String text, List<String> problems) {
    if (text.indexOf('{') >= 0 || text.indexOf('}') >= 0) {
      problems.add("a '{' or '}' that is not part of a {placeholder}");
    }
  }

  /**
   * The template with every placeholder replaced, or null when one has no value and {@code
   * dropWhenMissing} (a missing one is empty otherwise).
   */
  static String fill(String template, Map<String, String> values, boolean dropWhenMissing) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value = values.get(m.group(1));
      if (value == null || value.isEmpty()) {
        if (dropWhenMissing) {
          return null;
        }
        value = "";
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }
}
