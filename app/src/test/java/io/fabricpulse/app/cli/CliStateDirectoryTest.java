package io.fabricpulse.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where {@code streams} keeps its state when --state-dir is not given: never the working dir. */
class CliStateDirectoryTest {
  private static final Path HOME = Path.of("/home/ops");

  @Test
  void systemdsStateDirectoryComesFirst() {
    assertEquals(
        Path.of("/var/lib/fabricpulse/streams"),
        StateDirectory.forStreams(
            Map.of("STATE_DIRECTORY", "/var/lib/fabricpulse"), HOME, p -> false));
    assertEquals(
        Path.of("/var/lib/a/streams"),
        StateDirectory.forStreams(
            Map.of("STATE_DIRECTORY", "/var/lib/a:/var/lib/b"), HOME, p -> false));
  }

  @Test
  void theSystemDirectoryWhenItIsWritable() {
    assertEquals(
        Path.of("/var/lib/fabricpulse/streams"),
        StateDirectory.forStreams(Map.of(), HOME, p -> p.equals(Path.of("/var/lib/fabricpulse"))));
  }

  @Test
  void otherwiseThePerUserStateDirectory() {
    assertEquals(
        Path.of("/home/ops/.local/state/fabricpulse/streams"),
        StateDirectory.forStreams(Map.of(), HOME, p -> false));
    assertEquals(
        Path.of("/srv/state/fabricpulse/streams"),
        StateDirectory.forStreams(Map.of("XDG_STATE_HOME", "/srv/state"), HOME, p -> false));
    // the XDG spec: a relative path is invalid and ignored
    assertEquals(
        Path.of("/home/ops/.local/state/fabricpulse/streams"),
        StateDirectory.forStreams(Map.of("XDG_STATE_HOME", "state"), HOME, p -> false));
  }
}
