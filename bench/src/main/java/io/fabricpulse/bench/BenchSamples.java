package io.fabricpulse.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The real captures in {@code shared/samples}: the {@code fabricpulse.samples} property first
 * (run.sh passes it to every JMH fork), else {@code ../shared/samples} next to the repository root
 * found by walking up from the working directory.
 */
final class BenchSamples {
  private BenchSamples() {}

  static Path dir() {
    String property = System.getProperty("fabricpulse.samples");
    if (property != null && Files.isDirectory(Path.of(property))) {
      return Path.of(property);
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        Path samples = dir.resolve("../shared/samples").normalize();
        if (Files.isDirectory(samples)) {
          return samples;
        }
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("samples directory not found; set -Dfabricpulse.samples");
  }

  static String text(String relative) {
    try {
      return Files.readString(dir().resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> lines(String relative) {
    try {
      return Files.readAllLines(dir().resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
