package io.fabricpulse.collectors.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration reference of the node agent lists every key of {@link CollectorConfig}
 * with its built-in default, in the code's order, and nothing else: it cannot drift from the code.
 */
class ReadmeConfigurationReferenceTest {
  static final String HEADING = "### Configuration reference: collector.yaml";
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (.*?) \\|$");

  @Test
  void theReadmeListsEveryCollectorKeyWithItsDefault() throws Exception {
    Map<String, String> expected = new LinkedHashMap<>();
    CollectorConfig.OPTIONS.forEach((key, option) -> expected.put(key, text(option)));
    Map<String, String> documented = new LinkedHashMap<>();
    for (String line : section(Files.readAllLines(Path.of("../README.md")))) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        documented.put(m.group(1), m.group(2));
      }
    }
    assertTrue(!documented.isEmpty(), "no table under " + HEADING + " in README.md");
    assertEquals(rows(expected), rows(documented));
  }

  /** The lines of the README's collector reference, up to the next heading. */
  private static List<String> section(List<String> readme) {
    List<String> lines = new ArrayList<>();
    boolean in = false;
    for (String line : readme) {
      if (line.startsWith("#")) {
        in = line.equals(HEADING);
        continue;
      }
      if (in) {
        lines.add(line);
      }
    }
    return lines;
  }

  private static String rows(Map<String, String> table) {
    StringBuilder s = new StringBuilder();
    table.forEach((k, v) -> s.append("| `").append(k).append("` | ").append(v).append(" |\n"));
    return s.toString();
  }

  /** A default as the README writes it: `value` in code style, or "(none)". */
  static String text(CollectorConfig.Option option) {
    Object v = option.defaultValue();
    if (v == null) {
      return "(none)";
    }
    if (v instanceof Duration d) {
      return "`" + duration(d) + "`";
    }
    if (v instanceof List<?> list) {
      return "`[" + String.join(", ", list.stream().map(Object::toString).toList()) + "]`";
    }
    return "`" + v + "`";
  }

  private static String duration(Duration d) {
    if (d.toMillis() % 3_600_000 == 0) {
      return d.toHours() + "h";
    }
    if (d.toMillis() % 60_000 == 0) {
      return d.toMinutes() + "m";
    }
    if (d.toMillis() % 1000 == 0) {
      return d.toSeconds() + "s";
    }
    return d.toMillis() + "ms";
  }
}
