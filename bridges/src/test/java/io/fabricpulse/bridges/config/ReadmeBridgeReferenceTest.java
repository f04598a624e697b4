package io.fabricpulse.bridges.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's bridge.yaml reference lists every key the loader knows and nothing else, and the
 * defaults it states are what the loader really applies to a bridge.yaml that leaves them out.
 */
class ReadmeBridgeReferenceTest {
  static final String HEADING = "### Configuration reference: bridge.yaml";
  private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| (.*?) \\|.*$");

  @TempDir Path dir;

  private static Map<String, String> documented() throws Exception {
    Map<String, String> rows = new LinkedHashMap<>();
    boolean in = false;
    for (String line : Files.readAllLines(Path.of("../README.md"))) {
      if (line.startsWith("#")) {
        in = line.equals(HEADING);
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (in && m.matches()) {
        rows.put(m.group(1), m.group(2));
      }
    }
    assertFalse(rows.isEmpty(), "no table under " + HEADING + " in README.md");
    return rows;
  }

  @Test
  void everyKeyOfTheLoaderIsListedAndNoOther() throws Exception {
    Set<String> keys = new TreeSet<>();
    BridgeConfigLoader.TOP_KEYS.forEach(keys::add);
    BridgeConfigLoader.PERSON_KEYS.forEach(k -> keys.add("people.NAME." + k));
    BridgeConfigLoader.ROBOT_KEYS.forEach(k -> keys.add("robots[]." + k));
    BridgeConfigLoader.ROUTE_KEYS.forEach(k -> keys.add("robots[].routes[]." + k));
    BridgeConfigLoader.TEMPLATE_KEYS.forEach(k -> keys.add("TEMPLATES." + k));
    assertEquals(keys, new TreeSet<>(documented().keySet()));
  }

  @Test
  void theDocumentedDefaultsAreTheLoadersDefaults() throws Exception {
    Path file = dir.resolve("bridge.yaml");
    Files.writeString(
        file,
        "robots:\n"
            + "  - {name: w, type: wecom, key_env: K, routes: [{}]}\n"
            + "  - {name: d, type: dingtalk, token_env: T, routes: [{}]}\n");
    BridgeConfig c = BridgeConfigLoader.load(file);
    Map<String, String> doc = documented();
    assertEquals(
        BridgeConfig.Language.valueOf(code(doc.get("language")).toUpperCase(Locale.ROOT)),
        c.language());
    assertEquals(ZoneId.of(code(doc.get("zone"))), c.zone());
    assertEquals(duration(code(doc.get("give_up_after"))), c.giveUpAfter());
    for (RobotConfig r : c.robots()) {
      assertEquals(
          Integer.parseInt(code(doc.get("robots[].messages_per_minute"))), r.messagesPerMinute());
      assertTrue(doc.get("robots[].url").contains("`" + r.url() + "` (" + r.type().configName()));
      assertEquals(r.type().defaultUrl(), r.url());
      assertTrue(r.quiet().isEmpty());
    }
    assertEquals("markdown", code(doc.get("robots[].message_type")));
    assertFalse(c.robotsOf(RobotType.WECOM).get(0).wecomText());
    assertEquals(null, c.grafanaUrl());
    assertEquals(null, c.templates());
    assertEquals("(none)", doc.get("grafana_url"));
    assertEquals("(none)", doc.get("templates"));
  }

  /** The first `code` span of a default cell. */
  private static String code(String cell) {
    Matcher m = Pattern.compile("`([^`]+)`").matcher(cell);
    assertTrue(m.find(), "no default in '" + cell + "'");
    return m.group(1);
  }

  private static Duration duration(String text) {
    List<String> units = new ArrayList<>(List.of("h", "m", "s"));
    for (String u : units) {
      if (text.endsWith(u)) {
        long n = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (u) {
          case "h" -> Duration.ofHours(n);
          case "m" -> Duration.ofMinutes(n);
          default -> Duration.ofSeconds(n);
        };
      }
    }
    throw new AssertionError("not a duration: " + text);
  }
}
