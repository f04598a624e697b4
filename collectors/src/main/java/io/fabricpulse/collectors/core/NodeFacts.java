package io.fabricpulse.collectors.core;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * What the node says about itself under {@code /proc}: boot id, host name and boot time. The proc
 * root is a parameter so tests point it at a directory of their own.
 */
public final class NodeFacts {
  private final Path procRoot;

  public NodeFacts(Path procRoot) {
    this.procRoot = procRoot;
  }

  public static NodeFacts system() {
    return new NodeFacts(Path.of("/proc"));
  }

  /**
   * {@code sys/kernel/random/boot_id}: a random UUID the kernel draws at every boot, so the rate
   * stage tells a reboot from a counter clear (docs/design.md section 4).
   */
  public String bootId() throws IOException {
    String id = Files.readString(procRoot.resolve("sys/kernel/random/boot_id"), UTF8).strip();
    if (id.isEmpty()) {
      throw new IOException(procRoot.resolve("sys/kernel/random/boot_id") + " is empty");
    }
    return id;
  }

  /**
   * The kernel's host name ({@code sys/kernel/hostname}, what {@code hostname} prints), else the
   * name Java resolves for the local host.
   */
  public String hostname() {
    try {
      String name = Files.readString(procRoot.resolve("sys/kernel/hostname"), UTF8).strip();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException notLinux) {
      // fall through to the JDK's answer
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }

  /**
   * Wall time at boot: {@code now} minus the first field of {@code uptime} (seconds since boot).
   * Turns /dev/kmsg's monotonic stamps into wall time; null when uptime cannot be read.
   */
  public Instant bootTime(Instant now) {
    try {
      String text = Files.readString(procRoot.resolve("uptime"), UTF8).strip();
      String seconds = text.split("\\s+")[0];
      long millis = Math.round(Double.parseDouble(seconds) * 1000);
      return now.minus(Duration.ofMillis(millis));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;
}
