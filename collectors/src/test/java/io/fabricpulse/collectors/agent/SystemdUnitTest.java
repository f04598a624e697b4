package io.fabricpulse.collectors.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent's systemd unit: accepted by {@code systemd-analyze verify}, and hardened as the
 * README says: not root, no new privileges, the one capability a source needs (CAP_SYSLOG for
 * /dev/kmsg), a read-only file system and /sys, a device allow-list, a memory limit.
 */
class SystemdUnitTest {

  private static final Path UNIT = Path.of("fabricpulse-collect.service");

  @TempDir Path dir;

  @Test
  void theUnitIsHardened() throws Exception {
    Map<String, List<String>> service = section("Service");
    expect(service, "DynamicUser", "yes");
    expect(service, "NoNewPrivileges", "yes");
    expect(service, "ProtectSystem", "strict");
    expect(service, "ProtectKernelTunables", "yes");
    expect(service, "ReadOnlyPaths", "/sys");
    expect(service, "CapabilityBoundingSet", "CAP_SYSLOG");
    expect(service, "AmbientCapabilities", "CAP_SYSLOG");
    expect(service, "DevicePolicy", "closed");
    expect(service, "MemoryMax", "256M");
    assertTrue(service.get("DeviceAllow").contains("/dev/kmsg r"), service.toString());
    assertTrue(!service.containsKey("User") || !service.get("User").contains("root"));
    String exec = String.join(" ", service.get("ExecStart"));
    assertTrue(exec.contains(" collect --config /etc/fabricpulse/collector.yaml"), exec);
  }

  @Test
  void systemdAnalyzeVerifiesTheUnit() throws Exception {
    // verify resolves ExecStart's binary: this checkout's java stands in for /usr/bin/java
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    String text =
        Files.readString(UNIT, StandardCharsets.UTF_8).replace("/usr/bin/java", java.toString());
    Path copy = Files.writeString(dir.resolve(UNIT.getFileName()), text);
    Process p =
        new ProcessBuilder("systemd-analyze", "verify", copy.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "systemd-analyze did not finish");
    assertEquals(0, p.exitValue(), out);
    assertTrue(!out.contains(copy.getFileName().toString()), "warnings about the unit:\n" + out);
  }

  private static void expect(Map<String, List<String>> section, String key, String value) {
    assertEquals(List.of(value), section.get(key), key);
  }

  /** The settings of one [section]: key -> values in order (continuation lines joined). */
  private static Map<String, List<String>> section(String name) throws Exception {
    Map<String, List<String>> settings = new LinkedHashMap<>();
    boolean in = false;
    String pending = null;
    for (String raw : Files.readAllLines(UNIT, StandardCharsets.UTF_8)) {
      String line = pending == null ? raw.strip() : pending + " " + raw.strip();
      pending = null;
      if (line.endsWith("\\")) {
        pending = line.substring(0, line.length() - 1).strip();
        continue;
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("[")) {
        in = line.equals("[" + name + "]");
        continue;
      }
      if (in) {
        int eq = line.indexOf('=');
        settings
            .computeIfAbsent(line.substring(0, eq), k -> new ArrayList<>())
            .add(line.substring(eq + 1));
      }
    }
    return settings;
  }
}
