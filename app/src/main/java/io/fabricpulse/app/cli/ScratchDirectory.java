package io.fabricpulse.app.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The temporary directories commands work in (state, broker data, captures), removed after. */
final class ScratchDirectory {
  private ScratchDirectory() {}

  /** Deletes {@code dir} and everything under it, deepest first. */
  static void delete(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
