package io.fabricpulse.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The real captures in {@code collectors/testdata}: the {@code fabricpulse.testdata} property first
 * (run.sh passes it to every JMH fork), else {@code collectors/testdata} under the repository root
 * found by walking up from the working directory.
 */
final class BenchSamples {
  private BenchSamples() {}

  static Path dir() {
    String property = System.getProperty("fabricpulse.testdata");
    if (property != null) {
      if (!Files.isDirectory(Path.of(property))) {
        throw new IllegalStateException("-Dfabricpulse.testdata=" + property + " is no directory");
      }
      return Path.of(property);
    }
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null) {
      if (Files.exists(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve(".mvn"))) {
        Path testdata = dir.resolve("collectors/testdata");
        if (Files.isDirectory(testdata)) {
          return testdata;
        }
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException("collectors/testdata not found; set -Dfabricpulse.testdata");
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
