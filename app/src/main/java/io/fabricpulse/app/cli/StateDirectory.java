package io.fabricpulse.app.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where {@code streams} keeps its local state (Kafka Streams' {@code state.dir}) when {@code
 * --state-dir} is not given; never the current directory. In order:
 *
 * <ol>
 *   <li>{@code $STATE_DIRECTORY/streams}: systemd sets STATE_DIRECTORY for a unit with {@code
 *       StateDirectory=fabricpulse} (the first entry when it lists several);
 *   <li>{@code /var/lib/fabricpulse/streams} when that directory, or {@code /var/lib} to create it
 *       in, is writable (a service user, root);
 *   <li>{@code ${XDG_STATE_HOME:-~/.local/state}/fabricpulse/streams} for everyone else.
 * </ol>
 */
final class StateDirectory {
  static final Path SYSTEM = Path.of("/var/lib/fabricpulse");

  private StateDirectory() {}

  static Path forStreams() {
    return forStreams(System.getenv(), Path.of(System.getProperty("user.home")), Files::isWritable);
  }

  static Path forStreams(Map<String, String> env, Path home, Predicate<Path> writable) {
    String systemd = env.get("STATE_DIRECTORY");
    if (systemd != null && !systemd.isBlank()) {
      return Path.of(systemd.split(":")[0]).resolve("streams");
    }
    if (writable.test(SYSTEM) || (!Files.exists(SYSTEM) && writable.test(SYSTEM.getParent()))) {
      return SYSTEM.resolve("streams");
    }
    String xdg = env.get("XDG_STATE_HOME");
    Path base =
        xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()
            ? Path.of(xdg)
            : home.resolve(".local/state");
    return base.resolve("fabricpulse/streams");
  }
}
