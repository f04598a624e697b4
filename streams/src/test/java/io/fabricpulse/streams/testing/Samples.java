package io.fabricpulse.streams.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real captures in /work/shared/samples: the {@code fabricpulse.samples} system property set by
 * Surefire, else {@code ../shared/samples} next to the repository root.
 */
public final class Samples {

  private Samples() {}

  public static Path root() {
    String property = System.getProperty("fabricpulse.samples");
    if (property != null && Files.isDirectory(Path.of(property))) {
      return Path.of(property);
    }
    return RepoPaths.root().resolveSibling("shared").resolve("samples");
  }

  public static String read(String relative) {
    try {
      return Files.readString(root().resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
