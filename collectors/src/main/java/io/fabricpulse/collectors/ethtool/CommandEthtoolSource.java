package io.fabricpulse.collectors.ethtool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Reads counters by running the {@code ethtool} binary: {@code ethtool -S <netdev>}, no shell.
 *
 * <p>The command's output goes to temporary files rather than pipes, so a driver that prints more
 * than a pipe buffer cannot block the process, and a hung ioctl cannot block the collector: after
 * {@code timeout} the process is killed and {@link #stats} throws. The driver comes from the {@code
 * <sysfsRoot>/class/net/<netdev>/device/driver} symlink (no process needed).
 */
public final class CommandEthtoolSource implements EthtoolSource {
  /**
   * Linux interface names: at most 15 bytes, no '/', no whitespace; we also refuse a leading '-'.
   */
  private static final Pattern NETDEV = Pattern.compile("[A-Za-z0-9_.:@][A-Za-z0-9_.:@-]{0,14}");

  private final String ethtool;
  private final Duration timeout;
  private final Path sysfsRoot;

  /**
   * @param ethtool path or name of the ethtool binary (resolved through PATH), e.g. "ethtool"
   * @param timeout how long one {@code ethtool -S} may run before it is killed
   * @param sysfsRoot usually /sys
   */
  public CommandEthtoolSource(String ethtool, Duration timeout, Path sysfsRoot) {
    this.ethtool = ethtool;
    this.timeout = timeout;
    this.sysfsRoot = sysfsRoot;
  }

  /** {@code ethtool} from PATH, 5 s timeout, /sys. */
  public static CommandEthtoolSource defaults() {
    return new CommandEthtoolSource("ethtool", Duration.ofSeconds(5), Path.of("/sys"));
  }

  /** The argument vector run for a netdev (no shell is involved). */
  public List<String> command(String netdev) {
    requireNetdevName(netdev);
    return List.of(ethtool, "-S", netdev);
  }

  @Override
  public String stats(String netdev) throws IOException {
    List<String> command = command(netdev);
    Path out = Files.createTempFile("fabricpulse-ethtool-", ".out");
    Path err = Files.createTempFile("fabricpulse-ethtool-", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", command) + ": no answer within " + timeout);
      }
      if (process.exitValue() != 0) {
        String reason = Files.readString(err, StandardCharsets.UTF_8).strip();
        throw new IOException(
            String.join(" ", command) + ": exit " + process.exitValue() + ": " + reason);
      }
      return Files.readString(out, StandardCharsets.UTF_8);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(String.join(" ", command) + ": interrupted", e);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Override
  public String driver(String netdev) {
    requireNetdevName(netdev);
    Path link = sysfsRoot.resolve("class/net").resolve(netdev).resolve("device/driver");
    try {
      Path target = Files.readSymbolicLink(link);
      Path name = target.getFileName();
      return name == null ? null : name.toString();
    } catch (IOException | UnsupportedOperationException noDriver) {
      // Virtual interfaces (bonds, veth, lo) have no device/driver link.
      return null;
    }
  }

  private static void requireNetdevName(String netdev) {
    if (netdev == null || !NETDEV.matcher(netdev).matches()) {
      throw new IllegalArgumentException("not a network interface name: " + netdev);
    }
  }
}
